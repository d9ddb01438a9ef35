//! Checks of the benches' results against plain Rust on the host, outside the timed regions:
//! every operation a bench times is run once more (or its timed output read back) and
//! compared, exactly where the result is exact (integers, counts, maxima, compaction contents,
//! top-k, runs, transposes, copies) and within a bound derived from the data for float sums
//! ([`fold_tol`]). The float sums are also run over exact data (the bench's exact data), where they must
//! come out bit for bit. A failure is printed at once (`check <op>: FAIL: ...`, expected and
//! got) and again at the end, and the bench then exits with status 1.

use std::collections::BTreeSet;
use std::fmt::Debug;

use crate::Bits;
use rayon::prelude::*;

/// Unit roundoff of f32 (round to nearest): 2^-24.
pub const U: f64 = 1.0 / 16_777_216.0;

/// How many roundings a term of a long f32 fold is assumed to pass through at most. A fold of
/// `len` terms (any tree, a left fold included) has depth at most `len - 1`, which is what
/// [`fold_tol`] takes for folds shorter than this. This runtime folds longer inputs over the
/// grid, far shallower: at 2^28 elements on an H200 the reduce folds a term through about
/// 90 roundings (about 60 grid-stride steps of 16-term trees per thread, 10 shuffle levels,
/// the partials' fold); a column sum through its thread's share of a block's rows (about 250
/// at these shapes: the rows are split over 8 blocks per SM) and the combine of the blocks'
/// partials; a scan through its tile's thread, warp and block scans (tens) plus one rounding
/// of the exact tile prefix (or the ~15 levels of the fixed tree); a CSR segment through a
/// warp's lanes (at most 256 up to 8192 elements) or, longer, a thread's share of a block's
/// 32768-element chunk (about 130) and the chunks' combine. 4096 covers them all.
pub const FOLD_DEPTH: usize = 4096;

/// The largest error of an f32 fold of `len` terms whose magnitudes sum to `abs`, with
/// `extra` roundings of each term before the fold (1 for a product or a square): `γ_d ·
/// abs`, `d = min(len, FOLD_DEPTH) + extra`, `γ_d = d u / (1 - d u)`, `u = 2^-24`. This is
/// the classic bound for any summation tree in which no term passes through more than `d`
/// roundings (Higham, *Accuracy and Stability of Numerical Algorithms*, 2nd ed., §4.2):
/// an `n * eps * sum|x|` bound with `n` the fold's depth rather than its length. The
/// references it is compared with are exact: the bench's floats are multiples of 2^-23
/// below 1 in magnitude (or small integers), so every sum of fewer than 2^29 of them is
/// exact in f64, in any order.
pub fn fold_tol(abs: f64, len: usize, extra: usize) -> f64 {
    let d = (len.min(FOLD_DEPTH) + extra) as f64;
    d * U / (1.0 - d * U) * abs
}

/// How a float result is compared with its exact reference.
#[derive(Clone, Copy, Debug)]
pub enum Sums {
    /// Within [`fold_tol`] with this many extra roundings per term.
    Fold(usize),
    /// Exactly (the sums of the bench's exact data: every partial sum is exact in f32).
    Exact,
}

impl Sums {
    /// The allowed error of a fold of `len` terms whose magnitudes sum to `abs`.
    pub fn tol(self, abs: f64, len: usize) -> f64 {
        match self {
            Sums::Fold(extra) => fold_tol(abs, len, extra),
            Sums::Exact => 0.0,
        }
    }

    /// Whether `got` is within the allowed error of `want` (never for NaN).
    pub fn holds(self, want: f64, got: f64, abs: f64, len: usize) -> bool {
        (got - want).abs() <= self.tol(abs, len)
    }

    /// What a failure message says of `got` against `want`.
    pub fn explain(self, want: f64, got: f64, abs: f64, len: usize) -> String {
        match self {
            Sums::Exact => format!("expected {want} exactly, got {got}"),
            Sums::Fold(_) => format!(
                "expected {want} within {:.3e}, got {got} (error {:.3e})",
                self.tol(abs, len),
                (got - want).abs()
            ),
        }
    }
}

/// The first wrong element of an array result (its index and what is wrong with it) and
/// how many elements are wrong.
pub struct Failure {
    /// Index of the first wrong element.
    pub at: usize,
    /// Expected and got of that element.
    pub what: String,
    /// How many are wrong.
    pub count: usize,
}

