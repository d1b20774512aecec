#!/usr/bin/env python3
"""The KLay peer of bench/circuit_batches.cpp (Maene, Derkinderen and Zuidberg Dos Martires 2025):
the same SDDs layerised by KLay into PyTorch index tensors, timed the same way — layerisation
(file to module), then the best warm time of a forward pass and of a forward+backward pass (the
gradient of the summed outputs by every literal weight) at each batch size, and the time of the
first call of each (where torch.compile compiles the module's kernels for that batch and grad
mode: KLay's file-to-kernels time is its layerisation and this together).

    pip install klaycircuits torch
    python3 bench/peers/klay_peer.py [--device cuda] [--batches 1,128,1024] [--semiring log|real]
                               [--reps 10] [--json FILE] CIRCUIT.sdd...

A batch is B weight vectors of the circuit's variables, a (B, n) tensor that KLay's module takes
as it is (torch.vmap over it, as KLay's own NeSy benchmark batches, falls back to a loop over the
batch for segment_reduce in torch 2.x and is slower). Each circuit's count at all weights 1 (the model count, semiring
real) is printed too; KLay does not smooth, so it is the model count only where the circuit is
smooth (sudoku_4 and 4-grid; road_r and seq_fun have ORs whose children miss variables, and
zbddc, like PySDD, counts over every variable of the vtree). With `--zbddc BIN`, each circuit
is also answered by zbddc under one random probabilistic weighting, w(not x) = 1 - w(x), KLay's
neurosymbolic case, where the (x or not x) gadgets of smoothing weigh 1 and both counts agree:
KLay's count against `zbddc run --task mar`'s, and KLay's gradient by each probability,
d count/d w(x) through w(not x) = 1 - w(x) (autograd), against the same from zbddc's marginals
(which come from its backward pass), count * (P(x)/w(x) - P(not x)/w(not x)); the largest
relative differences are printed.

With `--zbddc-python`, each circuit is also timed through zbddc's Python module in the same
process (`zbddc.Circuit`, PYTHONPATH=build/python): the weights a (B, n, 2) float64 tensor on the
same device, stacked once outside the timing, passed as they are (on the GPU: read in device
memory through DLPack, values and gradients answered as CUDA tensors, nothing through the host),
timed as KLay is (the wall time of a call and the wait for it). Its values and its gradient
along w(not x) = 1 - w(x) are checked against KLay's on one such weighting batch (the largest
relative differences are printed).
"""
import argparse
import json
import os
import subprocess
import tempfile
import time
from importlib.metadata import version

import klay
import torch


def vtree_variables(sdd_path):
    """The largest variable of the .vtree beside the .sdd (the batch's weight count)."""
    n = 0
    with open(sdd_path[: -len(".sdd")] + ".vtree") as f:
        for line in f:
            t = line.split()
            if t and t[0] == "L":
                n = max(n, int(t[2]))
    return n


def synchronize(device):
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def first_and_best_ms(reps, work, device):
    """The first call's time (with torch.compile, what it compiles for this batch and grad
    mode), then the best of `reps` warm calls."""
    start = time.perf_counter()
    work()
    synchronize(device)
    first = (time.perf_counter() - start) * 1e3
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        work()
        synchronize(device)
        best = min(best, (time.perf_counter() - start) * 1e3)
    return first, best


def weights(n, batch, semiring, device, generator):
    pos = torch.rand((batch, n), generator=generator, dtype=torch.float64) * 0.95 + 0.05
    neg = torch.rand((batch, n), generator=generator, dtype=torch.float64) * 0.95 + 0.05
    if semiring == "log":
        pos, neg = pos.log(), neg.log()
    return pos.to(device).requires_grad_(), neg.to(device).requires_grad_()


