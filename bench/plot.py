#!/usr/bin/env python3
"""bench/plot.py - draws the benchmark's CSV (bench.cu + torch_cupy.py rows).

    bandwidth.png  GB/s against n (log2 axis), float32: one panel per operation
                   with one line per source (gpuh, cub, torch, cupy), the copy
                   ceiling (cudaMemcpyAsync device to device, from bench.cu)
                   as a black dashed line in every panel, and a last panel with
                   all of gpuh's operations together.
    matmul.png     TFLOP/s against n for M = N = K = n, float32 and float64:
                   gpuh_gemm, cuBLAS, torch, cupy.
    gemm_sweep.png gpuh_gemm / cuBLAS against M·N·K (log axis) for the random
                   shapes of bench.cu's sweep: one marker per family and type,
                   a line at 1 (cuBLAS's rate).
Powers of two are joined by lines; the awkward sizes (10^8+7, 2^31+17, 4097)
are drawn as open markers of the same colour, unjoined, so that a dip there
shows as a point off the line. Rows whose check failed (rate_unit FAIL) are
not drawn.

Usage: python3 bench/plot.py [csv] [outdir]
       (defaults: bench/results/bench.csv, and the CSV's own folder)
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only: the device machine has no display
import matplotlib.pyplot as plt  # noqa: E402

# One colour and marker per source, the same in both figures.
STYLE = {
    "gpuh": ("tab:blue", "o"),
    "cub": ("tab:green", "s"),
    "cublas": ("tab:green", "s"),
    "torch": ("tab:orange", "^"),
    "cupy": ("tab:red", "v"),
    "cuda": ("black", None),
}
MEM_OPS = ["copy", "add", "sum", "min", "max", "dot", "norm2"]


def load(path):
    """The timed rows: n as int, rate, flops and ratio as float (ratio None if empty)."""
    rows = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["rate_unit"] in ("GB/s", "TFLOP/s") and r["rate"]:
                r["n"] = int(r["n"])
                r["rate"] = float(r["rate"])
                r["flops"] = float(r["bytes_or_flops"] or 0)
                r["ratio"] = float(r["ratio"]) if r["ratio"] else None
                rows.append(r)
    return rows


def series(rows, source, op, dtype):
    """(n, rate) pairs of one source/op/dtype, sorted by n."""
    return sorted((r["n"], r["rate"]) for r in rows if r["source"] == source and r["op"] == op
                  and r["dtype"] == dtype)


def is_pow2(n):
    return (n & (n - 1)) == 0


def draw(ax, points, label, color, marker, **line_kw):
    """Powers of two as a line with markers; other sizes as open markers."""
    line = [(n, v) for n, v in points if is_pow2(n)]
    odd = [(n, v) for n, v in points if not is_pow2(n)]
    if line:
        ax.plot([n for n, _ in line], [v for _, v in line], color=color, marker=marker, markersize=4,
                label=label, **line_kw)
    if odd:
        ax.plot([n for n, _ in odd], [v for _, v in odd], linestyle="none", color=color,
                marker=marker or "D", markersize=7, markerfacecolor="none",
                label=None if line else label)


def plot_bandwidth(rows, out):
    ceiling = series(rows, "cuda", "copy", "float32")
    fig, axes = plt.subplots(2, 4, figsize=(20, 9), sharex=True)
    axes = axes.ravel()
    for ax, op in zip(axes, MEM_OPS):
        draw(ax, ceiling, "copy ceiling (cudaMemcpy D2D)", "black", None, linestyle="--", linewidth=1.5)
        for source in ("gpuh", "cub", "torch", "cupy"):
            pts = series(rows, source, op, "float32")
            if pts:
                color, marker = STYLE[source]
                draw(ax, pts, "%s %s" % (source, op), color, marker)
        if op == "add":  # the same add with pointers no offset aligns (bench.cu's add~)
            draw(ax, series(rows, "gpuh", "add~", "float32"), "gpuh add, unaligned", "tab:purple", "x")
        ax.set_title(op)
    # The last panel: gpuh's operations side by side against the ceiling.
    ax = axes[len(MEM_OPS)]
    draw(ax, ceiling, "copy ceiling", "black", None, linestyle="--", linewidth=1.5)
    cmap = plt.get_cmap("tab10")
    for i, op in enumerate(MEM_OPS[1:]):
        pts = series(rows, "gpuh", op, "float32")
        if pts:
            draw(ax, pts, "gpuh " + op, cmap(i), "o")
    ax.set_title("gpuh, all operations")
    for i, ax in enumerate(axes):
        ax.set_xscale("log", base=2)
        ax.grid(True, which="major", alpha=0.3)
        ax.set_ylim(bottom=0)
        ax.legend(fontsize=7, loc="upper left")
        if i % 4 == 0:
            ax.set_ylabel("GB/s (bytes read + written / time)")
        if i >= 4:
            ax.set_xlabel("n (float32 elements)")
    fig.suptitle("Memory-bound operations, float32: GB/s against n (open markers: 10^8+7 and 2^31+17)")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_matmul(rows, out):
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    for ax, dtype in zip(axes, ("float32", "float64")):
        for source, label in (("cublas", "cuBLAS"), ("torch", "torch @"), ("cupy", "cupy.matmul"),
                              ("gpuh", "gpuh_gemm")):
            pts = series(rows, source, "matmul", dtype)
            if pts:
                color, marker = STYLE[source]
                draw(ax, pts, label, color, marker)
        ax.set_xscale("log", base=2)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.set_xlabel("n (M = N = K)")
        ax.set_ylabel("TFLOP/s (2n^3 / time)")
        ax.set_title("matmul, %s (open markers: n = 4097)" % dtype)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


SWEEP_STYLE = {"big": "o", "medium": "s", "skinny": "^"}


def plot_sweep(rows, out):
    fig, ax = plt.subplots(figsize=(9, 5))
    for dtype, color in (("float32", "tab:blue"), ("float64", "tab:purple")):
        for family, marker in SWEEP_STYLE.items():
            pts = [(r["flops"] / 2, r["ratio"]) for r in rows
                   if r["source"] == "gpuh" and r["dtype"] == dtype and r["op"].startswith("sweep-%s " % family)
                   and r["ratio"] is not None]
            if pts:
                ax.scatter(*zip(*pts), color=color, marker=marker, label="%s %s" % (dtype, family))
    ax.axhline(1.0, color="tab:green", linestyle="--", label="cuBLAS")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.set_xlabel("M·N·K")
    ax.set_ylabel("gpuh_gemm rate / cuBLAS rate (same run)")
    ax.set_title("gpuh_gemm at random shapes (bench.cu's sweep)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "bench/results/bench.csv"
    outdir = sys.argv[2] if len(sys.argv) > 2 else (os.path.dirname(path) or ".")
    rows = load(path)
    if not rows:
        print("plot: no timed rows in %s" % path)
        return 1
    os.makedirs(outdir, exist_ok=True)
    for name, fn in (("bandwidth.png", plot_bandwidth), ("matmul.png", plot_matmul),
                     ("gemm_sweep.png", plot_sweep)):
        fn(rows, os.path.join(outdir, name))
        print("plot: wrote %s" % os.path.join(outdir, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
