//! The NCCL layer without NCCL: where the library cannot be loaded (this machine, CI), making
//! an id or joining a communicator is an `Error::Nccl`, never a panic.

use warp_runtime::cudarc::nccl::safe::Id;
use warp_runtime::{Error, Rank, nccl_available, nccl_id};

#[test]
fn nccl_missing_is_a_typed_error() {
    if nccl_available() {
        // A machine with NCCL: an id, or NCCL's own refusal (no network for its bootstrap)
        // as an Error::Nccl; the GPU tests join a communicator.
        match nccl_id() {
            Ok(_) | Err(Error::Nccl { .. }) => {}
            Err(other) => panic!("expected an id or Error::Nccl, got {other:?}"),
        }
        return;
    }
    assert!(matches!(nccl_id(), Err(Error::Nccl { .. })));
    let joined = Rank::connect(0, 0, 1, Id::uninit([0; 128]));
    match joined {
        Err(Error::Nccl { call, message }) => {
            assert_eq!(call, "loading libnccl");
            assert!(message.contains("LD_LIBRARY_PATH"), "{message}");
        }
        other => panic!("expected Error::Nccl, got {other:?}"),
    }
}
