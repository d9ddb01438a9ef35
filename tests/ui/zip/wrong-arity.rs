use warp_runtime::prelude::*;

#[predicate(inputs = 2)]
fn close(x: f32, y: f32) -> bool {
    x == y
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::cpu();
    let xs = dev.upload(&[1.0f32, 2.0])?;
    // A two-array predicate over one array.
    let _ = dev.count(close, &xs)?;
    Ok(())
}
