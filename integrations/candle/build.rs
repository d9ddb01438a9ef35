//! The binaries look for the CUDA libraries (libcublas.so.13, ...) in the toolkit's usual place
//! as well as on the library path, so that a standard CUDA 13 install needs no LD_LIBRARY_PATH.
fn main() {
    println!("cargo:rustc-link-arg-bins=-Wl,-rpath,/usr/local/cuda/lib64");
    println!("cargo:rerun-if-changed=build.rs");
}
