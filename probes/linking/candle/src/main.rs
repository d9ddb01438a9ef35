//! Builds with warp-runtime and cudarc as the other crate of the binary enables it; a CUDA
//! slice of that cudarc is what warp-runtime reads.

use warp_runtime::prelude::*;

#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::auto()?;
    let xs = dev.upload(&[1.0f32, 2.0, 3.0])?;
    assert_eq!(dev.reduce(sum, &xs)?, 6.0);
    let _: Option<std::sync::Arc<cudarc::driver::CudaStream>> = dev.cuda_stream();
    Ok(())
}