/// The checks run so far: how many passed, what failed.
#[derive(Default)]
pub struct Checks {
    passed: usize,
    failed: Vec<String>,
    seen: BTreeSet<String>,
}

impl Checks {
    /// `true` the first time `op` is asked about (operations timed in two sections are
    /// checked once).
    pub fn first(&mut self, op: &str) -> bool {
        self.seen.insert(op.to_string())
    }

    /// Records a passed check of `op`.
    pub fn pass(&mut self, op: &str, detail: &str) {
        self.passed += 1;
        println!("check {op}: ok ({detail})");
    }

    /// Records a failed check of `op`, printed at once and again at the end.
    pub fn fail(&mut self, op: &str, detail: String) {
        println!("check {op}: FAIL: {detail}");
        self.failed.push(format!("{op}: {detail}"));
    }

    /// `got == want`.
    pub fn exact<T: PartialEq + Debug>(&mut self, op: &str, want: T, got: T) {
        if got == want {
            self.pass(op, &format!("{got:?}, exact"));
        } else {
            self.fail(op, format!("expected {want:?}, got {got:?}"));
        }
    }

    /// `got` within `tol` of `want` (NaN never is).
    pub fn near(&mut self, op: &str, want: f64, got: f64, tol: f64) {
        let err = (got - want).abs();
        if err <= tol {
            self.pass(
                op,
                &format!("{got} against {want}: error {err:.3e} within {tol:.3e}"),
            );
        } else {
            self.fail(
                op,
                format!("expected {want} within {tol:.3e}, got {got} (error {err:.3e})"),
            );
        }
    }

    /// A float result against its exact reference as `how` says: `len` terms whose
    /// magnitudes sum to `abs`.
    pub fn sum(&mut self, op: &str, how: Sums, (want, abs): (f64, f64), len: usize, got: f64) {
        if how.holds(want, got, abs, len) {
            let err = (got - want).abs();
            let detail = match how {
                Sums::Exact => format!("{got}, exact"),
                Sums::Fold(_) => format!(
                    "{got} against {want}: error {err:.3e} within {:.3e}",
                    how.tol(abs, len)
                ),
            };
            self.pass(op, &detail);
        } else {
            self.fail(op, how.explain(want, got, abs, len));
        }
    }

    /// An array result of `n` elements, `failure` its first wrong element, if any.
    pub fn elements(&mut self, op: &str, n: usize, failure: Option<Failure>) {
        match failure {
            None => self.pass(op, &format!("{n} elements")),
            Some(f) => self.fail(
                op,
                format!(
                    "element {}: {} ({} of {n} elements wrong)",
                    f.at, f.what, f.count
                ),
            ),
        }
    }

    /// Prints the summary; exits with status 1 after listing the failures, if any.
    pub fn finish(&self) {
        println!(
            "\nchecks: {} passed, {} failed",
            self.passed,
            self.failed.len()
        );
        if !self.failed.is_empty() {
            for f in &self.failed {
                println!("FAILED {f}");
            }
            eprintln!(
                "reduce bench: {} check(s) failed (the FAILED lines above say which, with the expected and the got)",
                self.failed.len()
            );
            std::process::exit(1);
        }
    }
}

/// The first index of `0..n` (in order) for which `bad` has a message, with how many have
/// one, over the indices in parallel (the count pass runs only after a failure).
pub fn failures(n: usize, bad: impl Fn(usize) -> Option<String> + Sync + Send) -> Option<Failure> {
    let (at, what) = (0..n)
        .into_par_iter()
        .find_map_first(|i| bad(i).map(|m| (i, m)))?;
    let count = (0..n).into_par_iter().filter(|&i| bad(i).is_some()).count();
    Some(Failure { at, what, count })
}

/// A length mismatch, as a failure (`None` when the lengths agree).
pub fn lengths(got: usize, want: usize) -> Option<Failure> {
    (got != want).then(|| Failure {
        at: got.min(want),
        what: format!("{got} elements, expected {want}"),
        count: got.abs_diff(want),
    })
}

