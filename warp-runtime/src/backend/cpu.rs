//! The CPU backend: every operation computed with the user's Rust functions (their CPU
//! evaluation copies, which compute what the GPU computes where Rust would panic), in parallel
//! with rayon, in a fixed chunking so results do not depend on the thread count. Each function
//! reads elements through `value(element, index)`, which applies the input's map or makes its
//! `(element, index)` pairs, and folds with an operator given as its identity and combine.

use rayon::prelude::*;

/// A reduction operator on the CPU: its identity and its combine (the user's function).
pub(crate) trait Fold<V>: Sync {
    /// The identity.
    fn identity(&self) -> V;
    /// The combine.
    fn combine(&self, a: V, b: V) -> V;
}

/// Elements folded sequentially by one task of a CPU reduction: results are combined chunk
/// by chunk in this fixed chunking, whatever the thread count.
pub const CHUNK: usize = 1 << 16;

/// The values of `data` (element, index in `data`), in order: a map.
pub(crate) fn values<E: Copy + Sync, V: Send>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
) -> Vec<V> {
    data.par_iter()
        .enumerate()
        .map(|(i, &e)| value(e, i as u64))
        .collect()
}

/// Folds the values of `data` with `op`: each chunk from the identity, then the chunk results
/// in order.
pub(crate) fn reduce<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
) -> V {
    let partials: Vec<V> = data
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(ci, c)| {
            let base = (ci * CHUNK) as u64;
            c.iter().enumerate().fold(op.identity(), |a, (j, &x)| {
                op.combine(a, value(x, base + j as u64))
            })
        })
        .collect();
    partials
        .into_iter()
        .fold(op.identity(), |a, x| op.combine(a, x))
}

/// How many values satisfy `keep`.
pub(crate) fn count<E: Copy + Sync, V>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    keep: impl Fn(V) -> bool + Sync,
) -> u64 {
    data.par_iter()
        .enumerate()
        .filter(|&(i, &e)| keep(value(e, i as u64)))
        .count() as u64
}

/// Whether any value satisfies `keep`.
pub(crate) fn any<E: Copy + Sync, V>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    keep: impl Fn(V) -> bool + Sync,
) -> bool {
    data.par_iter()
        .enumerate()
        .any(|(i, &e)| keep(value(e, i as u64)))
}

/// The index of the first value satisfying `keep`.
pub(crate) fn find_first<E: Copy + Sync, V>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    keep: impl Fn(V) -> bool + Sync,
) -> Option<usize> {
    data.par_iter()
        .enumerate()
        .position_first(|(i, &e)| keep(value(e, i as u64)))
}

/// One bit per value, set where `keep` holds: word `w` holds values `32w..32w+32`.
pub(crate) fn mask<E: Copy + Sync, V>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    keep: impl Fn(V) -> bool + Sync,
) -> Vec<u32> {
    data.par_chunks(32)
        .enumerate()
        .map(|(w, c)| {
            c.iter().enumerate().fold(0u32, |word, (j, &e)| {
                word | ((keep(value(e, (w * 32 + j) as u64)) as u32) << j)
            })
        })
        .collect()
}

/// What `out` makes of the values satisfying `keep` and, when `partition`, of the others, each
/// in input order.
pub(crate) fn compact<E: Copy + Sync, V: Copy + Send + Sync, K: Send>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    keep: impl Fn(V) -> bool + Sync,
    out: impl Fn(V) -> K + Sync,
    partition: bool,
) -> (Vec<K>, Option<Vec<K>>) {
    let values = values(data, value);
    let kept = values
        .par_iter()
        .copied()
        .filter(|&v| keep(v))
        .map(&out)
        .collect();
    let rejected = partition.then(|| {
        values
            .par_iter()
            .copied()
            .filter(|&v| !keep(v))
            .map(&out)
            .collect()
    });
    (kept, rejected)
}

