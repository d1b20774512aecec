#!/usr/bin/env python3
"""The GPU peer of bench/gpu_eval.cpp: a straightforward level-by-level PyTorch evaluator of the
same circuits (gather operands, compute, scatter results, one level after another), float64
sum-product, every value in its own slot. Reads what bench/gpu_eval.cpp exported into
$ZBDDC_PEER_DIR, checks its outputs against the reference evaluator's, and times the forward pass
with CUDA events (median of 5 after a warm-up).

    python3 torch_levels.py PEER_DIR OUT.md
"""
import json
import os
import sys

import numpy as np
import torch


def load(d, name, dtype):
    return torch.from_numpy(np.fromfile(os.path.join(d, name + ".bin"), dtype=dtype).astype(
        np.int64 if dtype == np.uint32 else dtype))


def main():
    root, out_md = sys.argv[1], sys.argv[2]
    dev = torch.device("cuda")
    rows = []
    for name in sorted(os.listdir(root)):
        d = os.path.join(root, name)
        meta = json.load(open(os.path.join(d, "meta.json")))
        dst, a, b, c = (load(d, n, np.uint32).to(dev) for n in ("opDst", "opA", "opB", "opC"))
        gs = load(d, "groupStart", np.uint32).tolist()
        consts = load(d, "constants", np.float64).to(dev)
        n_in, n_c, slots = meta["numInputs"], meta["numConstants"], meta["numSlots"]
        x = load(d, "x", np.float64).reshape(meta["count"], n_in)
        ref = load(d, "ref", np.float64)
        # Per level and op kind (plus, times, muladd): index slices, made once.
        groups = []
        for lv in range(meta["numLevels"]):
            for kind in range(3):
                k0, k1 = gs[3 * lv + kind], gs[3 * lv + kind + 1]
                if k1 > k0:
                    groups.append((kind, dst[k0:k1], a[k0:k1], b[k0:k1], c[k0:k1]))

        def forward(vals):
            for kind, dd, aa, bb, cc in groups:
                if kind == 0:
                    vals[dd] = vals[aa] + vals[bb]
                elif kind == 1:
                    vals[dd] = vals[aa] * vals[bb]
                else:
                    vals[dd] = torch.addcmul(vals[cc], vals[aa], vals[bb])

        free = torch.cuda.mem_get_info()[0]
        for batch in (1, 64, 1024, 16384):
            if slots * batch * 8 * 2 > free:
                rows.append((name, batch, "skipped: does not fit", "", ""))
                continue
            vals = torch.full((slots, batch), float("nan"), dtype=torch.float64, device=dev)
            lanes = torch.arange(batch) % meta["count"]
            vals[:n_in] = x[lanes].T.to(dev)
            vals[n_in:n_in + n_c] = consts[:, None]
            forward(vals)
            got = vals[meta["outSlot"]].cpu()
            want = ref[lanes]
            err = ((got - want).abs() / want.abs()).max().item()
            ok = err < 1e-9  # NaN compares false
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            times = []
            for _ in range(5):
                start.record()
                forward(vals)
                stop.record()
                stop.synchronize()
                times.append(start.elapsed_time(stop))
            ms = sorted(times)[len(times) // 2]
            rows.append((name, batch, f"{ms * 1e3:.1f}", f"{batch / (ms * 1e-3):.4g}",
                         "ok" if ok else f"WRONG (max rel err {err})"))
            del vals
            torch.cuda.empty_cache()
    with open(out_md, "w") as f:
        f.write(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name()}\n\n")
        f.write("| circuit | B | forward µs | evaluations/s | check vs reference |\n")
        f.write("| --- | ---: | ---: | ---: | --- |\n")
        for r in rows:
            f.write("| " + " | ".join(str(v) for v in r) + " |\n")
    print(open(out_md).read())


if __name__ == "__main__":
    main()