/// `got` against `want` bit for bit (`-0.0` differs from `0.0`, NaN payloads count).
pub fn bitwise<T: Bits + Debug + Sync>(got: &[T], want: &[T]) -> Option<Failure> {
    lengths(got.len(), want.len()).or_else(|| {
        failures(got.len(), |i| {
            (got[i].bits() != want[i].bits())
                .then(|| format!("expected {:?}, got {:?}", want[i], got[i]))
        })
    })
}

/// The sum of `xs` and the sum of their magnitudes, in f64 (exact for the bench's data,
/// see [`fold_tol`]), in parallel.
pub fn sum_abs(xs: &[f32]) -> (f64, f64) {
    xs.par_chunks(1 << 16)
        .map(sum_abs_seq)
        .reduce(|| (0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1))
}

/// [`sum_abs`] in one thread (a row, a segment).
pub fn sum_abs_seq(xs: &[f32]) -> (f64, f64) {
    xs.iter().fold((0.0, 0.0), |(s, a), &x| {
        (s + x as f64, a + (x as f64).abs())
    })
}

/// One piece of a scan's check: the first wrong element in it and how many are.
type Part = (Option<(usize, String)>, usize);

/// The parts (in index order) as one failure.
fn combine(parts: impl Iterator<Item = Part>) -> Option<Failure> {
    let (first, count) = combine_part(parts);
    first.map(|(at, what)| Failure { at, what, count })
}

/// Checks the inclusive f32 sum scan `got` of `xs` (elements `at..` of the whole
/// input, in a segment whose first `pos` elements come before them and sum to `carry`, in
/// value and magnitude) sequentially.
fn scan_part(xs: &[f32], got: &[f32], at: usize, pos: usize, carry: (f64, f64), how: Sums) -> Part {
    let (mut s, mut a) = carry;
    let mut first = None;
    let mut count = 0;
    for (k, (&x, &g)) in xs.iter().zip(got).enumerate() {
        s += x as f64;
        a += (x as f64).abs();
        if !how.holds(s, g as f64, a, pos + k + 1) {
            count += 1;
            if first.is_none() {
                first = Some((at + k, how.explain(s, g as f64, a, pos + k + 1)));
            }
        }
    }
    (first, count)
}

/// Chunk of the whole-array scan checks (carries between chunks computed first).
const CHUNK: usize = 1 << 20;

/// The exclusive running fold of the chunks' `totals` from `id`: what comes before each chunk.
fn exclusive<T: Copy>(totals: &[T], id: T, add: impl Fn(T, &T) -> T) -> Vec<T> {
    totals
        .iter()
        .scan(id, |acc, t| {
            let before = *acc;
            *acc = add(*acc, t);
            Some(before)
        })
        .collect()
}

/// `got` as the inclusive f32 sum scan of all of `xs`, every element against its exact
/// prefix ([`Sums`]), in parallel chunks.
pub fn scan(got: &[f32], xs: &[f32], how: Sums) -> Option<Failure> {
    if let Some(f) = lengths(got.len(), xs.len()) {
        return Some(f);
    }
    let totals: Vec<(f64, f64)> = xs.par_chunks(CHUNK).map(sum_abs_seq).collect();
    let carries = exclusive(&totals, (0.0, 0.0), |a, t| (a.0 + t.0, a.1 + t.1));
    let parts: Vec<Part> = xs
        .par_chunks(CHUNK)
        .zip(got.par_chunks(CHUNK))
        .enumerate()
        .map(|(c, (x, g))| scan_part(x, g, c * CHUNK, c * CHUNK, carries[c], how))
        .collect();
    combine(parts.into_iter())
}

/// `got` as the inclusive f32 sum scan of each row of `cols` elements of `xs`.
pub fn scan_rows(got: &[f32], xs: &[f32], cols: usize, how: Sums) -> Option<Failure> {
    if let Some(f) = lengths(got.len(), xs.len()) {
        return Some(f);
    }
    let parts: Vec<Part> = xs
        .par_chunks(cols * (CHUNK / cols).max(1))
        .zip(got.par_chunks(cols * (CHUNK / cols).max(1)))
        .enumerate()
        .map(|(c, (x, g))| {
            let at = c * cols * (CHUNK / cols).max(1);
            combine_part(
                x.chunks(cols)
                    .zip(g.chunks(cols))
                    .enumerate()
                    .map(|(r, (xr, gr))| scan_part(xr, gr, at + r * cols, 0, (0.0, 0.0), how)),
            )
        })
        .collect();
    combine(parts.into_iter())
}

