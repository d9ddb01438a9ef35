#!/usr/bin/env python3
"""values_peers.py - PyTorch peers of the several-array and half-precision reductions (issue 12).

Also the top-k peers: torch.topk of the N f32, k = 100 and 1,000 (sorted, largest), and of each
row (dim=1) of the first rows x cols of them (topk_rows_<rows>x<cols>_k<k>: ROW_TOPK), and
along the middle axis (dim=1) of the first b x m x d of them (topk_axis_<b>x<m>x<d>_dim1_k<k>:
AXIS_TOPK).

Usage: python3 values_peers.py --n N --reps R [--only OP,OP,...]
Output lines as peers.py: PEER torch <op> <median_ms> <gbps>, INFO, SKIP. Fresh random data
(uniform in [-1, 1)), a warm-up of at least 30 runs and 0.1 s, R runs each bracketed by its own event pair, median.
GB/s count the bytes of every array read (two arrays for dot, sq_dist and allclose); the
histograms: bincount of bytes uniform over 0..256 (256 bins) and histc of the floats in 256
bins over [-1, 1]. --only
runs the named ops only (the top-k bench row asks for topk_f32_100 and topk_f32_1000).
"""

import argparse
import statistics
import time
import sys

# The per-row top-k shapes (rows, cols, k): batched sampling over vocabulary-sized rows.
ROW_TOPK = ((4096, 32768, 50), (64, 128256, 50), (256, 32768, 1000))
AXIS_TOPK = (((64, 4096, 256), 50),)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--only", default="", help="comma-separated ops to run (default: all)")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        print(f"SKIP torch * import failed: {e}", flush=True)
        return
    if not torch.cuda.is_available():
        print("SKIP torch * no CUDA", flush=True)
        return
    print(f"INFO torch version={torch.__version__}", flush=True)
    n, reps = a.n, a.reps
    g = torch.Generator(device="cuda")
    g.manual_seed(12)
    x = torch.empty(n, dtype=torch.float32, device="cuda").uniform_(-1, 1, generator=g)
    y = torch.empty(n, dtype=torch.float32, device="cuda").uniform_(-1, 1, generator=g)
    xb, xh = x.to(torch.bfloat16), x.to(torch.float16)
    x2 = x.clone()

    def time_ms(fn):
        # Warm-up: at least 30 runs and 0.1 s (see cub_peers.cu).
        t0, i = time.perf_counter(), 0
        while True:
            fn()
            i += 1
            if i >= 30 and i % 8 == 0:
                torch.cuda.synchronize()
                if time.perf_counter() - t0 >= 0.1:
                    break
        torch.cuda.synchronize()
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(reps)]
        for s, e in ev:
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        return statistics.median([s.elapsed_time(e) for s, e in ev])

    def peer(op, fn, nbytes):
        if only and op not in only:
            return
        try:
            ms = time_ms(fn)
        except Exception as e:  # noqa: BLE001
            print(f"SKIP torch {op} {type(e).__name__}: {e}", flush=True)
            return
        print(f"PEER torch {op} {ms:.6f} {nbytes / (ms * 1e-3) / 1e9:.3f}", flush=True)

    peer("dot_f32", lambda: torch.dot(x, y), 8 * n)
    peer("sq_dist_f32", lambda: ((x - y) ** 2).sum(), 8 * n)
    peer("allclose_f32", lambda: torch.allclose(x, x2), 8 * n)
    peer("sum_bf16", lambda: xb.sum(dtype=torch.float32), 2 * n)
    peer("sum_f16", lambda: xh.sum(dtype=torch.float32), 2 * n)
    peer("welford_f32", lambda: torch.var_mean(x, correction=0), 4 * n)
    for k in (100, 1000):
        peer(f"topk_f32_{k}", lambda k=k: torch.topk(x, k, largest=True, sorted=True), 4 * n)
    for rows, cols, k in ROW_TOPK:
        v = x[: rows * cols].view(rows, cols)
        peer(f"topk_rows_{rows}x{cols}_k{k}",
             lambda v=v, k=k: torch.topk(v, k, dim=1, largest=True, sorted=True), 4 * rows * cols)
    for (b, m, d), k in AXIS_TOPK:
        v = x[: b * m * d].view(b, m, d)
        peer(f"topk_axis_{b}x{m}x{d}_dim1_k{k}",
             lambda v=v, k=k: torch.topk(v, k, dim=1, largest=True, sorted=True), 4 * b * m * d)
    xu8 = ((x + 1) * 128).to(torch.uint8)
    peer("hist_u8_256", lambda: torch.bincount(xu8, minlength=256), n)
    peer("hist_f32_256", lambda: torch.histc(x, bins=256, min=-1, max=1), 4 * n)


if __name__ == "__main__":
    sys.exit(main())
