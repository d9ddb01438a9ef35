//! `#[derive(DeviceValue)]` structs: field access and struct literals in bodies, a Welford
//! mean and variance as a struct, arrays of structs and tuples uploaded and downloaded, the C
//! layout (padding between fields of different sizes), all on the CPU backend against plain
//! Rust. (The GPU runs the same in gpu/structs.rs.)

use warp_runtime::prelude::*;

/// Welford's state: how many, their mean, the sum of squared deviations from it.
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Welford {
    count: f32,
    mean: f32,
    m2: f32,
}

/// Fields of mixed sizes: C puts padding after `flag` and `tag`.
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Mixed {
    flag: bool,
    value: f64,
    tag: u16,
    h: f16,
    n: u32,
}

#[map]
fn one(x: f32) -> Welford {
    Welford {
        count: 1.0,
        mean: x,
        m2: 0.0,
    }
}

#[reduce(identity = Welford { count: 0.0, mean: 0.0, m2: 0.0 })]
fn merge(a: Welford, b: Welford) -> Welford {
    let n = a.count + b.count;
    if n == 0.0 {
        a
    } else {
        let delta = b.mean - a.mean;
        let r = 1.0 / n;
        Welford {
            mean: a.mean + delta * (b.count * r),
            m2: a.m2 + b.m2 + delta * delta * (a.count * b.count * r),
            count: n,
        }
    }
}

#[map]
fn mix(x: f32) -> Mixed {
    let w: Mixed = Mixed {
        flag: x > 0.0,
        value: x as f64 * 2.0,
        tag: (x.abs() * 1000.0) as u16,
        h: f16::from_f32(x),
        n: 7,
    };
    w
}

#[predicate]
fn confident(w: Welford, t: f32) -> bool {
    w.count > t && w.m2 >= 0.0
}

#[test]
fn welford_as_a_struct_matches_plain_rust() {
    let cpu = Device::cpu();
    let xs: Vec<f32> = (0..100_000)
        .map(|i| ((i * 7919) % 1000) as f32 / 500.0 - 1.0)
        .collect();
    let d = cpu.upload(&xs).unwrap();
    let w = cpu.reduce(merge, &d.map(one)).unwrap();
    let m: f64 = xs.iter().map(|&x| x as f64).sum::<f64>() / xs.len() as f64;
    let v: f64 = xs.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / xs.len() as f64;
    assert_eq!(w.count, xs.len() as f32);
    assert!((w.mean as f64 - m).abs() < 1e-5, "{w:?}");
    assert!(((w.m2 / w.count) as f64 - v).abs() < 1e-5 * v, "{w:?}");
    assert_eq!(
        merge.identity(),
        Welford {
            count: 0.0,
            mean: 0.0,
            m2: 0.0
        }
    );
    // Scans of structs come back as arrays of them.
    let run = cpu.scan(merge, &d.slice(..10).unwrap().map(one)).unwrap();
    let run = run.download().unwrap();
    assert_eq!(run.len(), 10);
    assert_eq!(run[9].count, 10.0);
    // A predicate over struct values (a map's outputs).
    assert_eq!(
        cpu.count(confident.with(0.5), &d.map(one)).unwrap(),
        xs.len() as u64
    );
}

#[test]
fn structs_keep_their_c_layout() {
    assert_eq!(<Mixed as DeviceValue>::C_SIZE, std::mem::size_of::<Mixed>());
    assert_eq!(<Mixed as DeviceValue>::C_SIZE, 24); // bool, 7 padding, f64, u16, f16, u32
    let cpu = Device::cpu();
    let xs = cpu.upload(&[0.5f32, -1.25, 3.0]).unwrap();
    let got = cpu.map(mix, &xs).unwrap().download().unwrap();
    assert_eq!(got[1], mix.call(-1.25));
    assert_eq!(got[0].h, f16::from_f32(0.5));
    let back = cpu.upload_values(&got).unwrap().download().unwrap();
    assert_eq!(back, got);
    let mut bytes = vec![0u8; 24];
    got[2].write_c(&mut bytes);
    assert_eq!(Mixed::read_c(&bytes), got[2]);
    assert_eq!(bytes[0], 1, "flag at offset 0");
    assert_eq!(
        f64::from_ne_bytes(bytes[8..16].try_into().unwrap()),
        6.0,
        "value at 8"
    );
}