/// `got` as the inclusive f32 sum scan of each CSR segment `offsets[s]..offsets[s + 1]` of
/// `xs` (the segments cover `xs`).
pub fn scan_segments(got: &[f32], xs: &[f32], offsets: &[u64], how: Sums) -> Option<Failure> {
    if let Some(f) = lengths(got.len(), xs.len()) {
        return Some(f);
    }
    let parts: Vec<Part> = offsets
        .par_windows(2)
        .map(|w| {
            let (a, b) = (w[0] as usize, w[1] as usize);
            scan_part(&xs[a..b], &got[a..b], a, 0, (0.0, 0.0), how)
        })
        .collect();
    combine(parts.into_iter())
}

/// Parts folded into one (the first failure in order, the total count).
fn combine_part(parts: impl Iterator<Item = Part>) -> Part {
    let mut first = None;
    let mut count = 0;
    for (f, c) in parts {
        if first.is_none() {
            first = f;
        }
        count += c;
    }
    (first, count)
}

/// `got` as the wrapping inclusive i32 sum scan of `ys`, exactly.
pub fn scan_i32(got: &[i32], ys: &[i32]) -> Option<Failure> {
    if let Some(f) = lengths(got.len(), ys.len()) {
        return Some(f);
    }
    let totals: Vec<i32> = ys
        .par_chunks(CHUNK)
        .map(|c| c.iter().fold(0i32, |a, &y| a.wrapping_add(y)))
        .collect();
    let carries = exclusive(&totals, 0i32, |a, &t| a.wrapping_add(t));
    let parts: Vec<Part> = ys
        .par_chunks(CHUNK)
        .zip(got.par_chunks(CHUNK))
        .enumerate()
        .map(|(c, (y, g))| {
            let mut acc = carries[c];
            let mut first = None;
            let mut count = 0;
            for (k, (&y, &g)) in y.iter().zip(g).enumerate() {
                acc = acc.wrapping_add(y);
                if g != acc {
                    count += 1;
                    if first.is_none() {
                        first = Some((c * CHUNK + k, format!("expected {acc}, got {g}")));
                    }
                }
            }
            (first, count)
        })
        .collect();
    combine(parts.into_iter())
}

/// `got` as the sums of the rows of `cols` elements of `xs`.
pub fn rows(got: &[f32], xs: &[f32], cols: usize, how: Sums) -> Option<Failure> {
    lengths(got.len(), xs.len() / cols).or_else(|| {
        failures(got.len(), |r| {
            let (want, abs) = sum_abs_seq(&xs[r * cols..(r + 1) * cols]);
            let g = got[r] as f64;
            (!how.holds(want, g, abs, cols)).then(|| how.explain(want, g, abs, cols))
        })
    })
}

/// `got` as the sums of the columns of the row-major `xs` of `cols` columns.
pub fn cols(got: &[f32], xs: &[f32], cols: usize, how: Sums) -> Option<Failure> {
    if let Some(f) = lengths(got.len(), cols) {
        return Some(f);
    }
    let rows = xs.len() / cols;
    let block = cols * (CHUNK / cols).max(1);
    let sums: Vec<(f64, f64)> = xs
        .par_chunks(block)
        .fold(
            || vec![(0.0, 0.0); cols],
            |mut acc, b| {
                for row in b.chunks(cols) {
                    for (a, &x) in acc.iter_mut().zip(row) {
                        a.0 += x as f64;
                        a.1 += (x as f64).abs();
                    }
                }
                acc
            },
        )
        .reduce(
            || vec![(0.0, 0.0); cols],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    x.0 += y.0;
                    x.1 += y.1;
                }
                a
            },
        );
    failures(cols, |c| {
        let ((want, abs), g) = (sums[c], got[c] as f64);
        (!how.holds(want, g, abs, rows)).then(|| how.explain(want, g, abs, rows))
    })
}