/// What `out` makes of the values `first` keeps, of those it rejects and `second` keeps, and
/// of the others, each in input order.
pub(crate) fn partition3<E: Copy + Sync, V: Copy + Send + Sync, K: Send>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    first: impl Fn(V) -> bool + Sync,
    second: impl Fn(V) -> bool + Sync,
    out: impl Fn(V) -> K + Sync,
) -> [Vec<K>; 3] {
    let values = values(data, value);
    let part = |v: V| {
        if first(v) {
            0
        } else if second(v) {
            1
        } else {
            2
        }
    };
    let pick = |k: usize| -> Vec<K> {
        values
            .par_iter()
            .copied()
            .filter(|&v| part(v) == k)
            .map(&out)
            .collect()
    };
    [pick(0), pick(1), pick(2)]
}

/// The inclusive (or exclusive) scan of the values with `op`, combined in order; with `init`,
/// each output is `op(init, its scan)`.
pub(crate) fn scan<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    exclusive: bool,
    init: Option<V>,
) -> Vec<V> {
    let scan = running(op, data, 0, &value, exclusive);
    match init {
        Some(init) => scan.map(|y| op.combine(init, y)).collect(),
        None => scan.collect(),
    }
}

/// The running fold of `data` (whose first element has index `base`), in order: inclusive, or
/// exclusive (the identity first).
fn running<'a, V: Copy + 'a, E: Copy>(
    op: &'a impl Fold<V>,
    data: &'a [E],
    base: usize,
    value: &'a (impl Fn(E, u64) -> V + Sync),
    exclusive: bool,
) -> impl Iterator<Item = V> + 'a {
    let mut acc = op.identity();
    data.iter().enumerate().map(move |(i, &e)| {
        let before = acc;
        acc = op.combine(acc, value(e, (base + i) as u64));
        if exclusive { before } else { acc }
    })
}

fn fold<V>(op: &impl Fold<V>, values: impl Iterator<Item = V>) -> V {
    values.fold(op.identity(), |a, x| op.combine(a, x))
}

/// One value per row of the `cols`-column row-major matrix of values.
pub(crate) fn reduce_rows<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    cols: usize,
) -> Vec<V> {
    data.par_chunks(cols)
        .enumerate()
        .map(|(r, row)| {
            let base = r * cols;
            fold(
                op,
                row.iter()
                    .enumerate()
                    .map(|(c, &e)| value(e, (base + c) as u64)),
            )
        })
        .collect()
}

/// One value per column of `batches` row-major matrices of `cols` columns one after the other
/// (batch by batch; one batch for a plain matrix).
pub(crate) fn reduce_cols<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    cols: usize,
    batches: usize,
) -> Vec<V> {
    let rows = data.len().checked_div(cols * batches).unwrap_or(0);
    (0..cols * batches)
        .into_par_iter()
        .map(|c| {
            let base = (c / cols) * rows * cols + c % cols;
            fold(
                op,
                (0..rows).map(|r| value(data[base + r * cols], (base + r * cols) as u64)),
            )
        })
        .collect()
}

/// The scan of each line along the middle axis of the `(batches, rows, cols)` row-major array
/// of values (`cols > 0`), in each line's order: one value per element, in place.
pub(crate) fn scan_cols<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    (rows, cols): (usize, usize),
    exclusive: bool,
) -> Vec<V> {
    let mut out = vec![op.identity(); data.len()];
    if rows * cols == 0 {
        return out;
    }
    // Each batch (rows x cols) scanned column by column, batches in parallel.
    out.par_chunks_mut(rows * cols)
        .zip(data.par_chunks(rows * cols))
        .enumerate()
        .for_each(|(b, (o, d))| {
            for c in 0..cols {
                let mut acc = op.identity();
                for r in 0..rows {
                    let k = r * cols + c;
                    let next = op.combine(acc, value(d[k], (b * rows * cols + k) as u64));
                    o[k] = if exclusive { acc } else { next };
                    acc = next;
                }
            }
        });
    out
}

