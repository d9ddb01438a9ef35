//! Plain scatters (`scatter_into`) against a plain loop: one check for both backends.

use rand::{Rng, SeedableRng, rngs::StdRng, seq::SliceRandom};
use warp_runtime::prelude::*;

/// `scatter_into` of `n <= len` random values to distinct random places of `len` (`f32` with a
/// NaN and a `-0.0`, `u8`, `f64`, `i64`; `u32` and `u64` indices; a view of the values): each
/// place an index names holds its value bit for bit, the others keep their contents. Then
/// indices that repeat: each place holds one of the values whose index names it. An index at
/// `len` is an error found before anything is written; values and indices of different lengths
/// are an error.
pub fn check_scatter(dev: &Device, n: usize, len: usize, seed: u64) {
    assert!(n <= len);
    let tag = format!("n={n} len={len} seed={seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut places: Vec<u32> = (0..len as u32).collect();
    places.shuffle(&mut rng);
    let idx: Vec<u32> = places[..n].to_vec();
    let idx64: Vec<u64> = idx.iter().map(|&i| i as u64).collect();
    let (di, di64) = (dev.upload(&idx).unwrap(), dev.upload(&idx64).unwrap());
    let plain = |start: Vec<f32>, vals: &[f32]| {
        let mut want = start;
        for (&i, &v) in idx.iter().zip(vals) {
            want[i as usize] = v;
        }
        want
    };
    // f32, bit for bit (NaN and -0.0 among the values).
    let mut fv: Vec<f32> = (0..n).map(|_| rng.random_range(-1e6f32..1e6)).collect();
    if n > 2 {
        fv[0] = f32::NAN;
        fv[1] = -0.0;
    }
    let fstart: Vec<f32> = (0..len).map(|k| k as f32 + 0.5).collect();
    let want = plain(fstart.clone(), &fv);
    let df = dev.upload(&fv).unwrap();
    let mut out = dev.upload(&fstart).unwrap();
    dev.scatter_into(&df, &di, &mut out).unwrap();
    let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
    assert_eq!(
        bits(out.download().unwrap()),
        bits(want.clone()),
        "f32 {tag}"
    );
    // The same through u64 indices, the values a view of a longer array.
    let mut longer = vec![9.0f32];
    longer.extend_from_slice(&fv);
    let dl = dev.upload(&longer).unwrap();
    let mut out = dev.upload(&fstart).unwrap();
    dev.scatter_into(&dl.slice(1..).unwrap(), &di64, &mut out)
        .unwrap();
    assert_eq!(
        bits(out.download().unwrap()),
        bits(want),
        "f32 view, u64 {tag}"
    );
    // Other element types.
    macro_rules! typed {
        ($t:ty, $what:literal) => {{
            let vals: Vec<$t> = (0..n).map(|_| rng.random()).collect();
            let start: Vec<$t> = (0..len).map(|_| rng.random()).collect();
            let mut want = start.clone();
            for (&i, &v) in idx.iter().zip(&vals) {
                want[i as usize] = v;
            }
            let dv = dev.upload(&vals).unwrap();
            let mut out = dev.upload(&start).unwrap();
            dev.scatter_into(&dv, &di64, &mut out).unwrap();
            assert_eq!(out.download().unwrap(), want, "{} {tag}", $what);
        }};
    }
    typed!(u8, "u8");
    typed!(f64, "f64");
    typed!(i64, "i64");
    // Indices that repeat: one of each place's values lands.
    let rep: Vec<u32> = (0..n)
        .map(|_| rng.random_range(0..len.div_ceil(4) as u32))
        .collect();
    let vals: Vec<i64> = (0..n as i64).map(|k| k * 7 + 1).collect();
    let start: Vec<i64> = vec![-1; len];
    let (dr, dv) = (dev.upload(&rep).unwrap(), dev.upload(&vals).unwrap());
    let mut out = dev.upload(&start).unwrap();
    dev.scatter_into(&dv, &dr, &mut out).unwrap();
    let got = out.download().unwrap();
    let mut named: Vec<Vec<i64>> = vec![Vec::new(); len];
    for (&i, &v) in rep.iter().zip(&vals) {
        named[i as usize].push(v);
    }
    for (k, (g, vs)) in got.iter().zip(&named).enumerate() {
        if vs.is_empty() {
            assert_eq!(*g, -1, "place {k} no index names kept {tag}");
        } else {
            assert!(
                vs.contains(g),
                "place {k} holds {g}, not one of its values {tag}"
            );
        }
    }
    if !dev.is_gpu() {
        // The CPU backend: the last in input order.
        for (k, vs) in named.iter().enumerate() {
            if let Some(&last) = vs.last() {
                assert_eq!(got[k], last, "cpu: the last value at {k} {tag}");
            }
        }
    }
    // An index at `len`: nothing written.
    if n > 0 {
        let mut bad = idx.clone();
        let p = n / 2;
        bad[p] = len as u32;
        let db = dev.upload(&bad).unwrap();
        let mut out = dev.upload(&fstart).unwrap();
        match dev.scatter_into(&df, &db, &mut out) {
            Err(Error::IndexOutOfRange {
                position,
                index,
                len: l,
            }) => assert_eq!((position, index, l), (p, len as u64, len), "fault {tag}"),
            other => panic!("an index past the end {tag}: {other:?}"),
        }
        assert_eq!(out.download().unwrap(), fstart, "nothing written {tag}");
    }
    let short = dev.upload(&vec![0u32; n + 1]).unwrap();
    let mut out = dev.upload(&fstart).unwrap();
    assert!(
        matches!(
            dev.scatter_into(&df, &short, &mut out),
            Err(Error::Shape(_))
        ),
        "lengths {tag}"
    );
}
