use warp_runtime::prelude::*;

#[reduce(identity = 0)]
fn sum<T: std::ops::Add<Output = T>>(a: T, b: T) -> T {
    a + b
}

fn main() {}
