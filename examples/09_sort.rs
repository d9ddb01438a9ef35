//! Sorting: keys, keys with values, argsort, the rows of a matrix, CSR segments, a sort by a
//! Rust comparator and one of structs by a comparator of two of them, ascending and descending,
//! stable, floats in `total_cmp` order; on the GPU when there is one (checked against the CPU backend), else on
//! the CPU backend.
//!
//!     cargo run --release --example 09_sort

use warp_runtime::prelude::*;

/// Whether `a` is nearer `to` than `b` is: an order no key gives, sorted by a merge sort.
#[predicate(inputs = 2)]
fn nearer(a: f32, b: f32, to: f32) -> bool {
    (a - to).abs() < (b - to).abs()
}

/// A point of the plane, sorted whole.
#[derive(DeviceValue, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Point {
    x: f32,
    y: f32,
}

/// Whether `a` is nearer the origin than `b`.
#[predicate(inputs = 2)]
fn nearer_origin(a: Point, b: Point) -> bool {
    a.x * a.x + a.y * a.y < b.x * b.x + b.y * b.y
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let n = 10_000_000usize;
    let mut s = 0x9e3779b97f4a7c15u64;
    let mut xs: Vec<f32> = (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0).round() // many ties
        })
        .collect();
    xs[7] = f32::NAN; // positive NaN: last ascending
    xs[8] = -0.0; // before +0.0
    let d = dev.upload(&xs)?;

    let sorted = dev.sort(&d, SortOrder::Ascending)?.download()?;
    println!("first keys {:?}, last {:?}", &sorted[..3], &sorted[n - 2..]);
    let order = dev.argsort(&d, SortOrder::Descending)?.download()?; // u32 positions
    println!("largest first: positions {:?}", &order[..4]);

    // Values move with their keys; equal keys keep their input order.
    let tags: Vec<u64> = (0..n as u64).collect();
    let (k, v) = dev.sort_pairs(&d, &dev.upload(&tags)?, SortOrder::Ascending)?;

    let cpu = Device::cpu();
    let c = cpu.upload(&xs)?;
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(
        bits(&sorted),
        bits(&cpu.sort(&c, SortOrder::Ascending)?.download()?)
    );
    assert_eq!(order, cpu.argsort(&c, SortOrder::Descending)?.download()?);
    assert_eq!(bits(&k.download()?), bits(&sorted));
    assert_eq!(
        v.download()?,
        cpu.argsort(&c, SortOrder::Ascending)?
            .download()?
            .into_iter()
            .map(u64::from)
            .collect::<Vec<_>>()
    );
    // Zipped arrays move as rows: (tag, key's sign) of each sorted key.
    let signs: Vec<i8> = xs.iter().map(|x| x.signum() as i8).collect();
    let (dt, ds) = (dev.upload(&tags)?, dev.upload(&signs)?);
    let (_, rows) = dev.sort_pairs(&d, &(&dt, &ds), SortOrder::Ascending)?;
    let rows = rows.download()?;
    assert!(
        rows.iter()
            .zip(v.download()?)
            .all(|(r, t)| r.0 == t && r.1 == signs[t as usize])
    );
    println!("sort, argsort and sort_pairs of {n} f32 keys match the CPU backend");

    // Each row of a matrix on its own: 10,000 rows of 1,000 keys, the best columns first.
    let cols = 1000;
    let rows = dev.sort_rows(&d, cols, SortOrder::Ascending)?.download()?;
    let best = dev
        .argsort_rows(&d, cols, SortOrder::Descending)?
        .download()?;
    println!("row 0's best columns {:?}", &best[..4]);
    assert_eq!(
        bits(&rows),
        bits(&cpu.sort_rows(&c, cols, SortOrder::Ascending)?.download()?)
    );
    assert_eq!(
        best,
        cpu.argsort_rows(&c, cols, SortOrder::Descending)?
            .download()?
    );
    println!(
        "sort_rows and argsort_rows of {} rows match the CPU backend",
        n / cols
    );

    // CSR segments of uneven lengths (0 to 5,000 keys): each sorted on its own.
    let mut offsets = vec![0u64];
    while *offsets.last().unwrap() < n as u64 {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let len = [0, 3, 40, 700, 5000][(s % 5) as usize];
        offsets.push((*offsets.last().unwrap() + len).min(n as u64));
    }
    let (go, co) = (dev.upload(&offsets)?, cpu.upload(&offsets)?);
    let segs = dev
        .sort_segments(&d, &go, SortOrder::Ascending)?
        .download()?;
    let pos = dev.argsort_segments(&d, &go, SortOrder::Descending)?;
    assert_eq!(
        bits(&segs),
        bits(
            &cpu.sort_segments(&c, &co, SortOrder::Ascending)?
                .download()?
        )
    );
    assert_eq!(
        pos.download()?,
        cpu.argsort_segments(&c, &co, SortOrder::Descending)?
            .download()?
    );
    println!(
        "sort_segments and argsort_segments of {} segments match the CPU backend",
        offsets.len() - 1
    );

    // By a comparator written in Rust: nearest to 0.25 first, stable. A comparator of floats
    // is a strict weak order only without NaNs (a NaN is incomparable with every key), so the
    // NaN is left out: then both backends give the one stable order.
    let finite: Vec<f32> = xs
        .iter()
        .map(|&x| if x.is_nan() { 0.5 } else { x })
        .collect();
    let (df, cf) = (dev.upload(&finite)?, cpu.upload(&finite)?);
    let near = dev.sort_by(nearer.with(0.25), &df)?.download()?;
    assert_eq!(
        bits(&near),
        bits(&cpu.sort_by(nearer.with(0.25), &cf)?.download()?)
    );
    println!("sort_by(nearer.with(0.25)) starts {:?}", &near[..3]);

    // Structs sorted whole by a comparator of two of them (a DeviceTuples in and out).
    let points: Vec<Point> = finite
        .chunks_exact(2)
        .take(1_000_000)
        .map(|c| Point {
            x: c[0],
            y: c[1] * 0.5,
        })
        .collect();
    let (dp, cp) = (dev.upload_values(&points)?, cpu.upload_values(&points)?);
    let by_radius = dev.sort_by(nearer_origin, &dp)?.download()?;
    assert_eq!(by_radius, cpu.sort_by(nearer_origin, &cp)?.download()?);
    let order = dev.argsort_by(nearer_origin, &dp)?.download()?;
    assert_eq!(points[order[0] as usize], by_radius[0]);
    println!(
        "{} points by radius: nearest {:?}, farthest {:?}",
        points.len(),
        by_radius[0],
        by_radius[points.len() - 1]
    );
    Ok(())
}
