// A DeviceTuples is a result, not an input: as reduce_by_key's values it does not compile,
// and the error says what the inputs of an operator are.
use warp_runtime::prelude::*;

#[reduce(identity = (0.0, 0))]
fn sum_count(a: (f32, u32), b: (f32, u32)) -> (f32, u32) {
    (a.0 + b.0, a.1 + b.1)
}

fn main() -> warp_runtime::Result<()> {
    let dev = Device::cpu();
    let keys = dev.upload(&[1, 1, 2])?;
    let pairs = dev.upload_values(&[(1.0f32, 1u32), (2.0, 1), (3.0, 1)])?;
    let _ = dev.reduce_by_key(sum_count, &keys, &pairs)?;
    Ok(())
}
