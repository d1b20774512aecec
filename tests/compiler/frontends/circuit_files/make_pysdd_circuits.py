#!/usr/bin/env python3
"""Writes the PySDD-compiled test circuits of this folder (committed, so CI needs no PySDD).

For each case: a random 3-CNF (NAME.cnf), its literal weights (NAME.weights, in one of the four
conventions of docs/formats/circuits.md), the SDD PySDD compiles it into (NAME.sdd, NAME.vtree),
the same circuit as a d-DNNF written by an independent converter below (NAME.nnf, c2d's format;
NAME.d4.nnf, d4's, for the smaller ones), and PySDD's own weighted model count and literal derivatives (NAME.expected:
`wmc V` and `d LIT V` lines). Run: pip install pysdd; python3 make_pysdd_circuits.py
(PySDD 1.0.0, seed 2026 gave the committed files.)
"""
import random
import sys

from pysdd.sdd import SddManager, Vtree

# name, variables, clauses, variables the clauses use, vtree type, weights convention
CASES = [
    ("cnf_a", 6, 8, 6, "balanced", "table"),
    ("cnf_b", 9, 14, 7, "right", "w"),         # two variables in no clause: smoothed at the root
    ("cnf_c", 12, 30, 12, "balanced", "cpw"),
    ("cnf_d", 14, 40, 13, "left", "cweights"),
    ("cnf_e", 16, 48, 16, "right", "cpw"),
    ("cnf_f", 28, 60, 27, "balanced", "w"),   # too many for brute force: PySDD is the oracle
]


def write_weights(path, n, weights, convention):
    with open(path, "w") as f:
        f.write("c literal weights, convention %s\n" % convention)
        if convention == "cweights":
            f.write("c weights " + " ".join("%r %r" % weights[v] for v in range(1, n + 1)) + "\n")
        for v in range(1, n + 1):
            pos, neg = weights[v]
            if convention == "table":
                f.write("%d %r %r\n" % (v, pos, neg))
            elif convention == "w":
                f.write("w %d %r\nw -%d %r\n" % (v, pos, v, neg))
            elif convention == "cpw":
                f.write("c p weight %d %r 0\nc p weight -%d %r 0\n" % (v, pos, v, neg))


def sdd_records(path):
    """The .sdd's node records in file order: (kind, id, fields)."""
    out = []
    for line in open(path):
        t = line.split()
        if not t or t[0] in ("c", "sdd"):
            continue
        out.append((t[0], int(t[1]), [int(x) for x in t[2:]]))
    return out


def write_c2d(records, n, path):
    """An SDD is a d-DNNF: decision = OR of (prime AND sub), T = empty AND, F = empty OR."""
    lines, index, edges = [], {}, 0
    for kind, nid, f in records:
        if kind == "T":
            lines.append("A 0")
        elif kind == "F":
            lines.append("O 0 0")
        elif kind == "L":
            lines.append("L %d" % f[1])
        else:
            k = f[1]
            ands = []
            for e in range(k):
                lines.append("A 2 %d %d" % (index[f[2 + 2 * e]], index[f[3 + 2 * e]]))
                edges += 2
                ands.append(len(lines) - 1)
            lines.append("O 0 %d %s" % (k, " ".join(map(str, ands))))
            edges += k
        index[nid] = len(lines) - 1
    with open(path, "w") as f:
        f.write("nnf %d %d %d\n" % (len(lines), edges, n))
        f.write("\n".join(lines) + "\n")


def write_d4(records, path):
    """d4's format: nodes `o|a|t|f id 0`, edges `parent child lit... 0`, the root is node 1; a
    literal becomes an edge label into a shared TRUE node."""
    ids = {}
    nodes, edges = [], []
    root_id = records[-1][1]
    next_id = [2]

    def fresh():
        next_id[0] += 1
        return next_id[0] - 1

    true_node = None
    for kind, nid, f in records:
        my = 1 if nid == root_id else fresh()
        ids[nid] = my
        if kind in ("T", "F"):
            nodes.append("%s %d 0" % (kind.lower(), my))
        elif kind == "L":
            if true_node is None:
                true_node = fresh()
                nodes.append("t %d 0" % true_node)
            nodes.append("a %d 0" % my)
            edges.append("%d %d %d 0" % (my, true_node, f[1]))
        else:
            nodes.append("o %d 0" % my)
            for e in range(f[1]):
                a = fresh()
                nodes.append("a %d 0" % a)
                edges.append("%d %d 0" % (my, a))
                edges.append("%d %d 0" % (a, ids[f[2 + 2 * e]]))
                edges.append("%d %d 0" % (a, ids[f[3 + 2 * e]]))
    with open(path, "w") as f:
        f.write("\n".join(nodes + edges) + "\n")


def main():
    rng = random.Random(2026)
    for name, n, m, used, vtree_type, convention in CASES:
        clause_vars = rng.sample(range(1, n + 1), used)
        clauses = []
        for _ in range(m):
            vs = rng.sample(clause_vars, 3)
            clauses.append([v if rng.random() < 0.5 else -v for v in vs])
        with open(name + ".cnf", "w") as f:
            f.write("p cnf %d %d\n" % (n, m))
            for c in clauses:
                f.write(" ".join(map(str, c)) + " 0\n")
        weights = {v: (round(rng.uniform(0.05, 2.0), 6), round(rng.uniform(0.05, 2.0), 6))
                   for v in range(1, n + 1)}
        write_weights(name + ".weights", n, weights, convention)

        mgr = SddManager.from_vtree(Vtree(var_count=n, vtree_type=vtree_type))
        f = mgr.true()
        for c in clauses:
            clause = mgr.false()
            for lit in c:
                clause = clause | mgr.literal(lit)
            f = f & clause
        f.save((name + ".sdd").encode())
        mgr.vtree().save((name + ".vtree").encode())
        records = sdd_records(name + ".sdd")
        write_c2d(records, n, name + ".nnf")
        if len(records) < 1000:  # keeps the committed files small
            write_d4(records, name + ".d4.nnf")

        wmc = f.wmc(log_mode=False)
        for v in range(1, n + 1):
            wmc.set_literal_weight(mgr.literal(v), weights[v][0])
            wmc.set_literal_weight(mgr.literal(-v), weights[v][1])
        total = wmc.propagate()
        with open(name + ".expected", "w") as out:
            out.write("wmc %r\n" % total)
            for v in range(1, n + 1):
                for lit in (v, -v):
                    out.write("d %d %r\n" % (lit, wmc.literal_derivative(mgr.literal(lit))))
        print(name, "sdd nodes", len(records), "wmc", total, file=sys.stderr)


if __name__ == "__main__":
    main()
