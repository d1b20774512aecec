#!/usr/bin/env python3
"""One row of bench/route_table.sh from its cells, or (--table ROWS.jsonl) the markdown table.

    route_table_row.py NAME DEVICE CASES TASK LIMIT_S CELLS.tsv PEER.json "ROUTES" CLOCK
    route_table_row.py --table ROWS.jsonl CLOCK

CELLS.tsv: one line per run (auto_first, auto, auto_est, then each forced route): name, wall
seconds, CPU seconds, exit status, its JSON, its stderr. A run killed at the limit (exit 124) or
failed is kept with why, and counts for no ratio. CLOCK (wall or cpu) is what the ratios and the
table's seconds compare."""
import json, sys


def numbers(v):
    """Every number of an answer, in a stable order, for the routes' largest difference."""
    if isinstance(v, dict):
        return [x for k in sorted(v) for x in numbers(v[k])]
    if isinstance(v, list):
        return [x for e in v for x in numbers(e)]
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return [float(v)]
    return [None] if v is None else []


def answers(results):
    keep = ("log10", "marginals", "value")
    return numbers([{k: r[k] for k in keep if k in r} for r in results])


def read_cell(secs, cpu, rc, json_path, err_path, limit):
    cell = {"s": float(secs), "cpu_s": float(cpu), "exit": int(rc)}
    if cell["exit"] in (124, 137):
        cell["skipped"] = f"over the {limit} s cell limit"
        return cell, None
    try:
        results = json.load(open(json_path))
    except Exception:
        lines = open(err_path).read().strip().splitlines()
        cell["skipped"] = (lines[-1] if lines else f"exit {rc}")[:200]
        return cell, None
    results = results if isinstance(results, list) else [results]
    ok = [r for r in results if "time_ms" in r]
    if ok:
        cell["route"] = ok[0].get("route")
        cell["route_why"] = ok[0].get("route_why")
        cell["ran_on"] = ok[0].get("device")
        cell["ms_per_case"] = ok[0]["time_ms"]
    cell["failed_cases"] = len(results) - len(ok)
    return cell, results


def row(argv):
    name, device, cases, task, limit, cells_path, peer_path, routes, clock = argv
    key = "cpu_s" if clock == "cpu" else "s"
    r = {"network": name, "device": device, "cases": int(cases), "task": task, "clock": clock}
    first = None
    for line in open(cells_path):
        run, secs, cpu, rc, json_path, err_path = line.rstrip("\n").split("\t")
        cell, results = read_cell(secs, cpu, rc, json_path, err_path, limit)
        r[run] = cell
        if results is not None and run in routes.split():
            mine = answers(results)
            if first is None:
                first = mine
            else:
                pairs = [(a, b) for a, b in zip(mine, first) if a is not None and b is not None]
                diff = max((abs(a - b) for a, b in pairs), default=0.0)
                r["max_diff"] = max(r.get("max_diff", 0.0), diff)
    forced = {k: r[k][key] for k in routes.split() if k in r and "skipped" not in r[k]}
    if forced:
        best = min(forced, key=forced.get)
        r["best"], r["best_s"] = best, forced[best]
        for run in ("auto_first", "auto", "auto_est"):
            if run in r and "skipped" not in r[run]:
                r[run + "_over_best"] = round(r[run][key] / max(forced[best], 1e-3), 3)
    peer = json.load(open(peer_path))
    if "per_case_ms" in peer:
        per_case = peer["cpu_ms_per_case"] if clock == "cpu" else peer["per_case_ms"]
        total = (peer.get("load_ms", 0) + per_case * int(cases)) / 1000
        r["pyagrum"] = {"s": round(total, 3), "cases_run": peer["cases"],
                        "extrapolated": peer["cases"] < int(cases)}
        if forced:
            r["best_over_pyagrum"] = round(total / max(forced[best], 1e-3), 2)
    elif "error" in peer:
        r["pyagrum"] = {"skipped": peer["error"]}
    print(json.dumps(r))


def table(path, clock):
    key = "cpu_s" if clock == "cpu" else "s"

    def seconds(cell):
        if not cell:
            return ""
        return "skip" if "skipped" in cell else f"{cell[key]:.3f}"

    rows = [json.loads(l) for l in open(path) if l.strip()]
    print(f"Seconds: each process's {'CPU time (user + system)' if clock == 'cpu' else 'wall time'}.\n")
    print("| network | device | cases | task | auto took | auto first s | auto s | estimate-only s "
          "| mlf s | jt s | be s | auto / best | first / best | pyAgrum s | pyAgrum / best |")
    print("|---|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    skipped = []
    for r in rows:
        if "skipped" in r and "task" not in r:
            skipped.append(f"{r['network']} ({r['cases']} cases): {r['skipped']}")
            continue
        auto = r.get("auto", {})
        took = auto.get("route", "—") if "skipped" not in auto else "—"
        peer = r.get("pyagrum", {})
        peer_s = ("skip" if "skipped" in peer else
                  f"{peer['s']:.2f}{'*' if peer.get('extrapolated') else ''}" if peer else "")
        ratio = lambda k: f"{r[k]:.2f}" if k in r else "—"
        vs = f"{r['best_over_pyagrum']:.2f}×" if "best_over_pyagrum" in r else ""
        print(f"| {r['network']} | {r['device']} | {r['cases']} | {r['task']} | {took} "
              f"| {seconds(r.get('auto_first'))} | {seconds(auto)} | {seconds(r.get('auto_est'))} "
              f"| {seconds(r.get('mlf'))} | {seconds(r.get('jt'))} | {seconds(r.get('be'))} "
              f"| {ratio('auto_over_best')} | {ratio('auto_first_over_best')} | {peer_s} | {vs} |")
        for run in ("auto_first", "auto", "auto_est", "mlf", "jt", "be"):
            if "skipped" in r.get(run, {}):
                skipped.append(f"{r['network']} {r['device']} {r['cases']} {r['task']} "
                               f"{run}: {r[run]['skipped']}")
    for run, label in (("auto", "auto (its choice remembered)"), ("auto_first", "auto's first run"),
                       ("auto_est", "the estimate alone")):
        ratios = [(r[run + "_over_best"], r) for r in rows if run + "_over_best" in r]
        if ratios:
            worst, at = max(ratios, key=lambda x: x[0])
            within = sum(1 for x, _ in ratios if x <= 1.2)
            print(f"\n{label}: within 1.2x of the fastest route in {within} of {len(ratios)} rows; "
                  f"worst {worst:.2f}x ({at['network']} {at['device']} {at['cases']} {at['task']}).")
    if skipped:
        print("\nSkipped cells:\n")
        for s in skipped:
            print(f"- {s}")
    print("\npyAgrum: the network read and its inference built, then the cases, inside Python (the "
          "interpreter's start and the import not counted); `*`: it ran out of its budget and the "
          "rest is extrapolated from its per-case time.")


if __name__ == "__main__":
    if sys.argv[1] == "--table":
        table(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "wall")
    else:
        row(sys.argv[1:])
