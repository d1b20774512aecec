#!/usr/bin/env python3
"""Draws the compile-time study (bench_cpu_compile's JSON) as a log-log SVG: build time against
ZBDD size for each compiler; runs that hit the time limit are drawn as open markers at the
limit; benchmark networks are named along the size axis. Plain SVG, no plotting library needed.
    compile_study_plot.py study.json out.svg"""
import json, math, sys

SERIES = [("jit_O0_s", "zbddc JIT -O0", "#1f77b4"), ("so_O0_s", "zbddc .so -O0", "#17becf"),
          ("jit_O2_s", "zbddc JIT -O2", "#9467bd"), ("gcc_-O0_s", "gcc -O0", "#d62728"),
          ("gcc_-O1_s", "gcc -O1", "#ff7f0e"), ("clang_-O0_s", "clang -O0", "#2ca02c"),
          ("clang_-O1_s", "clang -O1", "#8c564b"), ("nvcc_s", "nvcc (kernels)", "#7f7f7f"),
          ("nvrtc_total_s", "NVRTC (kernels)", "#bcbd22")]
W, H, L, B, R, T = 760, 500, 70, 50, 190, 20

def main(src, dst):
    data = json.load(open(src))
    rows, limit = data["rows"], data["limit_s"]
    for r in rows:  # NVRTC's figure includes the kernel source's own cost, as in the table
        if r.get("nvrtc_s", -1) >= 0:
            r["nvrtc_total_s"] = r["nvrtc_s"] + r.get("cuda_source_s", 0)
    xs = [r["nodes"] for r in rows]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    times = [r[k] for r in rows for k, _, _ in SERIES if r.get(k, -1) > 0]
    y0 = min(-2, math.floor(math.log10(min(times)))) if times else -2
    y1 = math.ceil(math.log10(limit)) + 0.3
    px = lambda n: L + (math.log10(n) - x0) / max(x1 - x0, 1e-9) * (W - L - R)
    py = lambda s: H - B - (math.log10(max(s, 10 ** y0)) - y0) / (y1 - y0) * (H - B - T)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>']
    for e in range(y0, int(y1) + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{L}" y1="{y:.1f}" x2="{W-R}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{L-8}" y="{y+4:.1f}" text-anchor="end">{10**e:g} s</text>')
    for e in range(math.ceil(x0), math.floor(x1) + 1):
        out.append(f'<text x="{px(10 ** e):.1f}" y="{H-B+18}" text-anchor="middle">10^{e}</text>')
    for r in rows:  # benchmark networks: a dotted line and the name
        if not r.get("circuit", "synthetic").startswith("synthetic"):
            x = px(r["nodes"])
            out.append(f'<line x1="{x:.1f}" y1="{T}" x2="{x:.1f}" y2="{H-B}" stroke="#eee" stroke-dasharray="2 3"/>')
            out.append(f'<text transform="translate({x+3:.1f},{H-B-6}) rotate(-90)" font-size="10" fill="#555">{r["circuit"]}</text>')
    out.append(f'<text x="{(L+W-R)/2}" y="{H-10}" text-anchor="middle">ZBDD nodes (named: benchmark networks; others random ZBDD-shaped)</text>')
    ly = py(limit)
    out.append(f'<line x1="{L}" y1="{ly:.1f}" x2="{W-R}" y2="{ly:.1f}" stroke="#999" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{W-R-4}" y="{ly-4:.1f}" text-anchor="end" fill="#666">time limit {limit:g} s</text>')
    for i, (key, label, colour) in enumerate(SERIES):
        pts = []
        for r in rows:
            timed_out = r.get(key.replace("_s", "_timed_out"), False)
            if key in r and (r[key] >= 0 or timed_out):
                pts.append((px(r["nodes"]), py(limit if timed_out else r[key]), timed_out))
        if not pts:
            continue
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' %
                   (colour, " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in pts)))
        for x, y, t in pts:
            out.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{"white" if t else colour}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<line x1="{W-R+15}" y1="{T+20+i*20}" x2="{W-R+35}" y2="{T+20+i*20}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{W-R+40}" y="{T+24+i*20}">{label}</text>')
    out.append(f'<text x="{W-R+15}" y="{T+24+len(SERIES)*20}" fill="#666">open: hit the limit</text>')
    out.append("</svg>")
    open(dst, "w").write("\n".join(out) + "\n")

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
