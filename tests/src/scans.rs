//! The plain-iterator references of the segmented scans that the CPU and GPU scan tests
//! compare with.

/// Inclusive and exclusive running folds of each segment `bounds[s]..bounds[s + 1]`, by plain
/// iterators.
pub fn running<T: Copy>(
    xs: &[T],
    bounds: &[usize],
    id: T,
    f: impl Fn(T, T) -> T,
) -> (Vec<T>, Vec<T>) {
    let (mut incl, mut excl) = (Vec::with_capacity(xs.len()), Vec::with_capacity(xs.len()));
    for w in bounds.windows(2) {
        let mut acc = id;
        for &x in &xs[w[0]..w[1]] {
            excl.push(acc);
            acc = f(acc, x);
            incl.push(acc);
        }
    }
    (incl, excl)
}

/// The row bounds of `n` elements in rows of `cols` (whole rows only).
pub fn rows_bounds(n: usize, cols: usize) -> Vec<usize> {
    (0..=n / cols).map(|r| r * cols).collect()
}
