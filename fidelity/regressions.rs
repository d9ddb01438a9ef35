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

// fz_6674: u16 remainder of constants after a saturating f64 -> u16 cast, with dead i8 code.
fn rg_fz_6674(a: i32, b: bool) -> u8 {
    let _ = a;
    let v1: (i8, u32, f64) = ((match 92536835u32 { 5u32 => (match u32::MIN { 5u32 => i8::MIN, 9u32 | 3u32 => 7i8, 4u32..=10u32 => 100i8, _ => (-68i8) }), 6u32 | 7u32 => (i8::MAX * 23i8), 1u32..=2u32 => 0i8, _ => { let n: i8 = 0i8; let d: i8 = (-124i8); if d == 0i8 || d == -1i8 { n } else { n % d } } }), (u32::MIN << (735740173852782547u64, 137u8).0), ((if true { std::f64::consts::PI } else { f64::EPSILON })).sqrt());
    let v3: f64 = (((9.17317e3f64 + 1.0f64) + (if b { 111.5f64 } else { std::f64::consts::PI }))).mul_add((10921206689220510058u64 as f64), { let v2: u32 = 7u32; { let s: f64 = (-0.0f64); ((-0.44002e-7f64)).copysign(if s.is_nan() { 1.0 } else { s }) } });
    ({ let n: u16 = (match ((-1380563883i32), 4.0f64).0 { 1i32 => ((53528u16).trailing_zeros() as u16), 9i32 | -6i32 => u16::MAX, 2i32..=2i32 => 0u16, _ => (58006u16 | 55738u16) }); let d: u16 = ((v3 as u16) ^ u16::MAX); if d == 0u16 { n } else { n % d } } as u8)
}
fn rg_fz_6674_no_dead(a: i32, b: bool) -> u8 {
    let _ = a;
    let v3: f64 = (((9.17317e3f64 + 1.0f64) + (if b { 111.5f64 } else { std::f64::consts::PI }))).mul_add((10921206689220510058u64 as f64), { let v2: u32 = 7u32; { let s: f64 = (-0.0f64); ((-0.44002e-7f64)).copysign(if s.is_nan() { 1.0 } else { s }) } });
    ({ let n: u16 = (match ((-1380563883i32), 4.0f64).0 { 1i32 => ((53528u16).trailing_zeros() as u16), 9i32 | -6i32 => u16::MAX, 2i32..=2i32 => 0u16, _ => (58006u16 | 55738u16) }); let d: u16 = ((v3 as u16) ^ u16::MAX); if d == 0u16 { n } else { n % d } } as u8)
}
fn rg_big_f64_to_u16(a: f64, b: bool) -> (u16, u8, i32, u32) {
    let v3: f64 = (((9.17317e3f64 + 1.0f64) + (if b { 111.5f64 } else { std::f64::consts::PI }))).mul_add(10921206689220510058u64 as f64, 0.0);
    (v3 as u16, a as u8, v3 as i32, (v3 as u16 ^ u16::MAX) as u32)
}
fn rg_u16_rem(a: u16, b: u16) -> (u16, u8) {
    let n: u16 = 58006u16 | 55738u16;
    let d: u16 = b ^ u16::MAX;
    (if d == 0u16 { n } else { n % d }, (if d == 0u16 { n } else { a % d }) as u8)
}
// fz_3404 with only its dead i8 code, returned.
fn rg_fz_3404_dead_part(a: u32, b: u8) -> u32 {
    let _ = b;
    (match (match { let v1: i16 = 2125i16; v1 } { -5i16 => (match 1456809168u32 { 4u32 => 1i8, 3u32 | 10u32 => 3i8, 2u32..=9u32 => (-112i8), _ => (-4i8) }), 8i16 | -2i16 => ((-1i8)).wrapping_neg(), 6i16..=7i16 => ((-24118i16) as i8), _ => { let n: i8 = i8::MAX; let d: i8 = 65i8; if d == 0i8 || d == -1i8 { n } else { n / d } } }) { -7i8 => (a, 11027910111833793154u64).0, 1i8 | -8i8 => ((a).rotate_right(7u32)).clamp(7u32, 9u32), 0i8..=9i8 => 1692387802u32, _ => (match ((-64i8)).wrapping_abs() { 1i8 => (a, 4892064146305564183u64).0, -2i8 | -1i8 => 6u32, 7i8..=10i8 => (a ^ a), _ => (790669581u32 & a) }) })
}
fn rg_fz_3404_full(a: u32, b: u8) -> f32 {
    let v2: u32 = (match (match { let v1: i16 = 2125i16; v1 } { -5i16 => (match 1456809168u32 { 4u32 => 1i8, 3u32 | 10u32 => 3i8, 2u32..=9u32 => (-112i8), _ => (-4i8) }), 8i16 | -2i16 => ((-1i8)).wrapping_neg(), 6i16..=7i16 => ((-24118i16) as i8), _ => { let n: i8 = i8::MAX; let d: i8 = 65i8; if d == 0i8 || d == -1i8 { n } else { n / d } } }) { -7i8 => (a, 11027910111833793154u64).0, 1i8 | -8i8 => ((a).rotate_right(7u32)).clamp(7u32, 9u32), 0i8..=9i8 => 1692387802u32, _ => (match ((-64i8)).wrapping_abs() { 1i8 => (a, 4892064146305564183u64).0, -2i8 | -1i8 => 6u32, 7i8..=10i8 => (a ^ a), _ => (790669581u32 & a) }) });
    let _ = v2;
    (((((3.92971e-4f32, 0u16).0 / (match u64::MAX { 6u64 => f32::MIN_POSITIVE, 7u64 | 2u64 => 2.16369e10f32, 0u64..=11u64 => 0.54789e7f32, _ => (-0.0f32) }))).clamp(-9.12f32, 8.23f32)) + 0.0f32).min((((if (b <= b) { 3.0f32 } else { (if false { 1.2041e-1f32 } else { 1e-44f32 }) }) + 110.5f32)) + 0.0f32)
}
fn rg_div_by_neg_zero_selected(a: u32, b: u8) -> (f32, f32) {
    let _ = (a, b);
    let q = (3.92971e-4f32, 0u16).0 / (match u64::MAX { 6u64 => f32::MIN_POSITIVE, 0u64..=11u64 => 0.54789e7f32, _ => (-0.0f32) });
    (q, q.clamp(-9.12f32, 8.23f32))
}

