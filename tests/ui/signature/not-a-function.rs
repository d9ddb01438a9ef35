use warp_runtime::prelude::*;

#[reduce(identity = 0)]
struct Sum;

fn main() {}