/// `got` as the sums of the CSR segments `offsets[s]..offsets[s + 1]` of `xs`.
pub fn segments(got: &[f32], xs: &[f32], offsets: &[u64], how: Sums) -> Option<Failure> {
    lengths(got.len(), offsets.len() - 1).or_else(|| {
        failures(got.len(), |s| {
            let (a, b) = (offsets[s] as usize, offsets[s + 1] as usize);
            let (want, abs) = sum_abs(&xs[a..b]);
            let g = got[s] as f64;
            (!how.holds(want, g, abs, b - a)).then(|| how.explain(want, g, abs, b - a))
        })
    })
}

/// `t` as the transpose of the row-major `xs` of `cols` columns, bit for bit: compared in
/// 64 x 64 tiles (both sides read a few cache lines per row of a tile), bands of tiles in
/// parallel.
pub fn transpose(t: &[f32], xs: &[f32], cols: usize) -> Option<Failure> {
    const B: usize = 64;
    let rows = xs.len() / cols;
    if let Some(f) = lengths(t.len(), xs.len()) {
        return Some(f);
    }
    // Per band of B input rows: the smallest wrong output index (with its message) and
    // how many are wrong.
    let parts: Vec<Part> = (0..rows.div_ceil(B))
        .into_par_iter()
        .map(|band| {
            let mut first: Option<(usize, String)> = None;
            let mut count = 0;
            let r_end = ((band + 1) * B).min(rows);
            for c0 in (0..cols).step_by(B) {
                for c in c0..(c0 + B).min(cols) {
                    for r in band * B..r_end {
                        let (o, want) = (c * rows + r, xs[r * cols + c]);
                        if t[o].to_bits() != want.to_bits() {
                            count += 1;
                            if first.as_ref().is_none_or(|f| o < f.0) {
                                let what = format!(
                                    "(column {c}, row {r}): expected {want:?}, got {:?}",
                                    t[o]
                                );
                                first = Some((o, what));
                            }
                        }
                    }
                }
            }
            (first, count)
        })
        .collect();
    let count = parts.iter().map(|p| p.1).sum();
    let (at, what) = parts.into_iter().filter_map(|p| p.0).min_by_key(|f| f.0)?;
    Some(Failure { at, what, count })
}

/// The elements of `xs` that `keep` holds for, in order (in parallel).
pub fn kept(xs: &[f32], keep: impl Fn(f32) -> bool + Sync + Send) -> Vec<f32> {
    xs.par_iter().copied().filter(|&x| keep(x)).collect()
}

/// How many elements of `xs` `keep` holds for (in parallel).
pub fn count(xs: &[f32], keep: impl Fn(f32) -> bool + Sync + Send) -> u64 {
    xs.par_iter().filter(|&&x| keep(x)).count() as u64
}

/// The largest value of `xs` (NaN ignored, as `f32::max`) and the smallest index holding
/// a value equal to it: what `max_f32` and `argmax_f32` give on the bench's data (no NaN).
pub fn max_argmax(xs: &[f32]) -> (f32, (f32, u32)) {
    let max = xs
        .par_iter()
        .copied()
        .reduce(|| f32::NEG_INFINITY, f32::max);
    let at = xs
        .par_iter()
        .position_first(|&x| x == max)
        .unwrap_or(usize::MAX);
    (max, (max, at as u32))
}

/// The wrapping i32 sum of `ys` (the i64 sum truncated).
pub fn sum_i32(ys: &[i32]) -> i32 {
    ys.par_iter().map(|&y| y as i64).sum::<i64>() as i32
}

/// `x` times 2^`shift` as an integer (`x` a multiple of 2^-`shift`).
pub fn fixed(x: f32, shift: i32) -> i64 {
    let v = x as f64 * 2f64.powi(shift);
    debug_assert_eq!(v.fract(), 0.0, "{x} is not a multiple of 2^-{shift}");
    v as i64
}

/// The `k` largest of `xs` with their indices, largest first, ties to the smaller index,
/// NaN above everything (as `top_k`): the `k` best of each chunk in parallel
/// (`crate::sorted_k`), then the best of those.
pub fn top_k(xs: &[f32], k: usize) -> Vec<(f32, u64)> {
    use std::cmp::Ordering;
    let mut cands: Vec<(f32, u64)> = xs
        .par_chunks(CHUNK)
        .enumerate()
        .flat_map_iter(|(c, chunk)| {
            crate::sorted_k(chunk, k, true)
                .into_iter()
                .map(move |(v, i)| (v, i + (c * CHUNK) as u64))
        })
        .collect();
    let order = |a: &(f32, u64), b: &(f32, u64)| {
        let by_value = match (a.0.is_nan(), b.0.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal),
        };
        by_value.then(a.1.cmp(&b.1))
    };
    cands.sort_by(order);
    cands.truncate(k);
    cands
}

