#!/usr/bin/env python3
"""pyAgrum's exact inference on a UAI MARKOV instance (gum.loadMRF, ShaferShenoyMRFInference), as
bench/uai_markov.sh runs it beside zbddc: the instance's evidence (NAME.uai.evid, either layout:
a leading case count, or one bare `n v s ...` line) set, inference made, every posterior read
(MAR), and the largest difference from the competition's NAME.uai.MAR.

pyAgrum's loadMRF (2.x) lays a UAI table out by its own variable order, the smallest index
fastest, whatever order the scope lists: `2 0 1` and `2 1 0` over the table `1 2 3 4` both give
P(X0 = 0) = 0.4, where the format (last listed variable fastest) gives 0.3 and 0.4. So every
factor is handed to it rewritten over its scope in descending order, the table permuted to
match, which is the layout it reads.

With --evidence CASES.evid (a UAI batch, `zbddc sample`'s) it answers those cases in turn on one
inference object (evidence erased, set, inference made, every posterior read) until --budget-s
seconds have passed, and prints the cases run and the milliseconds per case; with --ours (zbddc's
`run --task mar --json` over the first cases, or bench/uai_markov's --write-mar) the largest
difference from ours; with --dump FILE its own posteriors of the first 20 cases in that shape.
"""
import argparse, json, os, tempfile, time

import pyagrum as gum

from pyagrum_lazy import read_cases  # the UAI batch layout, as the network peer reads it


def read_evidence(path):
    if not os.path.exists(path):
        return []
    tokens = open(path).read().split()
    if not tokens:
        return []
    first = int(tokens[0])
    # One bare case is `n v1 s1 ... vn sn`: 2n + 1 tokens. A leading count of cases otherwise.
    rest = tokens[1:] if len(tokens) != 2 * first + 1 else tokens
    if not rest:
        return []
    k = int(rest[0])
    return [(int(rest[1 + 2 * i]), int(rest[2 + 2 * i])) for i in range(k)]


def read_mar(path):
    if not os.path.exists(path):
        return None
    tokens = open(path).read().split()
    nums = tokens[tokens.index("MAR") + 1:]
    def parse(nums):
        n, j, out = int(nums[0]), 1, []
        for _ in range(n):
            k = int(nums[j]); j += 1
            out.append([float(x) for x in nums[j:j + k]]); j += k
        return out, j
    out, j = parse(nums)
    return out if j == len(nums) else parse(nums[1:])[0]


def agrum_layout(path):
    """The UAI text with each factor over its scope in descending order, its table permuted."""
    tokens = open(path).read().split()
    n = int(tokens[1]); dom = [int(t) for t in tokens[2:2 + n]]
    pos = 2 + n
    m = int(tokens[pos]); pos += 1
    scopes = []
    for _ in range(m):
        k = int(tokens[pos]); scopes.append([int(t) for t in tokens[pos + 1:pos + 1 + k]])
        pos += 1 + k
    out = tokens[:2 + n] + [str(m)]
    tables = []
    for scope in scopes:
        size = int(tokens[pos]); table = tokens[pos + 1:pos + 1 + size]; pos += 1 + size
        new = sorted(scope, reverse=True)
        strides, stride = {}, 1
        for v in reversed(scope):  # the file's layout: the last listed variable fastest
            strides[v] = stride; stride *= dom[v]
        permuted = []
        for row in range(size):  # rows of `new`, its last variable fastest
            old, rest = 0, row
            for v in reversed(new):
                old += (rest % dom[v]) * strides[v]; rest //= dom[v]
            permuted.append(table[old])
        out += [str(len(new))] + [str(v) for v in new]
        tables += [str(size)] + permuted
    return " ".join(out + tables) + "\n"


def run_batch(a, mrf):
    ids = sorted(mrf.nodes())
    cases = read_cases(a.evidence)
    ours = json.load(open(a.ours)) if a.ours else []
    ie = gum.ShaferShenoyMRFInference(mrf)
    worst, run, dumped, start = 0.0, 0, [], time.perf_counter()
    for c, case in enumerate(cases):
        ie.eraseAllEvidence()
        for v, s in case:
            ie.addEvidence(ids[v], s)
        ie.makeInference()
        posteriors = [ie.posterior(i).tolist() for i in ids]
        if c < len(ours):
            theirs = ours[c]["marginals"]
            for v, p in enumerate(posteriors):
                for x, q in zip(p, theirs[f"X{v}"]):
                    worst = max(worst, abs(float(x) - q) if q is not None else 1.0)
        if c < 20 and a.dump:
            dumped.append({"marginals": {f"X{v}": p for v, p in enumerate(posteriors)}})
        run += 1
        if time.perf_counter() - start > a.budget_s:
            break
    ms = (time.perf_counter() - start) * 1000 / max(run, 1)
    if a.dump:
        json.dump(dumped, open(a.dump, "w"))
    print(json.dumps({"instance": os.path.basename(a.model), "threads": a.threads,
                      "cases": run, "mar_ms_per_case": round(ms, 3),
                      "compared": min(run, len(ours)), "max_diff_vs_ours": worst if ours else None}))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model"); ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--evidence"); ap.add_argument("--ours"); ap.add_argument("--dump")
    ap.add_argument("--budget-s", type=float, default=30)
    a = ap.parse_args()
    gum.setNumberOfThreads(a.threads)
    with tempfile.NamedTemporaryFile("w", suffix=".uai", delete=False) as f:
        f.write(agrum_layout(a.model))
    mrf = gum.loadMRF(f.name)
    os.unlink(f.name)
    if a.evidence:
        return run_batch(a, mrf)
    evidence = read_evidence(a.model + ".evid")
    ids = sorted(mrf.nodes())
    start = time.perf_counter()
    ie = gum.ShaferShenoyMRFInference(mrf)
    for v, s in evidence:
        ie.addEvidence(ids[v], s)
    ie.makeInference()
    posteriors = [list(ie.posterior(i).tolist()) for i in ids]
    ms = 1e3 * (time.perf_counter() - start)
    want = read_mar(a.model + ".MAR")
    gap = None
    if want and len(want) == len(posteriors):
        gap = max(abs(p - q) for ps, qs in zip(posteriors, want) for p, q in zip(ps, qs))
    print(json.dumps({"instance": os.path.basename(a.model), "threads": a.threads,
                      "mar_ms": round(ms, 1), "mar_gap": gap}))


if __name__ == "__main__":
    main()
