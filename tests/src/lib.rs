//! Shared helpers of the warp-dsl integration tests.
