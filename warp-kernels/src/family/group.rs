//! The group family: a group-by without a sort, for sums of small integers per integer key of
//! a narrow range (a table of the range's slots, one atomic add a pair, then the present slots
//! compacted in key order); `Device::group_reduce` takes it where it applies.

use crate::catalogue::kit::*;
use crate::module::Module;
use crate::types::Scalar;

/// The widest span of the keys' order words (largest - smallest + 1) a group-by takes by a
/// table (of 8-byte slots: 32 MiB at most); wider ones are sorted.
pub const GROUP_TABLE_MAX_RANGE: u64 = 1 << 22;

/// Slots of the table a thread of [`GROUP_COUNT`] and [`GROUP_WRITE`] takes.
pub const GROUP_ITEMS: u32 = 16;

/// Slots of the table a block of [`GROUP_COUNT`] and [`GROUP_WRITE`] takes.
pub const GROUP_TILE: u64 = BLOCK as u64 * GROUP_ITEMS as u64;

/// The keys' smallest and largest order words (order.cuh: `wd_sort_word`, ascending) into
/// `range[0]` and `range[1]`, which the caller sets to `u64::MAX` and 0. Grid-stride.
pub const GROUP_RANGE: Kernel = kernel(
    "wd_k_group_range",
    &[
        p("keys", In(Elem)),
        p("n", U64),
        p("range", Out(Pointee::U64)),
    ],
    "wd_group_range(keys, n, range);",
);

/// Each pair into the `table` (zeroed, `hi - lo + 1` slots): slot `word(key) - lo` gains
/// `(1 << 32) + (value as u32)` by one 64-bit atomic add. Grid-stride.
pub const GROUP_TABLE: Kernel = kernel(
    "wd_k_group_table",
    &[
        p("keys", In(Elem)),
        p("vals", In(Value)),
        p("n", U64),
        p("lo", U64),
        p("table", Out(Pointee::U64)),
    ],
    "wd_group_table(keys, vals, n, lo, table);",
);

/// Block `b`: the groups (slots whose high half is not zero) among slots `b * GROUP_TILE ..`
/// of the table's `range` into `counts[b]`, and added to `*total` (zeroed).
pub const GROUP_COUNT: Kernel = kernel(
    "wd_k_group_count",
    &[
        p("table", In(Pointee::U64)),
        p("range", U64),
        p("counts", Out(Pointee::U32)),
        p("total", Out(Pointee::U64)),
    ],
    "wd_group_count(table, range, counts, total);",
);

/// Block `b`: its tile's groups in slot order, after the groups of the tiles before it
/// (`counts`): the key (the order word `lo + slot`) into `keys_out` and `identity` plus the
/// slot's low half, as the value type (wrapping), into `vals_out`.
pub const GROUP_WRITE: Kernel = kernel(
    "wd_k_group_write",
    &[
        p("table", In(Pointee::U64)),
        p("range", U64),
        p("lo", U64),
        p("counts", In(Pointee::U32)),
        p("identity", U32),
        p("keys_out", Out(Elem)),
        p("vals_out", Out(Value)),
    ],
    "wd_group_write(table, range, lo, counts, identity, keys_out, vals_out);",
);

/// The kernels of a group module.
pub const GROUP_KERNELS: &[&Kernel] = &[&GROUP_RANGE, &GROUP_TABLE, &GROUP_COUNT, &GROUP_WRITE];

/// The group family's constants, emitted as `#define`s.
pub const GROUP_DEFINES: &[(&str, u64)] = &[("WD_GROUP_ITEMS", GROUP_ITEMS as u64)];

/// A group module for integer keys of type `key` and integer values of type `value` (at most
/// 4 bytes): the catalogue's [`GROUP_KERNELS`].
pub fn group_module(key: Scalar, value: Scalar) -> String {
    let mut m = Module::new(&format!("group-by by a table of {key} keys, {value} sums"));
    m.template("warp.cuh");
    m.template("warp_intrinsics.cuh");
    m.template("block.cuh");
    m.template("order.cuh");
    m.template("group.cuh");
    m.kernels(
        crate::catalogue::GROUP_KERNELS,
        key.c_name(),
        value.c_name(),
    );
    m.finish(&format!("group_{key}_{value}"))
}
