//! The value types of the DSL (Rust scalars and flat tuples of them) and their CUDA spellings.

use std::fmt;

/// A scalar type of the DSL.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scalar {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `half::f16` (IEEE binary16)
    F16,
    /// `half::bf16` (bfloat16)
    BF16,
}

/// Rust's primitive scalar types, in a fixed order.
pub const ALL_SCALARS: [Scalar; 11] = [
    Scalar::Bool,
    Scalar::I8,
    Scalar::I16,
    Scalar::I32,
    Scalar::I64,
    Scalar::U8,
    Scalar::U16,
    Scalar::U32,
    Scalar::U64,
    Scalar::F32,
    Scalar::F64,
];

/// The 16-bit floats of the `half` crate, `f16` and `bf16`: not Rust primitives, so no `as`
/// casts and no literals; values come from parameters, `from_f32`, constants and arithmetic
/// (through `f32`, rounded back, as `half` computes it).
pub const HALVES: [Scalar; 2] = [Scalar::F16, Scalar::BF16];

impl Scalar {
    /// Parses a scalar type name (`"f32"`, `"u8"`, ..., `"f16"`, `"bf16"`).
    pub fn from_rust(name: &str) -> Option<Scalar> {
        ALL_SCALARS
            .iter()
            .chain(&HALVES)
            .copied()
            .find(|s| s.rust_name() == name)
    }

    /// The Rust spelling.
    pub fn rust_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::U64 => "u64",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::F16 => "f16",
            Scalar::BF16 => "bf16",
        }
    }

    /// The CUDA spelling (typedefs from the prelude).
    pub fn c_name(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::I8 => "wd_i8",
            Scalar::I16 => "wd_i16",
            Scalar::I32 => "wd_i32",
            Scalar::I64 => "wd_i64",
            Scalar::U8 => "wd_u8",
            Scalar::U16 => "wd_u16",
            Scalar::U32 => "wd_u32",
            Scalar::U64 => "wd_u64",
            Scalar::F32 => "wd_f32",
            Scalar::F64 => "wd_f64",
            Scalar::F16 => "wd_f16",
            Scalar::BF16 => "wd_bf16",
        }
    }

    /// The CUDA type of a value of this type held in a register: 8- and 16-bit integers live
    /// in 32-bit registers, canonical (sign- or zero-extended); see the prelude.
    pub fn c_reg(self) -> &'static str {
        match self {
            Scalar::I8 | Scalar::I16 => "wd_i32",
            Scalar::U8 | Scalar::U16 => "wd_u32",
            other => other.c_name(),
        }
    }

    /// Size in bytes (also the alignment, on the GPU and in the C struct layout).
    pub fn size(self) -> usize {
        match self {
            Scalar::Bool | Scalar::I8 | Scalar::U8 => 1,
            Scalar::I16 | Scalar::U16 | Scalar::F16 | Scalar::BF16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }

    /// Width in bits.
    pub fn bits(self) -> u32 {
        self.size() as u32 * 8
    }

    /// `true` for the integer types (not `bool`).
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }

    /// `true` for `i8..i64`.
    pub fn is_signed_int(self) -> bool {
        matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64)
    }

    /// `true` for `u8..u64`.
    pub fn is_unsigned_int(self) -> bool {
        matches!(self, Scalar::U8 | Scalar::U16 | Scalar::U32 | Scalar::U64)
    }

    /// `true` for `f32` and `f64`.
    pub fn is_float(self) -> bool {
        matches!(self, Scalar::F32 | Scalar::F64)
    }

    /// `true` for `f16` and `bf16` (see [`HALVES`]).
    pub fn is_half(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::BF16)
    }

    /// `true` for integers and floats (not the halves, which have their own rules).
    pub fn is_numeric(self) -> bool {
        self.is_int() || self.is_float()
    }

    /// The unsigned C type integer arithmetic of this type is done in (so that it wraps, as
    /// Rust's release builds do, instead of overflowing a signed C `int`, which is undefined).
    pub fn c_wide_unsigned(self) -> &'static str {
        if self.bits() == 64 {
            "wd_u64"
        } else {
            "wd_u32"
        }
    }

    /// The unsigned type of the same width.
    pub fn to_unsigned(self) -> Scalar {
        match self {
            Scalar::I8 => Scalar::U8,
            Scalar::I16 => Scalar::U16,
            Scalar::I32 => Scalar::U32,
            Scalar::I64 => Scalar::U64,
            other => other,
        }
    }

    /// Smallest and largest value of an integer type.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Scalar::I8 => (i8::MIN as i128, i8::MAX as i128),
            Scalar::I16 => (i16::MIN as i128, i16::MAX as i128),
            Scalar::I32 => (i32::MIN as i128, i32::MAX as i128),
            Scalar::I64 => (i64::MIN as i128, i64::MAX as i128),
            Scalar::U8 => (0, u8::MAX as i128),
            Scalar::U16 => (0, u16::MAX as i128),
            Scalar::U32 => (0, u32::MAX as i128),
            Scalar::U64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }

    /// A short tag used in generated names (`f32`, `u8`, `b` for bool).
    pub fn tag(self) -> &'static str {
        match self {
            Scalar::Bool => "b",
            other => other.rust_name(),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.rust_name())
    }
}

/// A value type: a scalar or a flat tuple of scalars.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    /// A scalar.
    Scalar(Scalar),
    /// A tuple of 2 to [`MAX_TUPLE`] scalars.
    Tuple(Vec<Scalar>),
}

/// The longest tuple the DSL accepts.
pub const MAX_TUPLE: usize = 8;

impl Ty {
    /// The scalar, if this is one.
    pub fn scalar(&self) -> Option<Scalar> {
        match self {
            Ty::Scalar(s) => Some(*s),
            Ty::Tuple(_) => None,
        }
    }

    /// The CUDA spelling: a prelude typedef or a generated struct name.
    pub fn c_name(&self) -> String {
        match self {
            Ty::Scalar(s) => s.c_name().to_string(),
            Ty::Tuple(items) => {
                let tags: Vec<&str> = items.iter().map(|s| s.tag()).collect();
                format!("wd_tuple_{}", tags.join("_"))
            }
        }
    }

    /// The CUDA type of a value held in a register (scalars: [`Scalar::c_reg`]; tuples: their
    /// struct).
    pub fn c_reg(&self) -> String {
        match self {
            Ty::Scalar(s) => s.c_reg().to_string(),
            Ty::Tuple(_) => self.c_name(),
        }
    }

    /// Size of the C layout in bytes (fields in order, each aligned to its size, the whole
    /// padded to the largest alignment): what the GPU writes and the host decodes.
    pub fn c_size(&self) -> usize {
        match self {
            Ty::Scalar(s) => s.size(),
            Ty::Tuple(items) => {
                let mut off: usize = 0;
                let mut align = 1;
                for s in items {
                    off = off.next_multiple_of(s.size());
                    off += s.size();
                    align = align.max(s.size());
                }
                off.next_multiple_of(align)
            }
        }
    }
}

impl fmt::Display for Ty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ty::Scalar(s) => write!(f, "{s}"),
            Ty::Tuple(items) => {
                let names: Vec<&str> = items.iter().map(|s| s.rust_name()).collect();
                write!(f, "({})", names.join(", "))
            }
        }
    }
}
