"""Weighted model counts by enumeration, independent of the library: every assignment of the
variables is checked against the formula itself (a CNF's clauses, or a d-DNNF's Boolean value
computed here from its c2d text), and the weights of the satisfying ones are multiplied and
summed. Weights are laid out as zbddc.Circuit takes them: (B, n, 2), [..., 0] the negative
literal's, [..., 1] the positive's."""
import itertools

import numpy as np


def assignments(n):
    """Every assignment of n variables, one per row (2^n x n, 0/1)."""
    return np.array(list(itertools.product((0, 1), repeat=n)), dtype=np.int64).reshape(-1, n)


def read_cnf(path):
    """(variables, clauses) of a DIMACS CNF."""
    n, clauses = 0, []
    with open(path) as f:
        for line in f:
            t = line.split()
            if not t or t[0] == "c":
                continue
            if t[0] == "p":
                n = int(t[2])
                continue
            clause = [int(x) for x in t if x != "0"]
            if clause:
                clauses.append(clause)
    return n, clauses


def cnf_models(n, clauses):
    a = assignments(n)
    sat = np.ones(len(a), dtype=bool)
    for clause in clauses:
        hit = np.zeros(len(a), dtype=bool)
        for lit in clause:
            hit |= a[:, abs(lit) - 1] == (1 if lit > 0 else 0)
        sat &= hit
    return a[sat]


def nnf_models(text, n):
    """The satisfying assignments of a c2d-format d-DNNF over variables 1..n."""
    lines = [l.split() for l in text.splitlines() if l.strip() and not l.startswith("c")]
    a = assignments(n)
    values = []
    for t in lines[1:]:
        if t[0] == "L":
            lit = int(t[1])
            values.append(a[:, abs(lit) - 1] == (1 if lit > 0 else 0))
        elif t[0] == "A":
            v = np.ones(len(a), dtype=bool)
            for c in t[2:]:
                v = v & values[int(c)]
            values.append(v)
        else:  # "O j k c1 .. ck"
            v = np.zeros(len(a), dtype=bool)
            for c in t[3:]:
                v = v | values[int(c)]
            values.append(v)
    return a[values[-1]]


def wmc(models, weights):
    """Per weighting b: the sum over models m of prod_v weights[b, v, m_v]."""
    weights = np.asarray(weights, dtype=np.float64)
    n = weights.shape[1]
    if len(models) == 0:
        return np.zeros(len(weights))
    picked = weights[:, np.arange(n)[None, :], models]  # B x models x n
    return picked.prod(axis=2).sum(axis=1)


def wmc_gradient(models, weights):
    """dWMC/dw[b, v, s]: the sum over models with m_v = s of the other variables' weights."""
    weights = np.asarray(weights, dtype=np.float64)
    b, n, _ = weights.shape
    grad = np.zeros_like(weights)
    for v in range(n):
        for s in (0, 1):
            chosen = models[models[:, v] == s]
            if len(chosen) == 0:
                continue
            others = weights.copy()
            others[:, v, :] = 1.0
            grad[:, v, s] = wmc(chosen, others)
    return grad


def random_ddnnf(n, rng, used=None):
    """A random d-DNNF over (a subset of) variables 1..n in c2d's format: decisions on a
    variable whose branches may mention different variables (not smooth), and ANDs of parts over
    disjoint variables. `used` (default: all but the last, which it leaves unmentioned) are the
    variables it may mention."""
    nodes = []

    def add(line):
        nodes.append(line)
        return len(nodes) - 1

    def build(vs):
        if not vs:
            return add("A 0") if rng.random() < 0.7 else add("O 0 0")
        if len(vs) >= 3 and rng.random() < 0.35:
            cut = int(rng.integers(1, len(vs)))
            left, right = build(vs[:cut]), build(vs[cut:])
            return add(f"A 2 {left} {right}")
        v, rest = vs[0], vs[1:]
        branches = []
        for lit in (v, -v):
            keep = [u for u in rest if rng.random() < 0.8]
            sub = build(keep)
            leaf = add(f"L {lit}")
            branches.append(add(f"A 2 {leaf} {sub}"))
        return add(f"O {v} 2 {branches[0]} {branches[1]}")

    vs = list(used) if used is not None else list(range(1, n))
    rng.shuffle(vs)
    build(vs)
    edges = sum(len(l.split()) - (2 if l[0] == "A" else 3) for l in nodes if l[0] in "AO")
    return f"nnf {len(nodes)} {edges} {n}\n" + "\n".join(nodes) + "\n"
