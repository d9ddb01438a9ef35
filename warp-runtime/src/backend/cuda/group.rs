//! Launch code of the group-by by a table: the keys' range, the table of the range's slots
//! (one atomic add a pair), then the present slots counted and written in key order.

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use warp_kernels::catalogue::{
    BLOCK, GROUP_COUNT, GROUP_RANGE, GROUP_TABLE, GROUP_TABLE_MAX_RANGE, GROUP_TILE, GROUP_WRITE,
};

use super::launch::{Elems, ElemsOut, In, Out, Values, ValuesIn, kernel_args};
use super::modules::Module;
use super::{Gpu, drv};
use crate::error::Result;
use crate::values::Element;

kernel_args! {
    /// `wd_k_group_range`.
    struct GroupRangeArgs ['v, E] ['v, E] for [GROUP_RANGE] {
        keys: Elems<'v, E>,
        n: u64,
        range: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_group_table`.
    struct GroupTableArgs ['v, E] ['v, E] for [GROUP_TABLE] {
        keys: Elems<'v, E>,
        vals: ValuesIn<'v>,
        n: u64,
        lo: u64,
        table: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_group_count`.
    struct GroupCountArgs ['v] ['v] for [GROUP_COUNT] {
        table: In<'v, u64>,
        range: u64,
        counts: Out<'v, u32>,
        total: Out<'v, u64>,
    }
}

kernel_args! {
    /// `wd_k_group_write`.
    struct GroupWriteArgs ['v, E] ['v, E] for [GROUP_WRITE] {
        table: In<'v, u64>,
        range: u64,
        lo: u64,
        counts: In<'v, u32>,
        identity: u32,
        keys_out: ElemsOut<'v, E>,
        vals_out: Values<'v>,
    }
}

/// A filled table of a group-by: its slots, the number of groups in each tile of them, the
/// smallest key's order word and the number of groups.
pub(crate) struct GroupTable {
    table: CudaSlice<u64>,
    counts: CudaSlice<u32>,
    lo: u64,
    /// The number of distinct keys.
    pub(crate) groups: usize,
}

impl Gpu {
    /// The table of the group-by of `keys` (at least one, fewer than 2^31) with `values` (as
    /// many, integers of at most 4 bytes, as bytes) by group module `m`: `None` when the keys'
    /// order words span more than [`GROUP_TABLE_MAX_RANGE`] (read back first; nothing else
    /// launched), else the table, counted. Waits for the range and for the count.
    pub(crate) fn group_table<K: Element>(
        &self,
        m: &Module,
        keys: CudaView<'_, K>,
        values: CudaView<'_, u8>,
    ) -> Result<Option<GroupTable>> {
        let n = keys.len();
        let mut range = self.upload(&[u64::MAX, 0u64])?;
        let f = m.function(&GROUP_RANGE)?;
        let grid = self.resident_grid(&f, n.div_ceil(BLOCK as usize));
        self.launch(
            m,
            &GROUP_RANGE,
            grid,
            &mut GroupRangeArgs {
                keys: Elems(keys.slice(..)),
                n: n as u64,
                range: Out::At(range.slice_mut(..)),
            },
        )?;
        let [lo, hi]: [u64; 2] = self.download(&range.slice(..))?.try_into().map_err(|_| {
            crate::error::Error::Shape("the group-by's key range was not read".into())
        })?;
        if hi < lo || hi - lo >= GROUP_TABLE_MAX_RANGE {
            return Ok(None);
        }
        let slots = (hi - lo + 1) as usize;
        let tiles = slots.div_ceil(GROUP_TILE as usize);
        let mut table = self.alloc::<u64>(slots)?;
        let mut counts = self.alloc::<u32>(tiles)?;
        let mut total = self.alloc::<u64>(1)?;
        self.stream
            .memset_zeros(&mut table)
            .map_err(drv("zeroing a group-by's table"))?;
        self.stream
            .memset_zeros(&mut total)
            .map_err(drv("zeroing a group-by's count"))?;
        let f = m.function(&GROUP_TABLE)?;
        let grid = self.resident_grid(&f, n.div_ceil(BLOCK as usize));
        self.launch(
            m,
            &GROUP_TABLE,
            grid,
            &mut GroupTableArgs {
                keys: Elems(keys),
                vals: ValuesIn::At(values),
                n: n as u64,
                lo,
                table: Out::At(table.slice_mut(..)),
            },
        )?;
        self.launch(
            m,
            &GROUP_COUNT,
            tiles as u32,
            &mut GroupCountArgs {
                table: In::At(table.slice(..)),
                range: slots as u64,
                counts: Out::At(counts.slice_mut(..)),
                total: Out::At(total.slice_mut(..)),
            },
        )?;
        let groups = self.download(&total.slice(..))?[0] as usize;
        Ok(Some(GroupTable {
            table,
            counts,
            lo,
            groups,
        }))
    }

    /// The groups of table `t` in key order: keys into `keys_out` and `identity` (the
    /// operator's, as a 32-bit word) plus each group's sum into `values_out` (as bytes), each
    /// `t.groups` long.
    pub(crate) fn group_write<K: Element>(
        &self,
        m: &Module,
        t: &GroupTable,
        identity: u32,
        keys_out: CudaViewMut<'_, K>,
        values_out: CudaViewMut<'_, u8>,
    ) -> Result<()> {
        let slots = t.table.len();
        self.launch(
            m,
            &GROUP_WRITE,
            slots.div_ceil(GROUP_TILE as usize) as u32,
            &mut GroupWriteArgs {
                table: In::At(t.table.slice(..)),
                range: slots as u64,
                lo: t.lo,
                counts: In::At(t.counts.slice(..)),
                identity,
                keys_out: ElemsOut::At(keys_out),
                vals_out: Values::At(values_out),
            },
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_match_the_catalogue() {
        super::super::launch::tests::check::<super::GroupRangeArgs<'_, i32>>();
        super::super::launch::tests::check::<super::GroupTableArgs<'_, i32>>();
        super::super::launch::tests::check::<super::GroupCountArgs<'_>>();
        super::super::launch::tests::check::<super::GroupWriteArgs<'_, i32>>();
    }
}
