use warp_runtime::prelude::*;

#[predicate(inputs = 2)]
fn close(x: f32, y: f32) -> bool {
    x == y
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.0f32, 2.0])?;
    let ys = dev.upload(&[1.0f32, 3.0])?;
    // Two arrays: `keep` takes 0 or 1.
    let _ = dev.filter(close, &(&xs, &ys).keep::<2>())?;
    Ok(())
}
