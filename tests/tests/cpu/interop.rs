//! The CPU backend's forms of the stream-era API: results left "on the device" (held on the
//! host), bound as parameters; `_into` forms (`copy_into` among them); `map`; `fork` and
//! `wait_for`; errors for outputs of the wrong length.

use warp_runtime::Error;
use warp_runtime::prelude::*;
use warp_tests::ops::{positive, sum_f32};

#[reduce(identity = 0)]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[predicate]
fn above(x: f32, t: f32) -> bool {
    x > t
}

#[map]
fn pair(x: f32, k: f32) -> (f32, u8) {
    (x * k, (x > 0.0) as u8)
}

#[map]
fn to_i64(x: f32) -> i64 {
    x as i64
}

#[test]
fn device_results_on_the_cpu_backend() {
    let dev = Device::cpu();
    let xs = dev.upload(&[3.0f32, -1.0, 4.0, 1.0, 5.0]).unwrap();
    let total = dev.reduce_on_device(sum_f32, &xs).unwrap();
    assert!(total.is_ready());
    assert_eq!(total.get().unwrap(), 12.0);
    let mean = dev.upload(&[2.4f32]).unwrap();
    let m = dev.reduce_on_device(sum_f32, &mean).unwrap();
    assert_eq!(dev.count(above.with(&m), &xs).unwrap(), 3);
    assert_eq!(dev.count(above.with(m.clone()), &xs).unwrap(), 3);
    let p = above.with(2.0); // a value binding is Copy
    assert_eq!(dev.count(p, &xs).unwrap(), 3);
    assert_eq!(dev.find_first(p, &xs).unwrap(), Some(0));
    assert_eq!(
        dev.find_first_on_device(above.with(9.0), &xs)
            .unwrap()
            .get()
            .unwrap(),
        None
    );
    assert!(dev.any_on_device(positive, &xs).unwrap().get().unwrap());
    assert!(!dev.all_on_device(positive, &xs).unwrap().get().unwrap());
    assert_eq!(
        dev.count_on_device(positive, &xs).unwrap().get().unwrap(),
        4
    );
}

#[test]
fn into_forms_write_the_callers_arrays() {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.0f32, -2.0, 3.0, -4.0, 5.0, 6.0]).unwrap();
    let mut out = dev.upload(&[0.0f32; 6]).unwrap();
    dev.scan_into(sum_f32, &xs, &mut out).unwrap();
    assert_eq!(
        out.download().unwrap(),
        vec![1.0, -1.0, 2.0, -2.0, 3.0, 9.0]
    );
    let mut rows = dev.upload(&[0.0f32; 2]).unwrap();
    dev.reduce_rows_into(sum_f32, &xs, 3, &mut rows).unwrap();
    assert_eq!(rows.download().unwrap(), vec![2.0, 7.0]);
    let mut cols = dev.upload(&[0.0f32; 3]).unwrap();
    dev.reduce_cols_into(sum_f32, &xs, 3, &mut cols).unwrap();
    assert_eq!(cols.download().unwrap(), vec![-3.0, 3.0, 9.0]);
    let mut t = dev.upload(&[0.0f32; 6]).unwrap();
    dev.transpose_into(&xs, 3, &mut t).unwrap();
    assert_eq!(t.download().unwrap(), vec![1.0, -4.0, -2.0, 5.0, 3.0, 6.0]);
    let mut mask = dev.upload(&[0u32; 1]).unwrap();
    dev.mask_into(positive, &xs, &mut mask).unwrap();
    assert_eq!(mask.download().unwrap(), vec![0b110101]);
    let mut kept = dev.upload(&[0.0f32; 8]).unwrap();
    let n = dev.filter_into(positive, &xs, &mut kept).unwrap();
    assert_eq!(n.get().unwrap(), 4);
    assert_eq!(&kept.download().unwrap()[..4], &[1.0, 3.0, 5.0, 6.0]);
    let mut rejected = dev.upload(&[0.0f32; 8]).unwrap();
    let n = dev
        .partition_into(positive, &xs, &mut kept, &mut rejected)
        .unwrap();
    assert_eq!(n.get().unwrap(), 4);
    assert_eq!(&rejected.download().unwrap()[..2], &[-2.0, -4.0]);
    let mut mapped = dev.upload(&[0i64; 6]).unwrap();
    dev.map_into(to_i64, &xs, &mut mapped).unwrap();
    assert_eq!(mapped.download().unwrap(), vec![1, -2, 3, -4, 5, 6]);
    let offsets = dev.upload(&[0u64, 2, 6]).unwrap();
    let mut segs = dev.upload(&[0.0f32; 2]).unwrap();
    dev.reduce_segments_into(sum_f32, &xs, &offsets, &mut segs)
        .unwrap();
    assert_eq!(segs.download().unwrap(), vec![-1.0, 10.0]);
}