/// One value per CSR segment `offsets[s]..offsets[s + 1]` (offsets already checked).
pub(crate) fn reduce_segments<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    offsets: &[u64],
) -> Vec<V> {
    offsets
        .par_windows(2)
        .map(|w| {
            let (lo, hi) = (w[0] as usize, w[1] as usize);
            fold(op, (lo..hi).map(|i| value(data[i], i as u64)))
        })
        .collect()
}

/// The transposes of the `rows x cols` row-major matrices of `m` (stored one after another),
/// in the same order, made in one pass.
pub(crate) fn transpose<T: Copy + Send + Sync>(m: &[T], rows: usize, cols: usize) -> Vec<T> {
    let size = rows * cols;
    (0..m.len())
        .into_par_iter()
        .map(|i| {
            let (b, j) = (i / size, i % size);
            m[b * size + (j % rows) * cols + j / rows]
        })
        .collect()
}

/// Where the runs of `keys` start: index 0 and every `i` whose key is not `same` as the one
/// before it (`same(keys[i - 1], keys[i])`), in order.
pub(crate) fn run_heads<K: Copy + Sync>(
    keys: &[K],
    same: impl Fn(K, K) -> bool + Sync,
) -> Vec<usize> {
    (0..keys.len())
        .into_par_iter()
        .filter(|&i| i == 0 || !same(keys[i - 1], keys[i]))
        .collect()
}

/// The length of each run, from its start (`heads`, as [`run_heads`] finds them) to the next
/// one's or `n`.
pub(crate) fn run_lengths(heads: &[usize], n: usize) -> Vec<u64> {
    heads
        .iter()
        .enumerate()
        .map(|(r, &h)| (heads.get(r + 1).copied().unwrap_or(n) - h) as u64)
        .collect()
}

/// Each run's values folded with `op` from the identity, in order.
pub(crate) fn run_folds<V: Copy + Send + Sync>(
    op: &impl Fold<V>,
    heads: &[usize],
    values: &[V],
) -> Vec<V> {
    (0..heads.len())
        .into_par_iter()
        .map(|r| {
            let end = heads.get(r + 1).copied().unwrap_or(values.len());
            fold(op, values[heads[r]..end].iter().copied())
        })
        .collect()
}

/// The scan of each row of the `cols`-column row-major matrix of values (a running fold that
/// restarts at each row), one value per element.
pub(crate) fn scan_rows<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    cols: usize,
    exclusive: bool,
) -> Vec<V> {
    data.par_chunks(cols)
        .enumerate()
        .flat_map_iter(|(r, row)| running(op, row, r * cols, &value, exclusive))
        .collect()
}

/// The scan of each CSR segment `offsets[s]..offsets[s + 1]` (offsets already checked to cover
/// `data`), one value per element.
pub(crate) fn scan_segments<V: Copy + Send + Sync, E: Copy + Sync>(
    op: &impl Fold<V>,
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    offsets: &[u64],
    exclusive: bool,
) -> Vec<V> {
    offsets
        .par_windows(2)
        .flat_map_iter(|w| {
            let (lo, hi) = (w[0] as usize, w[1] as usize);
            running(op, &data[lo..hi], lo, &value, exclusive)
        })
        .collect()
}

/// The stable permutation that sorts `data` by `key` (descending: the largest key first,
/// equal keys still in input order): element `i` is the position of the `i`-th key.
pub(crate) fn sort_permutation<T: Copy + Send + Sync>(
    data: &[T],
    key: impl Fn(T) -> u64 + Sync,
    descending: bool,
) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..data.len()).collect();
    if descending {
        perm.par_sort_by_key(|&i| std::cmp::Reverse(key(data[i])));
    } else {
        perm.par_sort_by_key(|&i| key(data[i]));
    }
    perm
}

