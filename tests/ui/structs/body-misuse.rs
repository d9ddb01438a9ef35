use warp_runtime::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
pub struct Stats {
    count: u32,
    sum: f32,
}

#[reduce(identity = Stats { count: 0, sum: 0.0 })]
fn merge(a: Stats, b: Stats) -> Stats {
    Stats { count: a.count + b.count, total: a.sum + b.sum }
}

#[map]
fn one(x: f32) -> Stats {
    let s = Stats { count: 1 };
    Stats { count: s.count, sum: x.mean }
}

fn main() {}