def compare_with_zbddc(zbddc, path, n, generator):
    """KLay's count and gradient against zbddc's count and marginals under one weighting."""
    prob = (torch.rand(n, generator=generator, dtype=torch.float64) * 0.9 + 0.05).requires_grad_()
    pos, neg = prob, 1 - prob
    circuit = klay.Circuit()
    circuit.add_sdd_from_file(path)
    count = circuit.to_torch_module("real", compile=False)(pos, neg).reshape(-1)[0]
    count.backward()
    pos, neg = pos.detach(), neg.detach()
    with tempfile.NamedTemporaryFile("w", suffix=".weights", delete=False) as w:
        for v in range(n):
            w.write("%d %r %r\n" % (v + 1, float(pos[v]), float(neg[v])))
    try:
        out = subprocess.run([zbddc, "run", path, "--weights", w.name, "--task", "mar", "--json",
                              "--device", "cpu"], check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(w.name)
    answer = json.loads(out)
    z = float(count)
    count_error = abs(answer["value"] - z) / abs(z)
    grad_error = 0.0
    scale = max(float(prob.grad.abs().max()), 1e-300)
    for v in range(n):
        m0, m1 = answer["marginals"]["x%d" % (v + 1)]
        ours = answer["value"] * (m1 / float(pos[v]) - m0 / float(neg[v]))
        grad_error = max(grad_error, abs(ours - float(prob.grad[v])) / scale)
    return z, count_error, grad_error


def zbddc_circuit(path, args):
    import zbddc  # PYTHONPATH=build/python
    return zbddc.Circuit(path, device="cuda" if args.device.startswith("cuda") else "cpu",
                         semiring="log" if args.semiring == "log" else "probability",
                         gpu=torch.device(args.device).index or 0)


def zbddc_against_klay(circuit, path, n, args, generator):
    """Values and gradients along w(not x) = 1 - w(x) (where KLay, which does not smooth, agrees)
    of zbddc.Circuit and KLay's module (uncompiled: the timed one's compiles are left as they
    were) on 4 weightings: the largest relative differences."""
    klay_circuit = klay.Circuit()
    klay_circuit.add_sdd_from_file(path)
    module = klay_circuit.to_torch_module(args.semiring, compile=False).to(args.device)
    prob = (torch.rand((4, n), generator=generator, dtype=torch.float64) * 0.9 + 0.05)
    prob = prob.to(args.device).requires_grad_()
    pos, neg = prob, 1 - prob
    if args.semiring == "log":
        pos, neg = pos.log(), neg.log()
    theirs = module(pos, neg).reshape(-1)
    theirs.sum().backward()
    weights = torch.stack([1 - prob.detach(), prob.detach()], dim=-1).contiguous()
    ours, grad = circuit.forward(weights, grad=True)
    ours = torch.as_tensor(ours, device=args.device)
    grad = torch.as_tensor(grad, device=args.device)
    along = grad[..., 1] - grad[..., 0]  # d value / d w(x) through w(not x) = 1 - w(x)
    theirs = theirs.detach()
    difference = (ours - theirs).abs()  # in log space: the counts' relative difference
    value_error = float((difference if args.semiring == "log" else difference / theirs.abs()).max())
    grad_error = float((along - prob.grad).abs().max() / prob.grad.abs().max().clamp_min(1e-300))
    return value_error, grad_error


def time_zbddc_python(circuit, name, b, pos, neg, args):
    """zbddc.Circuit's forward and forward+gradient on the batch's weights (linear, (B, n, 2)),
    timed as KLay's module is."""
    with torch.no_grad():
        if args.semiring == "log":
            pos, neg = pos.exp(), neg.exp()
        weights = torch.stack([neg, pos], dim=-1).contiguous()
    circuit.forward(weights, grad=True)  # compiles for this batch
    f = first_and_best_ms(args.reps, lambda: circuit.forward(weights), args.device)[1]
    fb = first_and_best_ms(args.reps, lambda: circuit.forward(weights, grad=True), args.device)[1]
    print("%-12s %6d %13s %11.4f %11.4f   zbddc.Circuit" % (name, b, "-", f, fb))
    return {"circuit": name, "batch": b, "peer": "zbddc.Circuit", "forward_ms": f,
            "forward_backward_ms": fb, "device": args.device, "semiring": args.semiring}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("circuits", nargs="+")
    p.add_argument("--device", default="cpu")
    p.add_argument("--batches", default="1,128,1024")
    p.add_argument("--semiring", default="log", choices=["log", "real"])
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--no-compile", action="store_true", help="KLay's module without torch.compile")
    p.add_argument("--json")
    p.add_argument("--zbddc", help="zbddc binary: compare counts and gradients with it")
    p.add_argument("--zbddc-python", action="store_true",
                   help="also time zbddc.Circuit (zbddc's Python module) on the same tensors")
    args = p.parse_args()
    generator = torch.Generator().manual_seed(1)
    rows = []
    print("%-12s %6s %13s %11s %11s %13s %13s   (klay %s, %s, torch %s)" % (
        "circuit", "batch", "layerise ms", "forward ms", "fwd+bwd ms", "1st fwd ms",
        "1st f+b ms", version("klaycircuits"),
        args.semiring, torch.__version__))
    for path in args.circuits:
        name = path.split("/")[-1].split(".")[0]
        n = vtree_variables(path)
        # torch.compile recompiles KLay's one forward per circuit, batch and grad mode; past its
        # recompile limit (8) it runs that function eagerly for the rest of the process, which
        # made the later circuits' times the eager ones. Each circuit starts afresh.
        if not args.no_compile:
            torch._dynamo.reset()
        start = time.perf_counter()
        circuit = klay.Circuit()
        circuit.add_sdd_from_file(path)
        module = circuit.to_torch_module(args.semiring, compile=not args.no_compile).to(args.device)
        layerise_ms = (time.perf_counter() - start) * 1e3
        counter = klay.Circuit()
        counter.add_sdd_from_file(path)
        ones = torch.ones(n, dtype=torch.float64)
        count = counter.to_torch_module("real", compile=False)(ones, ones)
        print("%s: KLay's value at weights 1 = %r" % (name, float(count.reshape(-1)[0])))
        if args.zbddc:
            z, count_error, grad_error = compare_with_zbddc(args.zbddc, path, n, generator)
            print("%s: random weights: KLay's count %r, zbddc's within %.1e relative; KLay's "
                  "gradient within %.1e of zbddc's (relative to its largest entry)" % (name, z, count_error, grad_error))
        ours = None
        if args.zbddc_python:
            start = time.perf_counter()
            ours = zbddc_circuit(path, args)
            load_ms = (time.perf_counter() - start) * 1e3
            value_error, grad_error = zbddc_against_klay(ours, path, n, args, generator)
            print("%s: zbddc.Circuit (%s, load %.2f ms) within %.1e of KLay's values, %.1e of its "
                  "gradient along w(not x) = 1 - w(x)" % (name, ours.device, load_ms, value_error,
                                                          grad_error))
        for b in [int(x) for x in args.batches.split(",")]:
            pos, neg = weights(n, b, args.semiring, args.device, generator)
            if ours is not None:
                rows.append(time_zbddc_python(ours, name, b, pos, neg, args))

            def forward():
                with torch.no_grad():
                    module(pos, neg)

            def forward_backward():
                pos.grad = neg.grad = None
                module(pos, neg).sum().backward()

            first_f, f = first_and_best_ms(args.reps, forward, args.device)
            first_fb, fb = first_and_best_ms(args.reps, forward_backward, args.device)
            print("%-12s %6d %13.2f %11.4f %11.4f %13.2f %13.2f" % (
                name, b, layerise_ms, f, fb, first_f, first_fb))
            rows.append({"circuit": name, "batch": b, "layerise_ms": layerise_ms, "forward_ms": f,
                         "forward_backward_ms": fb, "first_forward_ms": first_f,
                         "first_forward_backward_ms": first_fb, "device": args.device,
                         "semiring": args.semiring, "count_at_ones": float(count.reshape(-1)[0])})
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)


if __name__ == "__main__":
    main()