/// Each row's stable sorting permutation (`cols` columns, `data` a whole number of rows):
/// element `i` of row `r` is the column of the row's `i`-th key by `key` (descending: the
/// largest first, equal keys still in column order). Rows in parallel.
pub(crate) fn sort_rows_permutation<T: Copy + Send + Sync>(
    data: &[T],
    cols: usize,
    key: impl Fn(T) -> u64 + Sync,
    descending: bool,
) -> Vec<u32> {
    let mut perm = vec![0u32; data.len()];
    perm.par_chunks_mut(cols)
        .zip(data.par_chunks(cols))
        .for_each(|(p, row)| permute_sorted(p, row, &key, descending));
    perm
}

/// Each CSR segment's stable sorting permutation (`offsets` checked: from 0 to `data.len()`,
/// non-decreasing), as [`sort_rows_permutation`] gives each row's. Segments in parallel.
pub(crate) fn sort_segments_permutation<T: Copy + Send + Sync>(
    data: &[T],
    offsets: &[u64],
    key: impl Fn(T) -> u64 + Sync,
    descending: bool,
) -> Vec<u32> {
    let mut perm = vec![0u32; data.len()];
    let mut parts = Vec::with_capacity(offsets.len().saturating_sub(1));
    let mut rest = &mut perm[..];
    for w in offsets.windows(2) {
        let (a, b) = rest.split_at_mut((w[1] - w[0]) as usize);
        parts.push((a, &data[w[0] as usize..w[1] as usize]));
        rest = b;
    }
    parts
        .into_par_iter()
        .for_each(|(p, seg)| permute_sorted(p, seg, &key, descending));
    perm
}

/// `p` (as long as `keys`) set to the stable permutation that sorts `keys` by `key`.
fn permute_sorted<T: Copy>(p: &mut [u32], keys: &[T], key: impl Fn(T) -> u64, descending: bool) {
    p.iter_mut().enumerate().for_each(|(c, x)| *x = c as u32);
    if descending {
        p.sort_by_key(|&c| std::cmp::Reverse(key(keys[c as usize])));
    } else {
        p.sort_by_key(|&c| key(keys[c as usize]));
    }
}

/// The `k` (at most `data.len()`) largest elements of `data` by `key` (the smallest when
/// `largest` is false: the largest complemented keys), best first, ties to the smaller index;
/// with their indices. Each chunk keeps its best `k` and the chunks' bests are merged, so the
/// memory used is about `k` entries per task, whatever the input's length.
pub(crate) fn top_k<T: Copy + Send + Sync>(
    data: &[T],
    k: usize,
    largest: bool,
    key: impl Fn(T) -> u64 + Sync,
    key_bits: u32,
) -> (Vec<T>, Vec<u64>) {
    if k == 0 {
        return (Vec::new(), Vec::new());
    }
    let mask = u64::MAX >> (64 - key_bits);
    // One total order (key descending, then index ascending): every element has one place,
    // so the chunks' bests merge to the same k in any order.
    let best_first = |a: &(u64, u64), b: &(u64, u64)| b.0.cmp(&a.0).then(a.1.cmp(&b.1));
    let keep = |mut v: Vec<(u64, u64)>| {
        if v.len() > k {
            v.select_nth_unstable_by(k - 1, best_first);
            v.truncate(k);
        }
        v
    };
    let mut entries = data
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(ci, c)| {
            let base = (ci * CHUNK) as u64;
            // At most 2k entries at a time: trimmed back to the best k whenever full.
            let mut best = Vec::with_capacity((2 * k).min(c.len()));
            for (j, &x) in c.iter().enumerate() {
                let kx = key(x);
                best.push((if largest { kx } else { !kx & mask }, base + j as u64));
                if best.len() == 2 * k {
                    best = keep(best);
                }
            }
            keep(best)
        })
        .reduce(Vec::new, |mut a, b| {
            a.extend(b);
            keep(a)
        });
    entries.sort_unstable_by(best_first);
    entries.iter().map(|&(_, i)| (data[i as usize], i)).unzip()
}

