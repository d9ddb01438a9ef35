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

/// An input for the exact tile sums of float sums' scans (`ScanMode::ExactSum`): `tiles` block
/// tiles of `block_tile` zeros, but for one term at each tile's last element (an integer below
/// 2^24 in magnitude times 2^k, |k| <= 8: an f32, and every partial sum of up to 8192 of them
/// is exact in f64). Returns it with what the inclusive scan must give at each tile's first
/// element: the correctly rounded sum of the terms of the tiles before it (0.0 for tile 0).
/// Panics unless a sequential f32 fold of the terms differs from that somewhere, so that a scan
/// which folds tile aggregates in order (rounding at each step) cannot pass.
pub fn one_term_a_tile(seed: u64, tiles: usize, block_tile: usize) -> (Vec<f32>, Vec<f32>) {
    use rand::Rng;
    assert!(tiles <= 8192, "partial sums must stay exact in f64");
    let mut r = crate::rng(seed);
    let mut xs = vec![0.0f32; tiles * block_tile];
    let (mut exact, mut sequential) = (0f64, 0f32);
    let (mut want, mut differs) = (Vec::with_capacity(tiles), false);
    for t in 0..tiles {
        want.push(exact as f32);
        differs |= (exact as f32).to_bits() != sequential.to_bits();
        let x = (r.random_range(-(1i32 << 24) + 1..1 << 24) as f64
            * 2f64.powi(r.random_range(-8..=8))) as f32;
        xs[(t + 1) * block_tile - 1] = x;
        exact += x as f64;
        sequential += x;
    }
    assert!(
        differs || tiles < 64,
        "the terms must tell a sequential fold from an exact sum"
    );
    (xs, want)
}
