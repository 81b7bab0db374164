#!/usr/bin/env python3
"""bench/nn_torch.py - example 13's network in PyTorch, from the same start.

The tutorials' run (nn.Linear(784, 128), ReLU, nn.Linear(128, 10),
CrossEntropyLoss, Adam with its defaults, 5 full-batch steps on 60000 x 784
inputs with random labels), twice on one GPU:
  1. the C program (examples/13_dense_network.cu, mode `export FILE`) draws
     the initial weights (nn.Linear's uniform +-1/sqrt(fan_in), from cuRAND),
     the inputs N(0, 1) and the labels, trains, and writes all of it, its
     losses and its median time per training step to FILE;
  2. this script reads FILE, loads the same weights into a torch model and
     trains it on the same inputs and labels.
Checks: the losses agree per step within 1e-4 relative (fp32 both; TF32 off in
torch, gpuh_gemm has none). Measured: PyTorch eager's time per training step
(zero_grad, forward, loss, backward, Adam step) with CUDA events after a
warm-up, the median of 20, against the C program's (measured the same way
inside it); the ratio torch_ms / gpuh_ms has the target >= 1.0. Where
PyTorch's time goes: its CUDA kernels over 5 steps (torch.profiler), beside
the C program's stage table printed above.

Usage: python3 bench/nn_torch.py [--exe build/13_dense_network] [--file /tmp/nn13.bin]
Exit code 1 if the losses differ (the speed is reported, never asserted).
"""
import argparse
import os
import statistics
import subprocess
import sys

import numpy as np


def read_export(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:8] != b"GPUHNN13":
        raise SystemExit(f"nn_torch: {path} is not an export of example 13")
    rows, inp, hid, cls, steps = np.frombuffer(raw, np.uint32, 5, 8).tolist()
    at = 28
    out = {}
    for name, shape in (("W1", (hid, inp)), ("b1", (hid,)), ("W2", (cls, hid)), ("b2", (cls,)), ("X", (rows, inp))):
        n = int(np.prod(shape))
        out[name] = np.frombuffer(raw, np.float32, n, at).reshape(shape)
        at += 4 * n
    out["y"] = np.frombuffer(raw, np.int32, rows, at)
    at += 4 * rows
    out["losses"] = np.frombuffer(raw, np.float32, steps, at).astype(np.float64)
    at += 4 * steps
    out["ms"] = float(np.frombuffer(raw, np.float32, 1, at)[0])
    out["timed"] = int(np.frombuffer(raw, np.uint32, 1, at + 4)[0])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--exe", default=None, help="the example's binary (default: build*/13_dense_network)")
    ap.add_argument("--file", default="/tmp/nn13.bin")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    exe = args.exe
    if exe is None:
        for d in (os.environ.get("GPUH_BUILD_DIR", ""), "build-gpu", "build"):
            if d and os.path.exists(os.path.join(d, "13_dense_network")):
                exe = os.path.join(d, "13_dense_network")
                break
    if exe is None:
        raise SystemExit("nn_torch: no 13_dense_network binary (build it, or pass --exe)")

    print(f"==== gpuh: {exe} export {args.file}", flush=True)
    run = subprocess.run([exe, "export", args.file], capture_output=True, text=True)
    print(run.stdout, end="")
    if run.returncode != 0:
        print(run.stderr, end="")
        raise SystemExit(f"nn_torch: {exe} failed ({run.returncode})")
    d = read_export(args.file)

    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    dev = torch.device("cuda")
    hid, inp = d["W1"].shape
    cls = d["W2"].shape[0]
    model = torch.nn.Sequential(torch.nn.Linear(inp, hid), torch.nn.ReLU(), torch.nn.Linear(hid, cls)).to(dev)
    with torch.no_grad():
        model[0].weight.copy_(torch.from_numpy(d["W1"].copy()))
        model[0].bias.copy_(torch.from_numpy(d["b1"].copy()))
        model[2].weight.copy_(torch.from_numpy(d["W2"].copy()))
        model[2].bias.copy_(torch.from_numpy(d["b2"].copy()))
    X = torch.from_numpy(d["X"].copy()).to(dev)
    y = torch.from_numpy(d["y"].astype(np.int64)).to(dev)
    lossf = torch.nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters())  # lr 1e-3, betas (0.9, 0.999), eps 1e-8

    def step():
        opt.zero_grad(set_to_none=True)
        loss = lossf(model(X), y)
        loss.backward()
        opt.step()
        return loss

    losses = [float(step().item()) for _ in range(len(d["losses"]))]
    print(f"\n==== losses per step: gpuh (C) against PyTorch {torch.__version__} eager, fp32, TF32 off, "
          f"{X.shape[0]} x {inp} inputs")
    print(f"{'step':>4}  {'gpuh':>12}  {'torch':>12}  {'rel. diff':>10}")
    worst = 0.0
    for i, (c, t) in enumerate(zip(d["losses"], losses)):
        rel = abs(c - t) / abs(t)
        worst = max(worst, rel)
        print(f"{i + 1:>4}  {c:12.7f}  {t:12.7f}  {rel:10.2e}")
    ok = worst <= 1e-4 and np.all(np.isfinite(d["losses"]))
    print(f"worst relative difference {worst:.2e} (limit 1e-4): {'ok' if ok else 'FAILED'}")

    # Time per step, as the C program measures its own: CUDA events around each step.
    for _ in range(3):
        step()
    torch.cuda.synchronize()
    times = []
    for _ in range(args.reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        step()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    torch_ms = statistics.median(times)

    print("\n==== where PyTorch's step goes (CUDA kernels over 5 steps, torch.profiler)")
    try:
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(5):
                step()
            torch.cuda.synchronize()
        rows = {}
        for ev in prof.key_averages():
            t = getattr(ev, "device_time_total", None)
            if t is None:
                t = getattr(ev, "cuda_time_total", 0)
            if t > 0 and ev.count > 0:
                rows[ev.key] = (t / 5 / 1000.0, ev.count / 5)
        for k, (ms, n) in sorted(rows.items(), key=lambda kv: -kv[1][0])[:14]:
            print(f"  {ms:8.3f} ms  x{n:<4g} {k[:90]}")
    except Exception as e:  # the profiler needs CUPTI; the timing above does not
        print(f"  (torch.profiler unavailable: {e})")

    ratio = torch_ms / d["ms"]
    print("\n==== targets against torch: training step of 784-128-10 on "
          f"{X.shape[0]} rows (ms per step, median of {args.reps} / {d['timed']})")
    print(f"  gpuh (C, example 13)   {d['ms']:8.3f} ms")
    print(f"  PyTorch eager          {torch_ms:8.3f} ms")
    print(f"  ratio torch / gpuh     {ratio:8.2f}x   target >= 1.0x: {'met' if ratio >= 1.0 else 'NOT met'}")
    print(f"Result = {'PASS' if ok else 'FAIL'} (losses)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
