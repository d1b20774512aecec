#!/usr/bin/env python3
"""A WCSP (.wcsp) as a pyDCOP problem (YAML), solved by pyDCOP's DPOP: the peer of
`zbddc run --distributed` in bench/dpop_compare.sh.

    pydcop_dpop.py FILE.wcsp --yaml OUT.yaml            write the problem only
    pydcop_dpop.py FILE.wcsp --python PY [--timeout S]  write it, run DPOP, print one JSON line

One agent per variable, as the generated DCOP instances assign them. A forbidden tuple (cost at
or above the upper bound) costs the upper bound in pyDCOP, which has no hard constraints; a
reported cost at or above it means no feasible assignment. pyDCOP 0.1.1 (PyPI) needs Python 3.7
and PuLP < 2 (docs/distributed.md).
"""
import argparse
import itertools
import json
import re
import subprocess
import sys
import time


def read_wcsp(path):
    """(upper bound, domains, functions); a function is (scope, default, {tuple: cost})."""
    tokens = open(path).read().split()
    pos = 0

    def take(n=1):
        nonlocal pos
        out = tokens[pos:pos + n]
        pos += n
        return out

    _, nvars, _, nfun, top = take(5)
    nvars, nfun, top = int(nvars), int(nfun), int(top)
    domains = [int(d) for d in take(nvars)]
    functions = []
    for _ in range(nfun):
        arity = int(take()[0])
        scope = [int(v) for v in take(arity)]
        default, ntuples = take(2)
        default, ntuples = int(default), int(ntuples)
        costs = {}
        for _ in range(ntuples):
            row = [int(x) for x in take(arity + 1)]
            costs[tuple(row[:arity])] = row[arity]
        functions.append((scope, default, costs))
    return top, domains, functions


def write_yaml(path, top, domains, functions, out):
    cap = lambda c: min(c, top)
    lines = ["name: %s" % re.sub(r"\W", "_", path.split("/")[-1]), "objective: min", "domains:"]
    for d in sorted(set(domains)):
        lines.append("  d%d: {values: [%s], type: int}" % (d, ", ".join(str(i) for i in range(d))))
    lines.append("variables:")
    for v, d in enumerate(domains):
        lines.append("  v%d: {domain: d%d}" % (v, d))
    lines.append("constraints:")
    constant = 0
    for i, (scope, default, costs) in enumerate(functions):
        if not scope:
            constant += cap(default if not costs else next(iter(costs.values())))
            continue
        by_cost = {}
        for t in itertools.product(*(range(domains[v]) for v in scope)):
            by_cost.setdefault(cap(costs.get(t, default)), []).append(" ".join(map(str, t)))
        lines.append("  c%d:" % i)
        lines.append("    type: extensional")
        if len(scope) == 1:
            lines.append("    variables: v%d" % scope[0])
        else:
            lines.append("    variables: [%s]" % ", ".join("v%d" % v for v in scope))
        lines.append("    values:")
        for cost, tuples in sorted(by_cost.items()):
            lines.append("      %d: %s" % (cost, " | ".join(tuples)))
    lines.append("agents:")
    for v in range(len(domains)):
        lines.append("  a%d: {capacity: 1000}" % v)
    open(out, "w").write("\n".join(lines) + "\n")
    return constant


def main():
    p = argparse.ArgumentParser()
    p.add_argument("wcsp")
    p.add_argument("--yaml", help="where to write the pyDCOP problem (default: FILE.yaml)")
    p.add_argument("--python", help="a Python with pyDCOP 0.1.1: run its DPOP")
    p.add_argument("--timeout", type=int, default=256, help="the longest run tried (s)")
    a = p.parse_args()
    top, domains, functions = read_wcsp(a.wcsp)
    out = a.yaml or re.sub(r"\.wcsp$", "", a.wcsp) + ".yaml"
    constant = write_yaml(a.wcsp, top, domains, functions, out)
    if not a.python:
        return
    # pip installs pyDCOP's command as bin/dcop.py of that Python's environment.
    dcop_py = subprocess.check_output(
        [a.python, "-c", "import sys, pydcop; print(sys.prefix + '/bin/dcop.py')"],
        text=True).strip()
    # pyDCOP 0.1.1's run does not end when DPOP has chosen every value: it runs until its
    # timeout, and its value-change metrics arrive only then. Its time to solve is bracketed
    # instead: runs with timeouts 1, 2, 4, ... s; the first one that returns a cost solved within
    # it, and the one before did not (a lower bound on its time).
    lower, limit = 0, 1 # whole seconds: its --timeout takes an integer
    while limit <= a.timeout:
        t0 = time.perf_counter()
        try:
            run = subprocess.run([a.python, dcop_py, "-t", str(limit), "solve", "--algo", "dpop",
                                  out], capture_output=True, text=True, timeout=limit + 120)
            result = json.loads(run.stdout[run.stdout.index("{"):])
        except (subprocess.TimeoutExpired, ValueError) as e:
            print(json.dumps({"file": a.wcsp, "status": "failed: %s at timeout %d s"
                              % (type(e).__name__, limit), "solve_s_above": lower}))
            return
        if result.get("cost") is not None:
            cost = result["cost"] + constant
            print(json.dumps({"file": a.wcsp, "status": "solved", "cost": cost,
                              "feasible": cost < top, "solve_s_above": lower,
                              "solve_s_at_most": limit, "wall_s": time.perf_counter() - t0,
                              "msg_count": result.get("msg_count"),
                              "msg_size": result.get("msg_size")}))
            return
        lower, limit = limit, 2 * limit
    print(json.dumps({"file": a.wcsp, "status": "unfinished", "solve_s_above": lower}))


if __name__ == "__main__":
    sys.exit(main())
