#!/usr/bin/env python3
"""zbddc's MAR times per UAI instance beside the published ones (bench/peers/published_uai_mar.tsv).

Reads one or more uai_markov outputs (tab-separated rows: instance, device, clique entries, order
ms, PR ms, MAR ms, ...; header lines and rows of other shapes skipped) and prints a markdown table:
per instance measured, the best published time and whose it is, then each device's MAR ms and
the published best over it (a speed-up; below 1 where zbddc is slower).

    bench/uai_published.py uai.tsv [more.tsv ...]
"""
import csv
import sys
from pathlib import Path

PUBLISHED = Path(__file__).resolve().parent / "peers" / "published_uai_mar.tsv"


def published():
    rows = [line for line in PUBLISHED.read_text().splitlines() if not line.startswith("#")]
    reader = csv.DictReader(rows, delimiter="\t")
    best = {}
    for row in reader:
        name = row.pop("instance")
        solver, seconds = min(((k, float(v)) for k, v in row.items()), key=lambda kv: kv[1])
        best[name] = (solver, seconds * 1000.0)
    return best


def measured(paths):
    mar = {}  # (instance, device) -> ms
    for path in paths:
        for line in Path(path).read_text().splitlines():
            cells = line.split("\t")
            if len(cells) < 6 or cells[0] == "instance":
                continue
            try:
                mar[(cells[0], cells[1])] = float(cells[5])
            except ValueError:
                continue  # a refused or failed row
    return mar


def main(paths):
    best = published()
    mar = measured(paths)
    devices = sorted({d for _, d in mar})
    print("| instance | best published ms (whose) | "
          + " | ".join(f"{d} ms | × best" for d in devices) + " |")
    print("|---|---|" + "---:|---:|" * len(devices))
    for name, (solver, ms) in best.items():
        if not any((name, d) in mar for d in devices):
            continue  # not measured
        cells = []
        for d in devices:
            t = mar.get((name, d))
            cells += [f"{t:g}", f"{ms / t:.2f}"] if t else ["", ""]
        print(f"| {name} | {ms:.3g} ({solver}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
