#!/usr/bin/env python3
"""pyAgrum's LoopyBeliefPropagation on one thread, per iteration, beside bench/loopy_bp.

    pyagrum_lbp.py MODEL.uai|NET.bif [--iterations N] [--evidence CASES.evid] [--cases K]

A Bayesian network (.bif) runs as it is, one case of the .evid batch after another (the first K).
A pairwise UAI MARKOV model (as `loopy_bp --write-uai DIR` writes the synthetic ones) has no
pyAgrum LBP of its own (its LBP is for Bayesian networks), so it runs as the equivalent
Bayesian network: each single-variable factor a root prior, each pairwise factor phi(u, v) a
binary child C_uv observed true with P(C_uv = 1 | u, v) = phi(u, v) / max phi. The posteriors
of the model's variables are then those of the Markov model, and every LBP iteration passes one
message per factor edge, as ours does. Its epsilon is set to 0 so that it runs N iterations.

Prints one JSON object: iterations run and milliseconds per iteration (and per case)."""
import argparse, json, time

import numpy

import pyagrum as gum


def read_uai(path):
    tok = open(path).read().split()
    pos = 0

    def nxt():
        nonlocal pos
        pos += 1
        return tok[pos - 1]

    assert nxt() == "MARKOV"
    n = int(nxt())
    domains = [int(nxt()) for _ in range(n)]
    scopes = []
    for _ in range(int(nxt())):
        k = int(nxt())
        scopes.append([int(nxt()) for _ in range(k)])
    tables = []
    for _ in scopes:
        m = int(nxt())
        tables.append([float(nxt()) for _ in range(m)])
    return domains, scopes, tables


def markov_as_bn(domains, scopes, tables):
    bn = gum.BayesNet("pairwise")
    ids = [bn.add(gum.RangeVariable(f"x{v}", "", 0, d - 1)) for v, d in enumerate(domains)]
    priors = {}
    evidence = {}
    for f, (scope, table) in enumerate(zip(scopes, tables)):
        if len(scope) == 1:
            priors.setdefault(scope[0], [1.0] * domains[scope[0]])
            priors[scope[0]] = [a * b for a, b in zip(priors[scope[0]], table)]
            continue
        u, v = scope
        c = bn.add(gum.LabelizedVariable(f"c{f}", "", 2))
        bn.addArc(ids[u], c)
        bn.addArc(ids[v], c)
        # P(C = 1 | u, v) as an array over (u, v, C), then in the order fillWith reads (its names reversed).
        p = numpy.array(table).reshape(domains[u], domains[v]) / max(table)
        arr = numpy.stack([1 - p, p], axis=-1)
        axes = {f"x{u}": 0, f"x{v}": 1, f"c{f}": 2}
        cpt = bn.cpt(c)
        cpt.fillWith(arr.transpose([axes[n] for n in reversed(cpt.names)]).flatten().tolist())
        evidence[f"c{f}"] = 1
    for v, d in enumerate(domains):
        prior = priors.get(v, [1.0] * d)
        s = sum(prior)
        bn.cpt(ids[v]).fillWith([p / s for p in prior])
    return bn, [evidence]


def read_cases(path, names):
    tok = open(path).read().split()
    n, pos, cases = int(tok[0]), 1, []
    for _ in range(n):
        k = int(tok[pos]); pos += 1
        cases.append({names[int(tok[pos + 2 * i])]: int(tok[pos + 2 * i + 1]) for i in range(k)})
        pos += 2 * k
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--evidence")
    ap.add_argument("--cases", type=int, default=20)
    a = ap.parse_args()
    gum.setNumberOfThreads(1)
    if a.model.endswith(".uai"):
        bn, cases = markov_as_bn(*read_uai(a.model))
    else:
        bn = gum.loadBN(a.model)
        names = [bn.variable(i).name() for i in sorted(bn.nodes())]
        cases = read_cases(a.evidence, names)[: a.cases] if a.evidence else [{}]
    iterations, start = 0, time.perf_counter()
    for case in cases:
        ie = gum.LoopyBeliefPropagation(bn)
        ie.setMaxIter(a.iterations)
        ie.setEpsilon(0.0)
        ie.setMinEpsilonRate(0.0)
        ie.setEvidence(case)
        ie.makeInference()
        iterations += ie.nbrIterations()
    s = time.perf_counter() - start
    print(json.dumps({"peer": "pyagrum LoopyBeliefPropagation", "version": gum.__version__,
                      "threads": 1, "model": a.model, "cases": len(cases),
                      "iterations": iterations, "ms_per_iteration": s * 1000 / max(iterations, 1),
                      "ms_per_case": s * 1000 / len(cases)}))


if __name__ == "__main__":
    main()
