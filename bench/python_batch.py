#!/usr/bin/env python3
"""One MAR batch (default: 2,000 forward-sampled cases, 20% observed, seed 1) answered on the CPU
three ways, each on the same cases and the same compiled choice (route auto for the batch size):

  python    zbddc.compile once, then model.mar(rows): evidence array in, NumPy matrix out
  cpp       bench/pipeline_batch: Session::open once, then Session::answer (the C++ API)
  cli       the command line's round trip: the cases written as a .evid file, `zbddc run NET
            --task mar --evidence F --json` (reads and compiles the network every time), the
            JSON parsed back into a matrix; and the same from a compiled .so (model.save);
            medians of --rounds round trips, wall and CPU (ours and the command line's)

The python and cpp times are per batch, medians over --rounds x --repeats batches after one
warm-up batch; rounds alternate between them so that drift in the machine's load falls on both.
Each is taken as wall time and as the process's CPU time (all threads), the second less disturbed
by other work on the machine. The python batches also report the library's own time inside the
same call (Answers.time_ms, around Session::answer): wall minus that is what the Python path adds,
measured under the same load. The marginals of the three paths are compared (largest difference).
Prints one JSON object.

    PYTHONPATH=build/python python bench/python_batch.py NET.bif [--cases N] [--repeats R]
        [--rounds K] [--threads T] [--route R] [--zbddc build/zbddc] [--cpp build/bench/pipeline_batch]
        [--out DIR]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import zbddc


def write_evid(rows, path):
    """The UAI batch layout (2010): the number of cases, then per case its observed pairs."""
    with open(path, "w") as out:
        out.write(f"{len(rows)}\n")
        for row in rows:
            observed = np.flatnonzero(row >= 0)
            out.write(" ".join([str(len(observed))] +
                               [f"{v} {row[v]}" for v in observed]) + "\n")


def children_cpu_s():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_round_trip(zbddc_cli, model_path, rows, variables, folder, route):
    """Wall and CPU seconds (ours and the command line's) for evidence file + `zbddc run --json` +
    parsing, the marginals it gave, and its route."""
    start, cpu, child = time.perf_counter(), time.process_time(), children_cpu_s()
    evid = os.path.join(folder, "round_trip.evid")
    write_evid(rows, evid)
    route_flag = ["--route", route] if route != "auto" and not model_path.endswith(".so") else []
    run = subprocess.run([zbddc_cli, "run", model_path, "--task", "mar", "--evidence", evid,
                          "--device", "cpu", "--json"] + route_flag, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"python_batch: {model_path}: {run.stderr.strip()}")
    answers = json.loads(run.stdout)
    width = sum(len(v.states) for v in variables)
    matrix = np.array([[p for v in variables for p in a["marginals"][v.name]]
                       if "marginals" in a else [np.nan] * width for a in answers])
    route = next((a["route"] for a in answers if "route" in a), "")
    cpu_s = time.process_time() - cpu + children_cpu_s() - child
    return time.perf_counter() - start, cpu_s, matrix, route


def cli_round_trips(zbddc_cli, model_path, rows, variables, folder, repeats, route):
    """Medians of wall and CPU milliseconds over `repeats` round trips, the last marginals, route."""
    runs = [cli_round_trip(zbddc_cli, model_path, rows, variables, folder, route)
            for _ in range(repeats)]
    return (statistics.median(r[0] for r in runs) * 1000,
            statistics.median(r[1] for r in runs) * 1000, runs[-1][2], runs[-1][3])


def cpp_batches(program, network, evid, repeats, threads, route):
    run = subprocess.run([program, network, evid, "--repeats", str(repeats), "--device", "cpu",
                          "--threads", str(threads), "--route", route,
                          "--marginals", evid + ".cpp.bin"],
                         capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"python_batch: {program}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("network")
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    ap.add_argument("--route", default="auto", help="the route of all three paths")
    ap.add_argument("--zbddc", default="build/zbddc")
    ap.add_argument("--cpp", default="build/bench/pipeline_batch")
    ap.add_argument("--out", default=None, help="folder for the cases and the .so (default: temp)")
    a = ap.parse_args()
    folder = a.out or tempfile.mkdtemp(prefix="zbddc-python-batch.")
    os.makedirs(folder, exist_ok=True)
    evid = os.path.join(folder, "cases.evid")
    subprocess.run([a.zbddc, "sample", a.network, "--cases", str(a.cases), "--seed", "1",
                    "-o", evid], check=True)

    start = time.perf_counter()
    model = zbddc.compile(a.network, device="cpu", expected_cases=a.cases, threads=a.threads,
                          route=a.route)
    open_s = time.perf_counter() - start
    rows = model.read_evidence(evid)
    ours = model.mar(rows)  # warm-up
    python_ms, python_cpu_ms, library_ms, cpp_ms, cpp_cpu_ms, cpp = [], [], [], [], [], None
    for _ in range(a.rounds):
        for _ in range(a.repeats):
            start, cpu = time.perf_counter(), time.process_time()
            ours = model.mar(rows)
            python_cpu_ms.append((time.process_time() - cpu) * 1000)
            python_ms.append((time.perf_counter() - start) * 1000)
            library_ms.append(ours.time_ms)
        cpp = cpp_batches(a.cpp, a.network, evid, a.repeats, a.threads, a.route)
        cpp_ms += cpp["batch_ms"]
        cpp_cpu_ms += cpp["batch_cpu_ms"]
    cpp_matrix = np.fromfile(evid + ".cpp.bin").reshape(ours.probabilities.shape)

    cli_ms, cli_cpu_ms, cli_matrix, cli_route = cli_round_trips(
        a.zbddc, a.network, rows, model.variables, folder, a.rounds, a.route)
    so = os.path.join(folder, "model.so")
    model.save(so)
    cli_so_ms, cli_so_cpu_ms, cli_so_matrix, _ = cli_round_trips(
        a.zbddc, so, rows, model.variables, folder, a.rounds, a.route)

    median = statistics.median
    python_median, cpp_median = median(python_ms), median(cpp_ms)
    added = [p - l for p, l in zip(python_ms, library_ms)]
    failed = int((~ours.ok).sum())
    ok = ours.ok
    report = {
        "network": os.path.basename(a.network), "cases": a.cases, "failed_cases": failed,
        "threads": a.threads, "route": model.route, "cpp_route": cpp["route"],
        "cli_route": cli_route, "device": ours.device,
        "python_open_s": round(open_s, 3), "cpp_open_s": cpp["open_s"],
        "python_batch_ms": round(python_median, 2), "cpp_batch_ms": round(cpp_median, 2),
        "python_over_cpp": round(python_median / cpp_median - 1, 4),
        "python_batch_cpu_ms": round(median(python_cpu_ms), 2),
        "cpp_batch_cpu_ms": round(median(cpp_cpu_ms), 2),
        "python_over_cpp_cpu": round(median(python_cpu_ms) / median(cpp_cpu_ms) - 1, 4),
        "python_library_ms": round(median(library_ms), 2),
        "python_added_ms": round(median(added), 3),
        "python_added_max_ms": round(max(added), 3),
        "python_added_fraction": round(median(added) / median(library_ms), 5),
        "python_batch_ms_all": [round(t, 2) for t in python_ms],
        "cpp_batch_ms_all": [round(t, 2) for t in cpp_ms],
        "cli_round_trip_ms": round(cli_ms, 1),
        "cli_round_trip_cpu_ms": round(cli_cpu_ms, 1),
        "cli_so_round_trip_ms": round(cli_so_ms, 1),
        "cli_so_round_trip_cpu_ms": round(cli_so_cpu_ms, 1),
        "cli_over_python": round(cli_ms / python_median, 2),
        "cli_over_python_cpu": round(cli_cpu_ms / median(python_cpu_ms), 2),
        "cli_so_over_python": round(cli_so_ms / python_median, 2),
        "cli_so_over_python_cpu": round(cli_so_cpu_ms / median(python_cpu_ms), 2),
        "max_diff_python_cpp": float(np.nanmax(np.abs(ours.probabilities[ok] - cpp_matrix[ok]))),
        "max_diff_python_cli": float(np.nanmax(np.abs(ours.probabilities[ok] - cli_matrix[ok]))),
        "max_diff_python_cli_so": float(np.nanmax(np.abs(ours.probabilities[ok] -
                                                         cli_so_matrix[ok]))),
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
