use warp_runtime::prelude::*;

#[reduce(identity = String::new())]
fn concat(a: String, b: String) -> String {
    a + &b
}

fn main() {}
