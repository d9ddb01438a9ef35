//! One rank of an NCCL communicator (a world of one on one GPU: NCCL refuses two ranks on one
//! GPU) against the one-GPU operations: reductions (the same bits), the exclusive offset,
//! scans, counts and votes, histograms and top-k, empty arrays. Needs NCCL loadable as `libnccl.so`
//! (scripts/gpu-tests.sh links it); with `WARP_REQUIRE_NCCL=1` a missing NCCL fails the test.

use warp_runtime::prelude::*;
use warp_runtime::{Rank, nccl_available, nccl_id};
use warp_tests::ops::{byte_bin, positive, sum_f32, sum_i32};
use warp_tests::{random_vec_par, seed};

#[test]
#[ignore = "needs a CUDA GPU and NCCL"]
fn gpu_one_rank_matches_one_device() {
    if !nccl_available() {
        assert!(
            std::env::var_os("WARP_REQUIRE_NCCL").is_none(),
            "WARP_REQUIRE_NCCL is set and NCCL cannot be loaded"
        );
        eprintln!("NCCL cannot be loaded: the one-rank test is skipped");
        return;
    }
    let me = Rank::connect(0, 0, 1, nccl_id().unwrap()).unwrap();
    assert_eq!((me.rank(), me.world_size()), (0, 1));
    let dev = me.device().clone();
    for (k, n) in [0usize, 1, 1000, (1 << 20) + 3].into_iter().enumerate() {
        let xs: Vec<f32> = random_vec_par(seed() ^ k as u64, n, true);
        let gx = dev.upload(&xs).unwrap();
        let one = dev.reduce(sum_f32, &gx).unwrap();
        let all = me.reduce_all(sum_f32, &gx).unwrap();
        assert_eq!(all.to_bits(), one.to_bits(), "n {n}");
        let (before, total) = me.exclusive_offset(sum_f32, &gx).unwrap();
        assert_eq!(
            (before.to_bits(), total.to_bits()),
            (0.0f32.to_bits(), one.to_bits())
        );
        assert_eq!(
            me.count_all(positive, &gx).unwrap(),
            dev.count(positive, &gx).unwrap()
        );
        assert_eq!(
            me.any_all(positive, &gx).unwrap(),
            dev.any(positive, &gx).unwrap()
        );
        assert_eq!(
            me.all_all(positive, &gx).unwrap(),
            dev.all(positive, &gx).unwrap()
        );
        let ints: Vec<i32> = random_vec_par(seed() ^ 9, n, false);
        let gi = dev.upload(&ints).unwrap();
        assert_eq!(
            me.reduce_all(sum_i32, &gi).unwrap(),
            dev.reduce(sum_i32, &gi).unwrap()
        );
        // Rank 0's part of the scan across ranks is its own scan.
        let mut out = dev.upload(&vec![0i32; n]).unwrap();
        me.scan_all_into(sum_i32, &gi, &mut out).unwrap();
        let want = dev.scan(sum_i32, &gi).unwrap().download().unwrap();
        assert_eq!(out.download().unwrap(), want, "scan_all_into {n}");
        me.exclusive_scan_all_into(sum_i32, &gi, &mut out).unwrap();
        let want = dev.exclusive_scan(sum_i32, &gi).unwrap();
        assert_eq!(
            out.download().unwrap(),
            want.download().unwrap(),
            "exclusive {n}"
        );
        let bytes: Vec<u8> = random_vec_par(seed() ^ 10, n, false);
        let gb = dev.upload(&bytes).unwrap();
        let h: Vec<u32> = me.histogram_all(byte_bin, &gb, 200).unwrap();
        let want = dev.histogram::<u32, _, _>(byte_bin, &gb, 200).unwrap();
        assert_eq!(h, want.download().unwrap());
        if n > 0 {
            let k = n.min(100);
            let (values, positions) = me.top_k_all(&gx, k).unwrap();
            let best = dev.top_k(&gx, k).unwrap();
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&values), bits(&best.values.download().unwrap()));
            assert_eq!(positions, best.indices.download().unwrap());
        }
        match n < 1024 {
            true => assert!(matches!(
                me.top_k_all(&gx, n + 1),
                Err(Error::KExceedsLength { .. })
            )),
            false => assert!(matches!(
                me.top_k_all(&gx, 1025),
                Err(Error::Unsupported(_))
            )),
        }
    }
}
