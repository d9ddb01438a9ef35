#!/usr/bin/env python3
"""peers.py - PyTorch / CuPy peer benchmarks: same ops and PEER/CHECK/SKIP output lines as cub_peers.cu.

Usage:
    python3 peers.py --n N --reps R --ops op1,op2,... --libs torch,cupy [--seed S] [--no-check]

Output on stdout (flushed line by line):
    INFO <lib> ...                        informational (versions, device, notes on semantics)
    PEER <lib> <op> <median_ms> <gbps>    gbps = counted bytes / median seconds / 1e9
    CHECK <lib> <op> ok|FAIL <detail>     rough check against a float64 / int64 device reference
    SKIP <lib> <op> <reason>              op unknown, not offered by the library, or it raised
    SKIP <lib> * import failed: ...       the library could not be imported / initialised

Each op: fresh random data on the device (floats uniform in [-1,1), ints uniform in [-1000,1000],
sort keys: floats in [-1,1) or integers uniform over all their bits),
a warm-up of at least 30 runs and 0.1 s, then R timed runs, each bracketed by its own CUDA event pair; the median is
reported. What is timed is the expression a user of the library would write (see README.md).
"""

import argparse
import math
import os
import statistics
import sys
import zlib

WARMUP = 30          # warm-up: at least WARMUP runs and WARMUP_S seconds (see cub_peers.cu)
WARMUP_S = 0.1


def warm_up(fn, sync):
    """Runs fn at least WARMUP times and for at least WARMUP_S seconds, then waits."""
    import time
    t0 = time.perf_counter()
    i = 0
    while True:
        fn()
        i += 1
        if i >= WARMUP and i % 8 == 0:
            sync()
            if time.perf_counter() - t0 >= WARMUP_S:
                break
    sync()
ROW_COLS = (32, 256, 4096, 65536)
SIMPLE_OPS = (
    "copy", "sum_f32", "sum_i32", "max_f32", "argmax_f32", "sumsq_f32", "count_gt0_f32",
    "any_gt0_first", "any_gt0_none", "filter_gt0_f32", "scan_i32", "transpose_f32", "scan_f32",
)
SCAN_ROW_COLS = (32, 4096)
SORT_ROW_COLS = (32, 256, 4096)  # sort_rows_f32_<C>: each row of C keys sorted (with --ops sort)
# Sorts, with the bytes counted per element (each key, and value or index, read once and written
# once). `--ops sort` runs them; not in `all` (see cub_peers.cu's kSortOps).
SORT_BYTES = {"sort_u32": 8, "sort_f32": 8, "sort_u64": 16, "argsort_f32": 16, "pairs_u32": 16,
              "sort_desc_f32": 8, "group_sum_i32": 8,
              # N/16 queries searched in N sorted keys: each query read, each answer written.
              "lower_bound_f32": 0.5, "lower_bound_sorted_f32": 0.5,
              # The positions of x > 0.8 (10% kept): each element read, each position written.
              "argwhere_f32": 4.4,
              # 256 bins of int32 keys, each bin's sum of f32 weights: each key and weight read.
              "hist_weighted_f32": 8,
              # Over the generated indices 0..N (warp-dsl and CUB read nothing; PyTorch
              # materialises arange and its temporaries).
              "range_pi_u32": 0, "range_gauss_f64": 0,
              # N random u32 indices into N f32: each index and the element it names read.
              "gather_sum_f32": 8,
              # Every 4th of N f32 summed (every sector of x fetched), and N f32 values
              # scattered through N random u32 indices (each index and value read, each
              # value written).
              "strided_sum_f32": 4, "scatter_f32": 12,
              # x[idx] written out: each index and element read, each element written.
              "gather_f32": 12,
              # Sums along each axis of a (256, 4096, 256) f32 array: each element read, each
              # result written (set per op in the case).
              "axis_sum_f32_0": 4, "axis_sum_f32_1": 4, "axis_sum_f32_2": 4,
              # Running sums along axes 0 and 1 of the same array: each element read and
              # written.
              "axis_scan_f32_0": 8, "axis_scan_f32_1": 8}
SAMPLES = 1000  # sorted pairs checked against their input, at random positions
ALL_OPS = (
    list(SIMPLE_OPS[:11])
    + [f"rowsum_f32_{c}" for c in ROW_COLS]
    + [f"colsum_f32_{c}" for c in ROW_COLS]
    + ["transpose_f32", "scan_f32"]
    + [f"scan_rows_f32_{c}" for c in SCAN_ROW_COLS]
)


def emit(line):
    print(line, flush=True)


def first_line(exc):
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()


# --------------------------------------------------------------------------------------------
# Argument / op parsing and byte accounting (shared by all libraries)
# --------------------------------------------------------------------------------------------

def parse_count(text):
    t = text.strip().replace("_", "")
    if "^" in t:
        base, exp = t.split("^", 1)
        return int(base) ** int(exp)
    if "<<" in t:
        a, sh = t.split("<<", 1)
        return int(a) << int(sh)
    return int(t)