/// Runs of equal neighbouring keys: each run's key, length and its values' sum (the
/// values are small integers: every sum is exact in f32).
pub struct RunsRef {
    /// Each run's key.
    pub keys: Vec<i32>,
    /// Each run's length.
    pub counts: Vec<u32>,
    /// Each run's sum of values.
    pub sums: Vec<f32>,
}

/// [`RunsRef`] of `keys` and `vals`, in parallel: run starts, then each run.
pub fn runs(keys: &[i32], vals: &[f32]) -> RunsRef {
    let n = keys.len();
    let starts: Vec<usize> = (0..n)
        .into_par_iter()
        .filter(|&i| i == 0 || keys[i] != keys[i - 1])
        .collect();
    let end = |r: usize| starts.get(r + 1).copied().unwrap_or(n);
    let runs = starts.len();
    RunsRef {
        keys: starts.par_iter().map(|&s| keys[s]).collect(),
        counts: (0..runs)
            .into_par_iter()
            .map(|r| (end(r) - starts[r]) as u32)
            .collect(),
        sums: (0..runs)
            .into_par_iter()
            .map(|r| sum_abs_seq(&vals[starts[r]..end(r)]).0 as f32)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    //! The checks themselves find one wrong element, across chunk boundaries.
    use super::*;

    /// Multiples of 2^-8 in [-1, 1): sums exact in f32 at these lengths.
    fn data(n: usize) -> Vec<f32> {
        (0..n)
            .map(|i| ((i * 7919 % 512) as f32 - 256.0) / 256.0)
            .collect()
    }

    fn running(xs: &[f32], cols: usize) -> Vec<f32> {
        xs.chunks(cols)
            .flat_map(|row| {
                row.iter().scan(0.0f32, |a, &x| {
                    *a += x;
                    Some(*a)
                })
            })
            .collect()
    }

    #[test]
    fn scans_find_one_wrong_element_past_a_chunk() {
        let n = 3 * CHUNK + 17;
        let xs = data(n);
        let good = running(&xs, n);
        assert!(scan(&good, &xs, Sums::Exact).is_none());
        for at in [0, CHUNK - 1, CHUNK, 2 * CHUNK + 5, n - 1] {
            let mut bad = good.clone();
            bad[at] += 1.0;
            let f = scan(&bad, &xs, Sums::Exact).expect("the wrong element is found");
            assert_eq!((f.at, f.count), (at, 1), "{}", f.what);
        }
        let rows = running(&xs[..4096 * 5], 4096);
        assert!(scan_rows(&rows, &xs[..4096 * 5], 4096, Sums::Exact).is_none());
        let mut bad = rows.clone();
        bad[4096 * 3] = -bad[4096 * 3] + 0.5;
        assert_eq!(
            scan_rows(&bad, &xs[..4096 * 5], 4096, Sums::Exact).map(|f| f.at),
            Some(4096 * 3)
        );
        assert!(
            scan(&good[1..], &xs, Sums::Exact).is_some(),
            "a missing element"
        );
    }

    #[test]
    fn integer_scans_and_bits_find_one_wrong_element() {
        let n = 2 * CHUNK + 3;
        let ys: Vec<i32> = (0..n as i32)
            .map(|i| i.wrapping_mul(0x9e37_79b9u32 as i32))
            .collect();
        let good: Vec<i32> = ys
            .iter()
            .scan(0i32, |a, &y| {
                *a = a.wrapping_add(y);
                Some(*a)
            })
            .collect();
        assert!(scan_i32(&good, &ys).is_none());
        let mut bad = good.clone();
        bad[CHUNK + 1] ^= 1;
        assert_eq!(
            scan_i32(&bad, &ys).map(|f| (f.at, f.count)),
            Some((CHUNK + 1, 1))
        );
        let zeros = [0.0f32, -0.0];
        assert!(
            bitwise(&zeros, &[0.0, 0.0]).is_some_and(|f| f.at == 1),
            "-0.0 is not 0.0"
        );
    }
}
