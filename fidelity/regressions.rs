// Hand-written fidelity programs: each mismatch the fuzzer found, reduced, plus the
// neighbouring variants used to find its cause. build.rs adds them to the programs compared
// on the GPU (names start with `rg_`); the parameters are `a` and `b` like the generated ones.

// fz_222: i16::MIN through `wrapping_abs().abs()` then an arithmetic shift.
fn rg_abs_min_shift(a: i16, b: i64) -> i16 {
    (a.wrapping_abs()).abs() >> b
}
fn rg_abs_min_widen(a: i16, b: i64) -> i32 {
    let _ = b;
    a.wrapping_abs() as i32
}
fn rg_abs_min_i8(a: i8, b: u32) -> i32 {
    let _ = b;
    a.abs() as i32 + (a.wrapping_neg() as i32) * 1000
}
fn rg_fz_222(a: i16, b: i64) -> i16 {
    ((((a).wrapping_abs()).abs() >> b)).rotate_left((((0u32).clamp(8u32, 9u32)).count_zeros() as u32))
}

// fz_942: negation of i16::MIN, then saturating arithmetic.
fn rg_neg_min_i16(a: i16, b: i16) -> (i16, i32, i16) {
    ((-a), (-a) as i32, (-a).saturating_sub(b))
}

// fz_3404: a quotient by -0.0 (constant operands), clamped.
fn rg_div_neg_zero_clamp(a: f32, b: u8) -> (f32, f32, f32, f32) {
    let _ = b;
    (
        3.92971e-4f32 / (-0.0f32),
        (3.92971e-4f32 / (-0.0f32)).clamp(-9.12f32, 8.23f32),
        (a / (-0.0f32)).clamp(-9.12f32, 8.23f32),
        ((3.92971e-4f32 / (-0.0f32)).clamp(-9.12f32, 8.23f32) + 0.0f32).min(113.5f32 + 0.0f32),
    )
}
fn rg_fz_3404(a: u32, b: u8) -> f32 {
    let _ = a;
    (((((3.92971e-4f32, 0u16).0 / (match u64::MAX { 6u64 => f32::MIN_POSITIVE, 7u64 | 2u64 => 2.16369e10f32, 0u64..=11u64 => 0.54789e7f32, _ => (-0.0f32) }))).clamp(-9.12f32, 8.23f32)) + 0.0f32).min((((if (b <= b) { 3.0f32 } else { (if false { 1.2041e-1f32 } else { 1e-44f32 }) }) + 110.5f32)) + 0.0f32)
}