/// How many values of `data` fall in each of `bins` bins (`bin`: a value's bin, or `None` to
/// drop it): exact counts (callers wrap them to their counter type), so the order in which
/// the tasks' partial counts are summed does not matter.
pub(crate) fn histogram<E: Copy + Sync, V>(
    data: &[E],
    value: impl Fn(E, u64) -> V + Sync,
    bin: impl Fn(V) -> Option<usize> + Sync,
    bins: usize,
) -> Vec<u64> {
    data.par_chunks(CHUNK)
        .enumerate()
        .fold(
            || vec![0u64; bins],
            |mut counts, (ci, c)| {
                let base = (ci * CHUNK) as u64;
                for (j, &x) in c.iter().enumerate() {
                    if let Some(b) = bin(value(x, base + j as u64)) {
                        counts[b] += 1;
                    }
                }
                counts
            },
        )
        .reduce(
            || vec![0u64; bins],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a
            },
        )
}

/// The sums of the weights of the values of `data` in each of `bins` bins (`weights[i]` the
/// weight of element `i`; values `bin` maps to no bin dropped), added with `add` from `zero`
/// (chunks in parallel, then their sums: floats in no fixed order).
pub(crate) fn histogram_weighted<E: Copy + Sync, V, W: Copy + Send + Sync>(
    data: &[E],
    weights: &[W],
    value: impl Fn(E, u64) -> V + Sync,
    bin: impl Fn(V) -> Option<usize> + Sync,
    (bins, zero, add): (usize, W, impl Fn(W, W) -> W + Sync),
) -> Vec<W> {
    data.par_chunks(CHUNK)
        .zip(weights.par_chunks(CHUNK))
        .enumerate()
        .fold(
            || vec![zero; bins],
            |mut sums, (ci, (c, w))| {
                let base = (ci * CHUNK) as u64;
                for (j, (&x, &wt)) in c.iter().zip(w).enumerate() {
                    if let Some(b) = bin(value(x, base + j as u64)) {
                        sums[b] = add(sums[b], wt);
                    }
                }
                sums
            },
        )
        .reduce(
            || vec![zero; bins],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, &y)| *x = add(*x, y));
                a
            },
        )
}

/// The stable permutation that sorts `data` by `less` (whether a key sorts before another):
/// runs of 32 sorted by insertion, then merged in pairs (runs in parallel), taking from the
/// later run only a key less than the earlier run's. Never panics, whatever `less` does (an
/// order that is not a strict weak order gives some permutation).
pub(crate) fn merge_sort_permutation<T: Copy + Send + Sync>(
    data: &[T],
    less: impl Fn(T, T) -> bool + Sync,
) -> Vec<u32> {
    const RUN: usize = 32;
    let mut perm: Vec<u32> = (0..data.len() as u32).collect();
    perm.par_chunks_mut(RUN).for_each(|run| {
        for j in 1..run.len() {
            let mut i = j;
            while i > 0 && less(data[run[i] as usize], data[run[i - 1] as usize]) {
                run.swap(i, i - 1);
                i -= 1;
            }
        }
    });
    let mut other = vec![0u32; perm.len()];
    let mut width = RUN;
    while width < perm.len() {
        other
            .par_chunks_mut(2 * width)
            .zip(perm.par_chunks(2 * width))
            .for_each(|(dst, src)| {
                let (a, b) = src.split_at(width.min(src.len()));
                let (mut i, mut j) = (0, 0);
                for d in dst.iter_mut() {
                    let take_b = j < b.len()
                        && (i == a.len() || less(data[b[j] as usize], data[a[i] as usize]));
                    if take_b {
                        *d = b[j];
                        j += 1;
                    } else {
                        *d = a[i];
                        i += 1;
                    }
                }
            });
        std::mem::swap(&mut perm, &mut other);
        width *= 2;
    }
    perm
}
