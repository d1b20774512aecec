#!/usr/bin/env python3
"""pyAgrum's LazyPropagation on one thread over a UAI batch .evid, as the users of these networks
run it: per case, set the evidence, infer, read every posterior (MAR). (Its MPE, mpe() and
mpeLog2Posterior(), fails with "Empty tensor" even on asia in pyAgrum 3.3.1, so there is no MPE
column from this peer.)

    pyagrum_lazy.py NET.bif CASES.evid [--ours OURS.json] [--budget-s S] [--task mar|pr]

Prints one JSON object: cases run, per-case milliseconds, and (with --ours, zbddc's marginals of
the first cases as bench/jt_batch writes them) the largest difference from ours. Variables are
indexed in file order, as zbddc reads them. Stops after --budget-s seconds (cases run counted).
--task pr reads P(e) (evidenceProbability) in place of the posteriors; load_ms is the network's
reading and the inference object's construction, before the first case."""
import argparse, json, sys, time

import pyagrum as gum


def read_cases(path):
    tokens = open(path).read().split()
    n, pos, cases = int(tokens[0]), 1, []
    for _ in range(n):
        k = int(tokens[pos]); pos += 1
        cases.append([(int(tokens[pos + 2 * i]), int(tokens[pos + 2 * i + 1])) for i in range(k)])
        pos += 2 * k
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("network"); ap.add_argument("evidence")
    ap.add_argument("--ours"); ap.add_argument("--budget-s", type=float, default=120)
    ap.add_argument("--task", choices=("mar", "pr"), default="mar")
    # 0: pyAgrum's own default (every core), for the comparison on the whole machine.
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    load_start = time.perf_counter()
    if a.threads:
        gum.setNumberOfThreads(a.threads)
    bn = gum.loadBN(a.network)
    # zbddc numbers variables in file order; pyAgrum's ids follow the same order for BIF.
    names = [bn.variable(i).name() for i in sorted(bn.nodes())]
    cases = read_cases(a.evidence)
    ours = json.load(open(a.ours)) if a.ours else []
    ie = gum.LazyPropagation(bn)
    if a.threads:
        ie.setNumberOfThreads(a.threads)
    load_ms = (time.perf_counter() - load_start) * 1000
    worst, run, start, cpu = 0.0, 0, time.perf_counter(), time.process_time()
    case_cpu_ms = []
    for c, case in enumerate(cases):
        case_start = time.process_time()
        ie.eraseAllEvidence()
        for v, s in case:
            ie.addEvidence(names[v], s)
        ie.makeInference()
        if a.task == "pr":
            ie.evidenceProbability()
            posts = []
        else:
            posts = [ie.posterior(n).toarray() for n in names]
        if c < len(ours):
            for n, p in zip(names, posts):
                for x, q in zip(p, ours[c][n]):
                    # null: ours was not a finite number, as far from pyAgrum's as can be.
                    worst = max(worst, abs(float(x) - q) if q is not None else 1.0)
        case_cpu_ms.append((time.process_time() - case_start) * 1000)
        run += 1
        if time.perf_counter() - start > a.budget_s:
            break
    ms = (time.perf_counter() - start) * 1000 / max(run, 1)
    # CPU time: on a shared machine, less disturbed by other load than the wall time.
    cpu_ms = (time.process_time() - cpu) * 1000 / max(run, 1)
    # Per case: a few slow cases decide the wall time of a parallel run over few cases.
    ordered = sorted(case_cpu_ms) or [0.0]
    at = lambda q: ordered[int(q * (len(ordered) - 1))]
    print(json.dumps({"peer": "pyagrum LazyPropagation", "version": gum.__version__,
                      "threads": a.threads or gum.getNumberOfThreads(),
                      "task": a.task, "cases": run, "load_ms": load_ms, "per_case_ms": ms, "cpu_ms_per_case": cpu_ms,
                      "case_cpu_ms": {"median": at(0.5), "p90": at(0.9), "max": ordered[-1]},
                      "max_diff_vs_ours": worst if ours else None}))


if __name__ == "__main__":
    sys.exit(main())
