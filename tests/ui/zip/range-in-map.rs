use warp_runtime::prelude::*;

#[map(inputs = 2)]
fn weighted(i: u32, x: f32) -> f32 {
    i as f32 * x
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.0f32, 2.0])?;
    let at = dev.range(0u32..2);
    // `map` writes out arrays it reads: a zip holding a range is not one (`collect` of
    // `(&at, &xs).map(weighted)` is the same, fused).
    let _ = dev.map(weighted, &(&at, &xs))?;
    Ok(())
}
