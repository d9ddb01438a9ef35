//! Names that coexist: cudarc's driver API and warp-runtime's prelude glob-imported together
//! (`DeviceView` is not cudarc's `DeviceSlice` trait), and `reduce_into` on the CPU backend.

use warp_runtime::cudarc;

#[allow(unused_imports)]
use cudarc::driver::*;
use warp_runtime::prelude::*;
use warp_tests::ops::sum_f32;

#[reduce(identity = (f32::NEG_INFINITY, u32::MAX))]
fn argmax(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    let b_wins = b.0 > a.0 || (b.0 == a.0 && b.1 < a.1);
    if b_wins { b } else { a }
}

/// Both glob imports in one module: every prelude name resolves (a clash would be an
/// "ambiguous name" compile error at its use), and cudarc's names are there too.
#[test]
fn cudarc_and_the_prelude_glob_imported_together() {
    let dev: Device = Device::cpu();
    let xs: DeviceVec<f32> = dev.upload(&[1.0f32, 4.0, 2.0, 4.0]).unwrap();
    let view: DeviceView<'_, f32> = xs.slice(1..).unwrap();
    assert_eq!(dev.reduce(sum_f32, &view).unwrap(), 10.0);
    let _: Option<LaunchConfig> = None; // cudarc's
    fn takes_a_cudarc_slice<T, S: DeviceSlice<T>>(s: &S) -> usize {
        s.len()
    }
    let _ = takes_a_cudarc_slice::<f32, CudaSlice<f32>>;
    let r: Result<u64, Error> = dev.count(warp_tests::ops::positive, &xs);
    assert_eq!(r.unwrap(), 4);
}

#[test]
fn reduce_into_on_the_cpu_backend() {
    let dev = Device::cpu();
    let xs = dev.upload(&[3.0f32, 9.0, 1.0, 9.0]).unwrap();
    let mut total = dev.upload(&[f32::NAN]).unwrap();
    dev.reduce_into(sum_f32, &xs, &mut total).unwrap();
    assert_eq!(total.download().unwrap(), vec![22.0]);
    // Tuples into a one-element DeviceTuples.
    let mut best = dev.upload_values(&[(0.0f32, 0u32)]).unwrap();
    dev.reduce_into(argmax, &xs.indexed(), &mut best).unwrap();
    assert_eq!(best.download().unwrap(), vec![(9.0, 1)]);
    // Empty input: the identity.
    dev.reduce_into(sum_f32, &xs.slice(2..2).unwrap(), &mut total)
        .unwrap();
    assert_eq!(total.download().unwrap()[0].to_bits(), 0.0f32.to_bits());
    // Not one value: an error, the output untouched.
    let mut two = dev.upload(&[5.0f32, 6.0]).unwrap();
    assert!(matches!(
        dev.reduce_into(sum_f32, &xs, &mut two),
        Err(Error::Shape(_))
    ));
    let mut none = dev.upload::<f32>(&[]).unwrap();
    assert!(matches!(
        dev.reduce_into(sum_f32, &xs, &mut none),
        Err(Error::Shape(_))
    ));
    assert_eq!(two.download().unwrap(), vec![5.0, 6.0]);
}