#[test]
fn map_writes_scalars_and_tuples() {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.0f32, -2.0]).unwrap();
    let pairs = dev.map(pair.with(0.5), &xs).unwrap();
    assert_eq!(pairs.download().unwrap(), vec![(0.5, 1), (-1.0, 0)]);
    let ints = dev.map(to_i64, &xs).unwrap();
    assert_eq!(
        dev.scan(add, &ints).unwrap().download().unwrap(),
        vec![1, -1]
    );
}

#[test]
fn outputs_of_the_wrong_length_are_errors() {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.0f32, 2.0, 3.0]).unwrap();
    let mut short = dev.upload(&[0.0f32; 2]).unwrap();
    assert!(matches!(
        dev.scan_into(sum_f32, &xs, &mut short),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        dev.filter_into(positive, &xs, &mut short),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        dev.map_into(to_i64, &xs, &mut dev.upload(&[0i64; 4]).unwrap()),
        Err(Error::Shape(_))
    ));
    // Another CPU device's array is host memory too: taken, as a GPU context's devices
    // share theirs.
    let other = Device::cpu();
    let mut theirs = other.upload(&[0.0f32; 3]).unwrap();
    dev.scan_into(sum_f32, &xs, &mut theirs).unwrap();
    assert_eq!(theirs.download().unwrap(), [1.0, 3.0, 6.0]);
    // A fork of the CPU backend is the same backend; wait_for has nothing to order.
    let fork = dev.fork().unwrap();
    fork.wait_for(&dev).unwrap();
    assert_eq!(fork.reduce(sum_f32, &xs).unwrap(), 6.0);
}

/// `copy_into` writes the input's elements (a whole array, a view, any element type) into the
/// caller's array without replacing it; an output of another length is an `Error::Shape` that
/// leaves the output as it was; an empty copy is fine.
#[test]
fn copy_into_writes_the_callers_array() {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.5f32, -0.0, f32::NAN, 4.0, -5.25]).unwrap();
    let mut out = dev.upload(&[9.0f32; 5]).unwrap();
    dev.copy_into(&xs, &mut out).unwrap();
    let (got, want) = (out.download().unwrap(), xs.download().unwrap());
    assert_eq!(
        got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        "bit for bit: -0.0 and NaN kept"
    );
    let mut tail = dev.upload(&[0.0f32; 2]).unwrap();
    dev.copy_into(&xs.slice(3..).unwrap(), &mut tail).unwrap();
    assert_eq!(tail.download().unwrap(), [4.0, -5.25]);
    let bytes = dev.upload(&[7u8, 0, 255]).unwrap();
    let mut bout = dev.upload(&[1u8; 3]).unwrap();
    dev.copy_into(&bytes, &mut bout).unwrap();
    assert_eq!(bout.download().unwrap(), [7, 0, 255]);
    // Lengths must match: shorter and longer outputs are shape errors, and nothing is written.
    let mut short = dev.upload(&[3.0f32; 4]).unwrap();
    assert!(matches!(
        dev.copy_into(&xs, &mut short),
        Err(Error::Shape(_))
    ));
    assert_eq!(short.download().unwrap(), [3.0; 4]);
    let mut long = dev.upload(&[3.0f32; 6]).unwrap();
    assert!(matches!(
        dev.copy_into(&xs, &mut long),
        Err(Error::Shape(_))
    ));
    assert_eq!(long.download().unwrap(), [3.0; 6]);
    let mut none = dev.upload::<f32>(&[]).unwrap();
    dev.copy_into(&xs.slice(5..).unwrap(), &mut none).unwrap();
    // `copy` gives the same elements in new memory.
    assert_eq!(
        dev.copy(&xs.slice(3..).unwrap())
            .unwrap()
            .download()
            .unwrap(),
        [4.0, -5.25]
    );
}

/// Every CPU-backend device shares its memory: arrays uploaded through one `Device::cpu()`
/// are inputs to another, alone and zipped.
#[test]
fn cpu_devices_share_their_memory() {
    let (d1, d2) = (Device::cpu(), Device::cpu());
    let xs = d1.upload(&[3.0f32, -1.0, 4.0]).unwrap();
    let ys = d2.upload(&[1.0f32, 1.0, 1.0]).unwrap();
    assert_eq!(d2.reduce(sum_f32, &xs).unwrap(), 6.0);
    assert_eq!(d1.count(greater, &(&xs, &ys)).unwrap(), 2);
    let total = d1.reduce_on_device(sum_f32, &xs).unwrap();
    assert_eq!(d2.count(above.with(&total), &ys).unwrap(), 0);
    let mut out = d2.upload(&[0.0f32; 3]).unwrap();
    d1.map_into(pair_first, &xs, &mut out).unwrap();
    assert_eq!(out.download().unwrap(), [3.0, -1.0, 4.0]);
}

#[map]
fn pair_first(x: f32) -> f32 {
    x
}

#[predicate(inputs = 2)]
fn greater(a: f32, b: f32) -> bool {
    a > b
}