def parse_op(name):
    """Returns (kind, cols) or None. kind is a SIMPLE_OPS or SORT_BYTES name, 'rowsum_f32',
    'colsum_f32', 'scan_rows_f32' or 'sort_rows_f32'."""
    if name in SIMPLE_OPS or name in SORT_BYTES:
        return name, None
    for kind in ("rowsum_f32", "colsum_f32", "scan_rows_f32", "sort_rows_f32"):
        prefix = kind + "_"
        if name.startswith(prefix):
            rest = name[len(prefix):]
            if rest.isdigit() and int(rest) > 0:
                return kind, int(rest)
    return None


def transpose_shape(n):
    """Square-ish (rows, cols) with rows*cols == n: cols = largest divisor of n <= sqrt(n)."""
    c = max(1, math.isqrt(n))
    while n % c:
        c -= 1
    return n // c, c


def counted_bytes(kind, n, cols, kept):
    if kind in ("copy", "scan_i32", "transpose_f32", "scan_f32", "scan_rows_f32", "sort_rows_f32"):
        return 2 * n * 4
    if kind == "rowsum_f32":
        return n * 4 + (n // cols) * 4
    if kind == "colsum_f32":
        return n * 4 + cols * 4
    if kind == "filter_gt0_f32":
        return n * 4 + kept * 4
    if kind.startswith("axis_sum_f32_"):
        dims = (256, 4096, 256)
        return n * 4 + n // dims[int(kind[-1])] * 4
    if kind in SORT_BYTES:
        return n * SORT_BYTES[kind]
    return n * 4


def seed_for(base, op):
    return (base * 1000003 + zlib.crc32(op.encode())) & 0x7FFFFFFFFFFF


def close(dev, ref, tol):
    return abs(dev - ref) <= tol, f"dev={dev:.9g} ref={ref:.9g} tol={tol:.3g}"


def check_sort(xp, inp, out, descending=False, vals=None, sample=None, stable=False):
    """A sort's output, on the device (xp: the torch or cupy module): `out` in order with the
    checksum of `inp` (the sum of their 32-bit words, exact in int64). With `vals` (the values sorted
    along, which were 0..N-1): their sum is N(N-1)/2, out[i] == inp[vals[i]] at the positions
    `sample`, and, if `stable`, equal keys kept their input order."""
    n = out.shape[0]
    later, earlier = out[1:], out[:-1]
    disorder = int((later > earlier).sum() if descending else (later < earlier).sum())
    same = int(out.view(xp.int32).sum()) == int(inp.view(xp.int32).sum())
    ok = disorder == 0 and same
    detail = f"out_of_order={disorder} checksum={'match' if same else 'MISMATCH'}"
    if vals is not None:
        vsum = int(vals.sum())
        idx = xp.asarray(vals[sample], dtype=xp.int64)
        mismatched = int((out[sample] != inp[idx]).sum())
        unstable = int(((later == earlier) & (vals[1:] <= vals[:-1])).sum()) if stable else 0
        ok = ok and vsum == n * (n - 1) // 2 and mismatched == 0 and unstable == 0
        detail += (f" value_sum={'ok' if vsum == n * (n - 1) // 2 else 'WRONG'}"
                   f" sampled_mismatches={mismatched}/{sample.shape[0]}"
                   + (f" unstable={unstable}" if stable else ""))
    return ok, detail


class Case:
    """One benchmark: `fn` is the timed callable; `check(result)` -> (ok, detail);
    `kept(result)` -> number of kept elements (filter only)."""

    def __init__(self, fn, check=None, kept=None):
        self.fn = fn
        self.check = check
        self.kept = kept


# --------------------------------------------------------------------------------------------
# PyTorch
# --------------------------------------------------------------------------------------------

class TorchLib:
    name = "torch"

    def __init__(self):
        import torch  # noqa: PLC0415 (import inside: a failed import must not stop other libs)

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.t = torch
        self.dev = torch.device("cuda")
        dev_name = torch.cuda.get_device_name(0).replace(" ", "_")
        emit(f"INFO torch version={torch.__version__} cuda={torch.version.cuda} device={dev_name}")

    # -- data
    def _gen(self, seed):
        g = self.t.Generator(device=self.dev)
        g.manual_seed(seed)
        return g

    def rand_f32(self, n, seed):
        x = self.t.empty(n, dtype=self.t.float32, device=self.dev)
        return x.uniform_(-1.0, 1.0, generator=self._gen(seed))

    def neg_f32(self, n, seed):
        x = self.t.empty(n, dtype=self.t.float32, device=self.dev)
        return x.uniform_(0.0, 1.0, generator=self._gen(seed)).neg_().sub_(0.1)  # all <= -0.1

    def rand_i32(self, n, seed):
        return self.t.randint(-1000, 1001, (n,), dtype=self.t.int32, device=self.dev,
                              generator=self._gen(seed))

    def rand_bits(self, n, key_bytes, seed):
        """int32 (4) or int64 (8) keys uniform over all their bits: torch has no uint32/uint64
        sort on every version."""
        t = self.t
        x = t.randint(-2**31, 2**31, (n * key_bytes // 4,), dtype=t.int32, device=self.dev,
                      generator=self._gen(seed))
        return x if key_bytes == 4 else x.view(t.int64)

    def sample(self, n, seed):
        return self.t.randint(0, n, (SAMPLES,), device=self.dev, generator=self._gen(seed + 1))

    # -- timing
    def time_ms(self, fn, reps):
        t = self.t
        warm_up(fn, t.cuda.synchronize)
        pairs = [(t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True))
                 for _ in range(reps)]
        for start, stop in pairs:
            start.record()
            fn()
            stop.record()
        t.cuda.synchronize()
        return statistics.median([s.elapsed_time(e) for s, e in pairs])

    def release(self):
        self.t.cuda.synchronize()
        self.t.cuda.empty_cache()

    # -- ops
    def build(self, kind, n, cols, seed):
        t = self.t
        if kind == "copy":
            src = self.rand_f32(n, seed)
            dst = t.empty_like(src)
            return Case(lambda: dst.copy_(src),
                        lambda r: (bool(t.equal(dst, src)), "dst==src"))

        if kind == "sum_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = x.double().sum().item()
                tol = 1e-6 * x.double().abs().sum().item() + 1e-2
                return close(r.item(), ref, tol)
            return Case(lambda: x.sum(), chk)

        if kind == "sum_i32":
            x = self.rand_i32(n, seed)
            emit("INFO torch sum_i32 times x.sum() on int32, which accumulates in and returns int64")

            def chk(r):
                ref = int(x.long().sum().item())
                return int(r.item()) == ref, f"dev={int(r.item())} ref={ref} dtype={r.dtype}"
            return Case(lambda: x.sum(), chk)

        if kind == "max_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = x.double().max().item()
                return r.item() == ref, f"dev={r.item():.9g} ref={ref:.9g}"
            return Case(lambda: x.max(), chk)

        if kind == "argmax_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                idx = int(r.item())
                ref = x.max().item()
                ok = 0 <= idx < n and x[idx].item() == ref
                return ok, f"dev_idx={idx} ref_max={ref:.9g}"
            return Case(lambda: x.argmax(), chk)

        if kind == "sumsq_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = x.double().square().sum().item()
                return close(r.item(), ref, 1e-4 * ref + 1e-3)
            return Case(lambda: (x * x).sum(), chk)

        if kind == "count_gt0_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = n - int((x <= 0).sum().item())
                return int(r.item()) == ref, f"dev={int(r.item())} ref={ref}"
            return Case(lambda: (x > 0).sum(), chk)

        if kind in ("any_gt0_first", "any_gt0_none"):
            if kind == "any_gt0_first":
                x = self.rand_f32(n, seed)
                x[0] = 0.5  # the first element already satisfies the predicate
                expect = True
            else:
                x = self.neg_f32(n, seed)
                expect = False
            return Case(lambda: (x > 0).any(),
                        lambda r: (bool(r.item()) == expect, f"dev={bool(r.item())} expect={expect}"))

        if kind == "filter_gt0_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = n - int((x <= 0).sum().item())
                ok = r.numel() == ref and bool((r > 0).all().item())
                return ok, f"kept={r.numel()} ref_kept={ref} selectivity={r.numel() / n:.4f}"
            return Case(lambda: x[x > 0], chk, kept=lambda r: r.numel())

        if kind == "scan_i32":
            x = self.rand_i32(n, seed)
            emit("INFO torch scan_i32 times torch.cumsum(x, 0, dtype=torch.int32) "
                 "(without dtype= torch would promote the output to int64)")

            def chk(r):
                ref = t.cumsum(x.long(), 0)
                ref = ((ref + 2**31) % 2**32) - 2**31  # int32 wrap-around
                bad = int((r.long() != ref).sum().item())
                return bad == 0, f"mismatches={bad} last={int(r[-1].item())}"
            return Case(lambda: t.cumsum(x, 0, dtype=t.int32), chk)

        if kind in ("scan_f32", "scan_rows_f32"):
            x = self.rand_f32(n, seed)
            v = x.view(-1, cols if kind == "scan_rows_f32" else n)
            emit(f"INFO torch {kind} times torch.cumsum(v, dim=1) of a {v.shape[0]}x{v.shape[1]} view")

            def chk(r):
                # A strided sample of rows, in f64 (the whole input would not fit twice).
                rows = v[:: max(1, v.shape[0] // 64)].double()
                got = r.view(-1, v.shape[1])[:: max(1, v.shape[0] // 64)].double()
                tol = 1e-5 * t.cumsum(rows.abs(), dim=1) + 1e-3
                bad = int(((got - t.cumsum(rows, dim=1)).abs() > tol).sum().item())
                return bad == 0, f"sampled_rows={rows.shape[0]} bad={bad}"
            return Case(lambda: t.cumsum(v, dim=1), chk)

        if kind in ("rowsum_f32", "colsum_f32"):
            x = self.rand_f32(n, seed)
            v = x.view(-1, cols)
            dim = 1 if kind == "rowsum_f32" else 0

            def chk(r):
                vd = v.double()
                ref = vd.sum(dim=dim)
                tol = 1e-5 * vd.abs().sum(dim=dim) + 1e-5
                bad = int(((r.double() - ref).abs() > tol).sum().item())
                return bad == 0, f"outputs={r.numel()} bad={bad}"
            return Case(lambda: v.sum(dim=dim), chk)

        if kind == "transpose_f32":
            rows, tcols = transpose_shape(n)
            x = self.rand_f32(n, seed)
            v = x.view(rows, tcols)
            emit(f"INFO torch transpose_f32 shape={rows}x{tcols}")
            return Case(lambda: v.t().contiguous(),
                        lambda r: (bool(t.equal(r, v.t())), f"shape={rows}x{tcols}"))

        if kind in ("sort_u32", "sort_u64", "sort_f32", "sort_desc_f32"):
            desc = kind == "sort_desc_f32"
            if kind.endswith("f32"):
                x = self.rand_f32(n, seed)
            else:
                x = self.rand_bits(n, 4 if kind == "sort_u32" else 8, seed)
                emit(f"INFO torch {kind} sorts {x.dtype} keys over the full range (a stand-in for "
                     "the unsigned type, which torch cannot sort on every version)")
            emit(f"INFO torch {kind} times torch.sort(x{', descending=True' if desc else ''}), "
                 "which writes int64 indices besides the keys (torch has no keys-only sort)")
            return Case(lambda: t.sort(x, descending=desc),
                        lambda r: check_sort(t, x, r.values, descending=desc))

        if kind == "group_sum_i32":
            k = self.rand_bits(n, 4, seed) & 0xFFFFF
            v = (self.rand_bits(n, 4, seed + 1) & 0xFF) - 128
            emit("INFO torch group_sum_i32 times torch.unique(k, return_inverse=True) then "
                 "zeros(groups).index_add_(0, inverse, v): keys in [0, 2^20), int32 values")

            def fn():
                u, inv = t.unique(k, sorted=True, return_inverse=True)
                return u, t.zeros(u.numel(), dtype=t.int32, device=self.dev).index_add_(0, inv, v)

            def chk(r):
                u, s = r
                want = t.zeros(1 << 20, dtype=t.int64, device=self.dev).index_add_(0, k.long(), v.long())
                seen = t.zeros(1 << 20, dtype=t.bool, device=self.dev)
                seen[k.long()] = True
                keys_ok = bool(t.equal(u.long(), seen.nonzero().flatten()))
                sums_ok = keys_ok and bool(t.equal(s.long(), want[u.long()]))
                return keys_ok and sums_ok, f"groups={u.numel()} keys={'ok' if keys_ok else 'WRONG'} sums={'ok' if sums_ok else 'WRONG'}"
            return Case(fn, chk)

        if kind == "hist_weighted_f32":
            k = t.randint(0, 256, (n,), dtype=t.int32, device=self.dev, generator=self._gen(seed))
            w = self.rand_f32(n, seed + 1)
            emit("INFO torch hist_weighted_f32 times torch.bincount(k, weights=w, minlength=256) "
                 "(int32 keys in [0, 256), f32 weights in [-1, 1))")

            def chk(r):
                want = t.zeros(256, dtype=t.float64, device=self.dev).index_add_(0, k.long(), w.double())
                err = float((r.double() - want).abs().max().item())
                return r.numel() == 256 and err < 1e-1, f"bins={r.numel()} max_err={err:.3g}"
            return Case(lambda: t.bincount(k, weights=w, minlength=256), chk)

        if kind == "range_pi_u32":
            emit("INFO torch range_pi_u32 times the hits of warp-dsl's pi_hit over arange(n) "
                 "(int64 arithmetic with masked shifts for the u64 hash)")

            def signed(c):
                return c - (1 << 64) if c >= 1 << 63 else c

            def shr(h, s):  # a logical shift of the int64 bits
                return (h >> s) & ((1 << (64 - s)) - 1)

            def fn():
                h = t.arange(n, dtype=t.int64, device=self.dev) * signed(0x9E3779B97F4A7C15)
                h = h ^ shr(h, 31)
                h = h * signed(0xBF58476D1CE4E5B9)
                h = h ^ shr(h, 29)
                s = 1.0 / 16777216.0
                x = shr(h, 40).to(t.float32) * s
                y = (shr(h, 16) & 0xFFFFFF).to(t.float32) * s
                return ((x * x + y * y) < 1.0).sum()

            def chk(r):
                frac = 4.0 * float(r.item()) / n
                return abs(frac - 3.14159265) < 0.01, f"hits={int(r.item())} pi~{frac:.6f}"
            return Case(fn, chk)

        if kind == "range_gauss_f64":
            h = 1.0 / n
            emit("INFO torch range_gauss_f64 times (exp(-x*x) * h).sum() over x = (arange(n, float64) + 0.5) * h")

            def fn():
                x = (t.arange(n, dtype=t.float64, device=self.dev) + 0.5) * h
                return (t.exp(-(x * x)) * h).sum()

            def chk(r):
                err = abs(float(r.item()) - 0.746824132812427)
                return err < 1e-9, f"integral={float(r.item()):.15f} err={err:.3g}"
            return Case(fn, chk)

        if kind.startswith("axis_sum_f32_"):
            axis = int(kind[-1])
            shape = (256, 4096, 256)
            x = self.rand_f32(256 * 4096 * 256, seed).view(*shape)
            emit(f"INFO torch {kind} times x.sum(dim={axis}) of a {shape} float32 tensor (n is fixed)")

            def chk(r):
                want = x.double().sum(dim=axis)
                err = float((r.double() - want).abs().max().item())
                return err < 1e-2, f"places={r.numel()} max_err={err:.3g}"
            return Case(lambda: x.sum(dim=axis), chk)

        if kind.startswith("axis_scan_f32_"):
            axis = int(kind[-1])
            shape = (256, 4096, 256)
            x = self.rand_f32(256 * 4096 * 256, seed).view(*shape)
            emit(f"INFO torch {kind} times x.cumsum(dim={axis}) of a {shape} float32 tensor (n is fixed)")

            def chk(r):
                want = x.double().cumsum(dim=axis)
                err = float((r.double() - want).abs().max().item())
                return err < 1e-2, f"max_err={err:.3g}"
            return Case(lambda: x.cumsum(dim=axis), chk)

        if kind == "gather_sum_f32":
            x = self.rand_f32(n, seed)
            idx = t.randint(0, n, (n,), dtype=t.int64, device=self.dev, generator=self._gen(seed + 1))
            emit("INFO torch gather_sum_f32 times x[idx].sum() (int64 indices, the gathered copy made)")

            def chk(r):
                want = float(x.double()[idx].sum().item())
                err = abs(float(r.item()) - want)
                return err < 1e-3 * n ** 0.5 + 1.0, f"sum={float(r.item()):.6f} want={want:.6f}"
            return Case(lambda: x[idx].sum(), chk)

        if kind == "gather_f32":
            x = self.rand_f32(n, seed)
            idx = t.randint(0, n, (n,), dtype=t.int64, device=self.dev, generator=self._gen(seed + 1))
            emit("INFO torch gather_f32 times x[idx] (int64 indices)")

            def chk(r):
                ok = bool((r == x.index_select(0, idx)).all().item())
                return ok, f"n={r.numel()}"
            return Case(lambda: x[idx], chk)

        if kind == "strided_sum_f32":
            x = self.rand_f32(n, seed)
            emit("INFO torch strided_sum_f32 times x[::4].sum() (a strided view, no copy)")

            def chk(r):
                want = float(x.double()[::4].sum().item())
                err = abs(float(r.item()) - want)
                return err < 1e-3 * (n / 4) ** 0.5 + 1.0, f"sum={float(r.item()):.6f} want={want:.6f}"
            return Case(lambda: x[::4].sum(), chk)

        if kind == "scatter_f32":
            v = self.rand_f32(n, seed)
            idx = t.randint(0, n, (n,), dtype=t.int64, device=self.dev, generator=self._gen(seed + 1))
            out = t.zeros(n, dtype=t.float32, device=self.dev)
            emit("INFO torch scatter_f32 times out[idx] = v (index_put_, int64 indices, random with repeats)")

            def run():
                out[idx] = v
                return out

            def chk(r):
                # Positions whose index no other position names hold their own value.
                uniq, counts = t.unique(idx, return_counts=True)
                once = uniq[counts == 1]
                pos = t.nonzero(t.isin(idx, once)).flatten()[:100000]
                ok = bool((r[idx[pos]] == v[pos]).all().item())
                return ok, f"checked={pos.numel()}"
            return Case(run, chk)

        if kind == "argwhere_f32":
            x = self.rand_f32(n, seed)
            emit("INFO torch argwhere_f32 times torch.nonzero(x > 0.8) (int64 positions)")

            def chk(r):
                at = r.flatten()
                ref = int((x > 0.8).sum().item())
                ok = at.numel() == ref and bool((x[at] > 0.8).all().item()) and \
                    bool((at[1:] > at[:-1]).all().item())
                return ok, f"kept={at.numel()} ref_kept={ref}"
            return Case(lambda: t.nonzero(x > 0.8), chk)

        if kind in ("lower_bound_f32", "lower_bound_sorted_f32"):
            keys = t.sort(self.rand_f32(n, seed)).values
            q = self.rand_f32(n // 16, seed + 1)
            if kind == "lower_bound_sorted_f32":
                q = t.sort(q).values
            emit(f"INFO torch {kind} times torch.searchsorted(keys, q, out_int32=True): "
                 f"{n // 16} queries in {n} sorted keys")

            def chk(r):
                at = r.long()
                lo_ok = (at == 0) | (keys[(at - 1).clamp(min=0)] < q)
                hi_ok = (at == n) | (keys[at.clamp(max=n - 1)] >= q)
                bad = int((~(lo_ok & hi_ok)).sum().item())
                return bad == 0, f"bad={bad}"
            return Case(lambda: t.searchsorted(keys, q, out_int32=True), chk)

        if kind == "sort_rows_f32":
            rows = n // cols
            x = self.rand_f32(rows * cols, seed).view(rows, cols)
            emit(f"INFO torch sort_rows_f32_{cols} times torch.sort(x, dim=1) of {rows}x{cols} "
                 "(values and int64 indices: torch has no keys-only sort)")

            def chk(r):
                ordered = bool((r.values[:, 1:] >= r.values[:, :-1]).all().item())
                xd = x.double()
                same = bool(((r.values.double().sum(dim=1) - xd.sum(dim=1)).abs()
                             <= 1e-9 * xd.abs().sum(dim=1) + 1e-12).all().item())
                return ordered and same, f"rows={rows} ordered={ordered} row_sums={'match' if same else 'MISMATCH'}"
            return Case(lambda: t.sort(x, dim=1), chk)

        if kind in ("argsort_f32", "pairs_u32"):
            if kind == "argsort_f32":
                k, v = self.rand_f32(n, seed), None
                emit("INFO torch argsort_f32 times torch.sort(x, stable=True) (what torch.argsort "
                     "runs): sorted keys and int64 indices")
            else:
                k, v = self.rand_bits(n, 4, seed), t.arange(n, dtype=t.int32, device=self.dev)
                emit("INFO torch pairs_u32 times torch.sort(k, stable=True) then torch.gather(v, 0, "
                     "indices): two ops; int32 keys over the full range and int32 values")
            smp = self.sample(n, seed)

            def fn():
                s = t.sort(k, stable=True)
                return s if v is None else (s.values, t.gather(v, 0, s.indices))
            return Case(fn, lambda r: check_sort(t, k, r[0], vals=r[1], sample=smp, stable=True))

        return None


# --------------------------------------------------------------------------------------------
# CuPy
# --------------------------------------------------------------------------------------------

class CupyLib:
    name = "cupy"

    def __init__(self):
        import cupy  # noqa: PLC0415

        self.cp = cupy
        cupy.cuda.runtime.getDeviceCount()  # raises if no usable GPU / driver
        props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
        dev_name = props["name"]
        if isinstance(dev_name, bytes):
            dev_name = dev_name.decode(errors="replace")
        accel = os.environ.get("CUPY_ACCELERATORS", "<unset>")
        try:  # effective accelerators (private API, best effort): CuPy may route reductions to CUB
            from cupy._core import _accelerator  # noqa: PLC0415

            eff = (f"reduction={list(_accelerator.get_reduction_accelerators())}"
                   f",routine={list(_accelerator.get_routine_accelerators())}")
        except Exception:  # noqa: BLE001
            eff = "unknown"
        emit(f"INFO cupy version={cupy.__version__} device={dev_name.replace(' ', '_')} "
             f"CUPY_ACCELERATORS={accel} effective_accelerators={eff}")
        # Fused user reductions, as a CuPy user would write them.
        self._sumsq = cupy.ReductionKernel(
            "T x", "T y", "x * x", "a + b", "y = a", "0", "peer_sumsq")
        self._count_gt0 = cupy.ReductionKernel(
            "T x", "int64 y", "x > 0 ? 1 : 0", "a + b", "y = a", "0", "peer_count_gt0",
            reduce_type="long long")

    # -- data
    def rand_f32(self, n, seed):
        cp = self.cp
        x = cp.random.RandomState(seed).random_sample(size=n, dtype=cp.float32)  # [0,1)
        x *= 2
        x -= 1
        return x

    def neg_f32(self, n, seed):
        cp = self.cp
        x = cp.random.RandomState(seed).random_sample(size=n, dtype=cp.float32)
        x *= -1
        x -= 0.1  # all <= -0.1
        return x

    def rand_i32(self, n, seed):
        cp = self.cp
        return cp.random.RandomState(seed).randint(-1000, 1001, size=n, dtype=cp.int32)

    def rand_bits(self, n, key_bytes, seed):
        """uint32 (4) or uint64 (8) keys uniform over all their bits."""
        cp = self.cp
        dtype = cp.uint32 if key_bytes == 4 else cp.uint64
        return cp.random.RandomState(seed).randint(0, 1 << (8 * key_bytes), size=n, dtype=dtype)

    def sample(self, n, seed):
        return self.cp.random.RandomState(seed + 1).randint(0, n, size=SAMPLES)

    # -- timing
    def time_ms(self, fn, reps):
        cp = self.cp
        warm_up(fn, cp.cuda.Device().synchronize)
        pairs = [(cp.cuda.Event(), cp.cuda.Event()) for _ in range(reps)]
        for start, stop in pairs:
            start.record()
            fn()
            stop.record()
        pairs[-1][1].synchronize()
        return statistics.median([cp.cuda.get_elapsed_time(s, e) for s, e in pairs])

    def release(self):
        self.cp.cuda.Device().synchronize()
        self.cp.get_default_memory_pool().free_all_blocks()

    # -- ops
    def build(self, kind, n, cols, seed):
        cp = self.cp
        if kind == "copy":
            src = self.rand_f32(n, seed)
            dst = cp.empty_like(src)
            return Case(lambda: cp.copyto(dst, src),
                        lambda r: (bool(cp.array_equal(dst, src)), "dst==src"))

        if kind == "sum_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = float(x.astype(cp.float64).sum())
                tol = 1e-6 * float(cp.abs(x).astype(cp.float64).sum()) + 1e-2
                return close(float(r), ref, tol)
            return Case(lambda: x.sum(), chk)

        if kind == "sum_i32":
            x = self.rand_i32(n, seed)
            emit("INFO cupy sum_i32 times x.sum() on int32, which (NumPy rules) returns int64")

            def chk(r):
                ref = int(x.astype(cp.int64).sum())
                return int(r) == ref, f"dev={int(r)} ref={ref} dtype={r.dtype}"
            return Case(lambda: x.sum(), chk)

        if kind == "max_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = float(x.astype(cp.float64).max())
                return float(r) == ref, f"dev={float(r):.9g} ref={ref:.9g}"
            return Case(lambda: x.max(), chk)

        if kind == "argmax_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                idx = int(r)
                ref = float(x.max())
                ok = 0 <= idx < n and float(x[idx]) == ref
                return ok, f"dev_idx={idx} ref_max={ref:.9g}"
            return Case(lambda: x.argmax(), chk)

        if kind == "sumsq_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                xd = x.astype(cp.float64)
                ref = float((xd * xd).sum())
                return close(float(r), ref, 1e-4 * ref + 1e-3)
            return Case(lambda: self._sumsq(x), chk)

        if kind == "count_gt0_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = n - int((x <= 0).sum())
                return int(r) == ref, f"dev={int(r)} ref={ref}"
            return Case(lambda: self._count_gt0(x), chk)

        if kind in ("any_gt0_first", "any_gt0_none"):
            if kind == "any_gt0_first":
                x = self.rand_f32(n, seed)
                x[0] = 0.5  # the first element already satisfies the predicate
                expect = True
            else:
                x = self.neg_f32(n, seed)
                expect = False
            return Case(lambda: (x > 0).any(),
                        lambda r: (bool(r) == expect, f"dev={bool(r)} expect={expect}"))

        if kind == "filter_gt0_f32":
            x = self.rand_f32(n, seed)

            def chk(r):
                ref = n - int((x <= 0).sum())
                ok = r.size == ref and bool((r > 0).all())
                return ok, f"kept={r.size} ref_kept={ref} selectivity={r.size / n:.4f}"
            return Case(lambda: x[x > 0], chk, kept=lambda r: int(r.size))

        if kind == "scan_i32":
            x = self.rand_i32(n, seed)
            emit("INFO cupy scan_i32 times cupy.cumsum(x, dtype=cupy.int32) "
                 "(without dtype= NumPy rules promote the output to int64)")

            def chk(r):
                ref = cp.cumsum(x.astype(cp.int64))
                ref = ((ref + 2**31) % 2**32) - 2**31  # int32 wrap-around
                bad = int((r.astype(cp.int64) != ref).sum())
                return bad == 0, f"mismatches={bad} last={int(r[-1])}"
            return Case(lambda: cp.cumsum(x, dtype=cp.int32), chk)

        if kind in ("scan_f32", "scan_rows_f32"):
            x = self.rand_f32(n, seed)
            v = x.reshape(-1, cols if kind == "scan_rows_f32" else n)

            def chk(r):
                step = max(1, v.shape[0] // 64)
                rows = v[::step].astype(cp.float64)
                got = r.reshape(-1, v.shape[1])[::step].astype(cp.float64)
                tol = 1e-5 * cp.cumsum(cp.abs(rows), axis=1) + 1e-3
                bad = int((cp.abs(got - cp.cumsum(rows, axis=1)) > tol).sum())
                return bad == 0, f"sampled_rows={rows.shape[0]} bad={bad}"
            return Case(lambda: cp.cumsum(v, axis=1), chk)

        if kind in ("rowsum_f32", "colsum_f32"):
            x = self.rand_f32(n, seed)
            v = x.reshape(-1, cols)
            axis = 1 if kind == "rowsum_f32" else 0

            def chk(r):
                vd = v.astype(cp.float64)
                ref = vd.sum(axis=axis)
                tol = 1e-5 * cp.abs(vd).sum(axis=axis) + 1e-5
                bad = int((cp.abs(r.astype(cp.float64) - ref) > tol).sum())
                return bad == 0, f"outputs={r.size} bad={bad}"
            return Case(lambda: v.sum(axis=axis), chk)

        if kind == "transpose_f32":
            rows, tcols = transpose_shape(n)
            x = self.rand_f32(n, seed)
            v = x.reshape(rows, tcols)
            emit(f"INFO cupy transpose_f32 shape={rows}x{tcols}")
            return Case(lambda: cp.ascontiguousarray(v.T),
                        lambda r: (bool(cp.array_equal(r, v.T)), f"shape={rows}x{tcols}"))

        if kind in ("sort_u32", "sort_u64", "sort_f32"):
            x = self.rand_f32(n, seed) if kind == "sort_f32" else \
                self.rand_bits(n, 4 if kind == "sort_u32" else 8, seed)
            emit(f"INFO cupy {kind} times cupy.sort(x) (a copy, then an in-place sort)")
            return Case(lambda: cp.sort(x), lambda r: check_sort(cp, x, r))

        if kind == "sort_desc_f32":
            emit("INFO cupy sort_desc_f32: cupy.sort has no descending order (a reversal after it "
                 "would be a second op)")
            return None

        if kind == "argsort_f32":
            x = self.rand_f32(n, seed)
            smp = self.sample(n, seed)
            emit("INFO cupy argsort_f32 times cupy.argsort(x): int64 indices only")
            return Case(lambda: cp.argsort(x),
                        lambda r: check_sort(cp, x, x[r], vals=r, sample=smp))

        if kind == "pairs_u32":
            k = self.rand_bits(n, 4, seed)
            v = cp.arange(n, dtype=cp.uint32)
            smp = self.sample(n, seed)
            emit("INFO cupy pairs_u32 times cupy.argsort(k), then cupy.take of the keys and of the "
                 "values: three ops")

            def fn():
                order = cp.argsort(k)
                return cp.take(k, order), cp.take(v, order)
            return Case(fn, lambda r: check_sort(cp, k, r[0], vals=r[1], sample=smp))

        if kind == "sort_rows_f32":
            rows = n // cols
            x = self.rand_f32(rows * cols, seed).reshape(rows, cols)
            emit(f"INFO cupy sort_rows_f32_{cols} times cupy.sort(x, axis=1) of {rows}x{cols}")

            def chk(r):
                ordered = bool((r[:, 1:] >= r[:, :-1]).all())
                xd = x.astype(cp.float64)
                same = bool((cp.abs(r.astype(cp.float64).sum(axis=1) - xd.sum(axis=1))
                             <= 1e-9 * cp.abs(xd).sum(axis=1) + 1e-12).all())
                return ordered and same, f"rows={rows} ordered={ordered} row_sums={'match' if same else 'MISMATCH'}"
            return Case(lambda: cp.sort(x, axis=1), chk)

        return None


LIBS = {"torch": TorchLib, "cupy": CupyLib}


# --------------------------------------------------------------------------------------------
# Driver
# --------------------------------------------------------------------------------------------

def run_one(lib, op, args):
    parsed = parse_op(op)
    if parsed is None:
        emit(f"SKIP {lib.name} {op} unknown")
        return
    kind, cols = parsed
    n = args.n
    if cols is not None and n % cols:
        emit(f"SKIP {lib.name} {op} N={n} not divisible by C={cols}")
        return
    case = result = None
    try:
        case = lib.build(kind, n, cols, seed_for(args.seed, op))
        if case is None:
            emit(f"SKIP {lib.name} {op} not offered by {lib.name}")
            return
        ms = lib.time_ms(case.fn, args.reps)
        result = case.fn()  # one more (untimed) run whose result is checked / measured
        kept = case.kept(result) if case.kept else 0
        nbytes = counted_bytes(kind, n, cols, kept)
        gbps = nbytes / (ms * 1e-3) / 1e9 if ms > 0 else 0.0
        emit(f"PEER {lib.name} {op} {ms:.6f} {gbps:.3f}")
        if args.check and case.check is not None:
            ok, detail = case.check(result)
            emit(f"CHECK {lib.name} {op} {'ok' if ok else 'FAIL'} {detail}")
    except Exception as exc:  # noqa: BLE001 (OOM, missing feature, ...: report and go on)
        emit(f"SKIP {lib.name} {op} error: {first_line(exc)}")
    finally:
        del case, result
        try:
            lib.release()
        except Exception:  # noqa: BLE001
            pass


def expand_ops(text):
    ops = []
    for tok in text.split(","):
        tok = tok.strip()
        if tok == "all":
            ops.extend(ALL_OPS)
        elif tok == "sort":
            ops.extend(SORT_BYTES)
            ops.extend(f"sort_rows_f32_{c}" for c in SORT_ROW_COLS)
        elif tok:
            ops.append(tok)
    return ops


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=parse_count, default=1 << 28,
                    help="elements per op (integer, 2^K or 1<<K; default 2^28)")
    ap.add_argument("--reps", type=int, default=20, help="timed runs per op (median reported)")
    ap.add_argument("--ops", default="all",
                    help="comma-separated op names, 'all' (every op but the sorts) or 'sort'")
    ap.add_argument("--libs", default="torch,cupy", help="comma-separated: torch,cupy")
    ap.add_argument("--seed", type=int, default=12345, help="base seed (mixed with each op name)")
    ap.add_argument("--no-check", dest="check", action="store_false",
                    help="skip the correctness checks")
    args = ap.parse_args(argv)
    if args.n < 1 or args.reps < 1:
        ap.error("--n and --reps must be >= 1")

    ops = expand_ops(args.ops)
    emit(f"INFO peers.py python={sys.version.split()[0]} n={args.n} reps={args.reps} "
         f"warmup={WARMUP} check={int(args.check)}")
    for lib_name in [s.strip() for s in args.libs.split(",") if s.strip()]:
        cls = LIBS.get(lib_name)
        if cls is None:
            emit(f"SKIP {lib_name} * unknown library")
            continue
        try:
            lib = cls()
        except Exception as exc:  # noqa: BLE001 (ImportError, no GPU, broken install, ...)
            emit(f"SKIP {lib_name} * import failed: {first_line(exc)}")
            continue
        for op in ops:
            run_one(lib, op, args)
        del lib
    return 0


if __name__ == "__main__":
    sys.exit(main())
