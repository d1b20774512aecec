#!/usr/bin/env python3
"""Summarise a gpu_trace timeline: the process's activity cut into bursts (no kernel, copy or
driver call for longer than --gap ms between them), each burst's wall time beside the time its
kernels, copies, synchronisations and driver calls took, and its busiest kernels and calls.
  bench/gpu_trace/summarise.py run.tsv [--gap 1.0] [--top 6]"""
import argparse
import collections


def read(path):
    records = []
    with open(path) as f:
        for line in f:
            kind, start, end, stream, size, name = line.rstrip("\n").split("\t", 5)
            records.append((int(start), int(end), kind, int(stream), size, name))
    records.sort()
    return records


def bursts(records, gap_ns):
    current, last_end = [], None
    for r in records:
        if current and r[0] - last_end > gap_ns:
            yield current
            current, last_end = [], None
        current.append(r)
        last_end = r[1] if last_end is None else max(last_end, r[1])
    if current:
        yield current


def busy(intervals):
    """Time covered by the union of the intervals (overlapping kernels count once)."""
    total, reach = 0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def describe(burst, origin, top):
    start = burst[0][0]
    end = max(r[1] for r in burst)
    by_kind = collections.defaultdict(list)
    for r in burst:
        by_kind[r[2]].append(r)
    parts = [f"{(start - origin) / 1e6:10.3f} ms  wall {(end - start) / 1e3:9.1f} us"]
    for kind in ("kernel", "copy", "memset", "sync", "driver"):
        rs = by_kind.get(kind, [])
        if rs:
            parts.append(f"{kind} {len(rs)}x {busy([(r[0], r[1]) for r in rs]) / 1e3:.1f} us")
    print("  ".join(parts))
    for kind in ("kernel", "copy", "driver"):
        totals = collections.Counter()
        counts = collections.Counter()
        for r in by_kind.get(kind, []):
            key = r[5] if kind != "copy" else f"{r[5]} {r[4]} B"
            totals[key] += r[1] - r[0]
            counts[key] += 1
        for key, ns in totals.most_common(top):
            print(f"      {kind:6s} {counts[key]:5d}x {ns / 1e3:9.1f} us  {key[:90]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("--gap", type=float, default=1.0, help="ms of quiet that ends a burst")
    parser.add_argument("--top", type=int, default=6)
    args = parser.parse_args()
    records = read(args.trace)
    if not records:
        print("no records")
        return
    for burst in bursts(records, int(args.gap * 1e6)):
        describe(burst, records[0][0], args.top)


if __name__ == "__main__":
    main()