// fz_6333: `0 <= i64::MIN.abs()` (abs wraps to MIN) came out true on the GPU: ptxas takes the
// result of `abs.s64` to be non-negative.
fn rg_fz_6333(a: i64, b: u32) -> u64 {
    (if ((if i32::is_negative(i32::MIN) { ((u32::MIN).count_ones() as i64) } else { (31021i16 as i64) }) <= ((match 34282u16 { 3u16 => i64::MAX, 5u16 | 0u16 => a, 9u16..=10u16 => a, _ => a })).abs()) { { let v1: f64 = (if (4.0f64).is_finite() { (if false { 6.49613e8f64 } else { 2.0f64 }) } else { (if true { f64::MIN_POSITIVE } else { 22.5f64 }) }); (if v1.is_nan() { 1.0f64 } else { v1 }).to_bits() } } else { 7210487645332096966u64 })
}
fn rg_abs_min_compare(a: i64, b: i32) -> (bool, bool, i64, i32) {
    (0 <= a.abs(), 0 <= b.abs(), a.abs(), b.abs())
}

// fz_4536: `f64::copysign(x, x)` came out as `|x|` on the GPU (the `copysign.f64` instruction
// with one register for both operands); copysign is now bit operations.
fn rg_fz_4536(a: u32, b: f64) -> i64 {
    let v2: u32 = ((!{ let v1: u32 = 1963593351u32; 102557445u32 })).count_zeros();
    (({ let v5: bf16 = bf16::from_f64({ let v3: f64 = b; let v4: f64 = b; f64::copysign(if v3.is_nan() { 1.0f64 } else { v3 }, if v4.is_nan() { 1.0f64 } else { v4 }) }); (if v5.is_nan() { bf16::ONE } else { v5 }).to_bits() } as i64) as i64)
}
fn rg_copysign_self(a: f64, b: f32) -> (f64, f32, f64, f32) {
    let x = if a.is_nan() { 1.0f64 } else { a };
    let y = if b.is_nan() { 1.0f32 } else { b };
    (x.copysign(x), y.copysign(y), x.copysign(-x), (-y).copysign(y))
}
