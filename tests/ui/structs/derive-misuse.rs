use warp_runtime::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct NoRepr {
    a: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
struct Fields<'a> {
    r: &'a f32,
    t: (f32, u32),
    s: [f32; 2],
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
struct Generic<T> {
    x: T,
}

#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
#[repr(C)]
struct Tuple(f32, f32);

#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
enum E {
    A,
}

fn main() {}
