#!/usr/bin/env python3
"""runs_peers.py - PyTorch peers of the runs operations (issue 13 item 2): unique_consecutive
(unique keys; with return_counts=True, a run-length encoding) over i32 keys in runs of random
lengths uniform in [1, 2L-1] (mean L, as the Rust bench and runs_peers.cu; made here with
torch's generator, so the same distribution but not the same keys).

Usage: python3 runs_peers.py --n N --reps R
Output lines as peers.py: PEER torch <op> <median_ms> <gbps>, INFO, SKIP. 3 untimed warm-ups, R
runs each bracketed by its own event pair, median. GB/s count the key bytes read.
"""

import argparse
import statistics


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1 << 28)
    ap.add_argument("--reps", type=int, default=20)
    a = ap.parse_args()
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
    g.manual_seed(13)

    def time_ms(fn):
        for _ in range(3):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for s, e in zip(starts, ends):
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in zip(starts, ends))

    for mean in (4, 64):
        runs = n // mean + n // (4 * mean) + 16
        lengths = torch.randint(1, 2 * mean, (runs,), device="cuda", generator=g)
        steps = torch.randint(1, 1000, (runs,), device="cuda", generator=g, dtype=torch.int32)
        keys = torch.repeat_interleave(torch.cumsum(steps, 0, dtype=torch.int32), lengths)[:n]
        if keys.numel() < n:
            print(f"SKIP torch unique_i32_runs{mean} too few runs generated", flush=True)
            continue
        keys = keys.contiguous()
        del lengths, steps
        bytes_read = 4.0 * n
        for op, fn in (
            (f"unique_i32_runs{mean}", lambda: torch.unique_consecutive(keys)),
            (f"rle_i32_runs{mean}", lambda: torch.unique_consecutive(keys, return_counts=True)),
        ):
            try:
                ms = time_ms(fn)
            except Exception as e:  # noqa: BLE001
                print(f"SKIP torch {op} {e}", flush=True)
                continue
            print(f"PEER torch {op} {ms:.6f} {bytes_read / (ms * 1e-3) / 1e9:.3f}", flush=True)
        del keys
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
