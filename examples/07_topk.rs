//! Top-k and bottom-k: the k largest or smallest elements with their indices, sorted, on the
//! GPU when there is one (checked against the CPU backend), else on the CPU backend; and the
//! top-k along the middle axis of a 3-d shape (checked against plain Rust).
//!
//!     cargo run --release --example 07_topk

use warp_runtime::prelude::*;

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let n = 10_000_000usize;
    let mut s = 0x9e3779b97f4a7c15u64;
    let mut xs: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        })
        .collect();
    xs[123] = f32::NAN; // NaN is above +inf: first in top_k, last in bottom_k
    xs[456] = 0.75;
    xs[789] = 0.75; // a tie: the smaller index first
    let d = dev.upload(&xs)?;

    let TopK { values, indices } = dev.top_k(&d, 5)?; // one read of the input on a GPU
    println!(
        "top 5:    {:?} at {:?}",
        values.download()?,
        indices.download()?
    );
    let low = dev.bottom_k(&d, 5)?;
    println!(
        "bottom 5: {:?} at {:?}",
        low.values.download()?,
        low.indices.download()?
    );

    let cpu = Device::cpu();
    let c = cpu.upload(&xs)?;
    for k in [1usize, 100, 1000, 1024] {
        let (g, want) = (dev.top_k(&d, k)?, cpu.top_k(&c, k)?);
        assert_eq!(
            g.indices.download()?,
            want.indices.download()?,
            "top_k k={k}"
        );
        let (g, want) = (dev.bottom_k(&d, k)?, cpu.bottom_k(&c, k)?);
        assert_eq!(
            g.indices.download()?,
            want.indices.download()?,
            "bottom_k k={k}"
        );
    }
    assert!(matches!(
        dev.top_k(&d.slice(..10)?, 11),
        Err(Error::KExceedsLength { k: 11, len: 10 })
    ));
    println!("top_k and bottom_k for k = 1, 100, 1000, 1024 match the CPU backend");

    // The top 3 along the middle axis of the first 8 x 1000 x 16 elements (torch.topk(x, 3,
    // dim=1)): a result of shape (8, 3, 16), each entry's index along the axis in `columns`.
    let (b, m, w, k) = (8usize, 1000usize, 16usize, 3usize);
    let x = d.slice(..b * m * w)?;
    let best = dev.top_k_axis(&x, &[b, m, w], 1, k)?;
    let (values, columns) = (best.values.download()?, best.columns.download()?);
    for o in 0..b {
        for i in 0..w {
            // Plain Rust: the line's positions by value, largest first (total_cmp: the one NaN
            // first; this data has no -0.0), ties by the smaller position.
            let line: Vec<f32> = (0..m).map(|j| xs[(o * m + j) * w + i]).collect();
            let mut order: Vec<usize> = (0..m).collect();
            order.sort_by(|&p, &q| line[q].total_cmp(&line[p]).then(p.cmp(&q)));
            for (j, &p) in order[..k].iter().enumerate() {
                let at = (o * k + j) * w + i;
                assert_eq!(
                    columns[at] as usize, p,
                    "top_k_axis line ({o}, {i}) entry {j}"
                );
                assert_eq!(values[at].to_bits(), line[p].to_bits());
            }
        }
    }
    println!("top_k_axis along the middle axis of (8, 1000, 16) matches plain Rust");
    Ok(())
}
