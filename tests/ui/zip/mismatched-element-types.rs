use warp_runtime::prelude::*;

#[map(inputs = 2)]
fn mul(x: f32, y: f32) -> f32 {
    x * y
}

#[reduce(identity = 0.0)]
fn sum(a: f32, b: f32) -> f32 {
    a + b
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.0f32, 2.0])?;
    let ns = dev.upload(&[1i32, 2])?;
    // `mul` takes (f32, f32); the second array holds i32.
    let _ = dev.map_reduce(mul, sum, &(&xs, &ns))?;
    Ok(())
}
