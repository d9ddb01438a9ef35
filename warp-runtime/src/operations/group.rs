//! The group-by by a table (`Device::group_reduce` where it applies: wrapping integer sums
//! over integer keys of a narrow range): its module and the operation's body.

use std::any::TypeId;

use warp_kernels::Redux;
use warp_kernels::module;

use super::{ByKey, composed, gpu_bytes, location, typed};
use crate::OutputArray;
use crate::arrays::{ArrayOf, ValueArray};
use crate::backend::Backend;
use crate::backend::cuda::{ModuleKey, ModuleKind};
use crate::device::Device;
use crate::error::Result;
use crate::inputs::AsSlice;
use crate::operators::ReduceOp;
use crate::toolchain::ModuleSource;
use crate::values::{DeviceValue, Element, Ordered};

fn group_key<K: Ordered, V: Element>() -> ModuleKey {
    ModuleKey::new(
        ModuleKind::Group,
        [TypeId::of::<K>(), TypeId::of::<V>(), TypeId::of::<()>()],
    )
}

/// The CUDA module of [`Device::group_reduce`]'s table (integer keys `K`, sums of the integer
/// type `V`, at most 4 bytes): the keys' range, the table, its groups counted and written.
///
/// ```
/// use warp_runtime::impl_::group_module;
/// assert!(group_module::<i32, u16>().source.contains("wd_k_group_table("));
/// ```
pub fn group_module<K: Ordered, V: Element>() -> ModuleSource {
    composed(
        location(&format!("group_{}_{}", K::NAME, V::NAME), file!(), line!()),
        module::group_module(K::SCALAR, V::SCALAR),
        false,
    )
}

impl Device {
    /// [`Device::group_reduce`] without a sort, where it applies (`None` where not: nothing
    /// launched, or only the keys' range read): on a GPU, integer keys whose values (as
    /// ordered) span at most 2^22 (`catalogue::GROUP_TABLE_MAX_RANGE`), an operator that is the
    /// wrapping add of integers of at most 4 bytes (`a + b` or `a.wrapping_add(b)`, which
    /// `#[reduce]` recognises), fewer than 2^31 pairs. Each pair adds to its key's slot of a
    /// table, then the slots that hold a pair are written in key order: the sum of a group
    /// does not depend on the order of its additions, so the result is the sort's, bit for bit.
    pub(super) fn group_reduce_by_table<K, Op, SK, SV>(
        &self,
        op: &Op,
        keys: &SK,
        values: &SV,
    ) -> Result<Option<ByKey<K, Op::Value>>>
    where
        K: Ordered,
        Op: ReduceOp,
        Op::Value: Element + ArrayOf,
        SK: AsSlice<K> + ?Sized,
        SV: AsSlice<Op::Value> + ?Sized,
    {
        let Backend::Gpu(g) = &*self.backend else {
            return Ok(None);
        };
        let value = <Op::Value as Element>::SCALAR;
        let (ke, ve) = (keys.elements(), values.elements());
        let n = ke.len();
        if Op::META.fragment.redux != Some(Redux::Add)
            || !K::SCALAR.is_int()
            || !value.is_int()
            || value.bits() > 32
            || n == 0
            || n >= 1 << 31
            || ve.len() != n
        {
            return Ok(None);
        }
        self.check_elements(&ke)?;
        self.check_elements(&ve)?;
        let module = g.module(group_key::<K, Op::Value>(), group_module::<K, Op::Value>)?;
        let Some(table) = g.group_table(&module, ke.gpu()?, ve.columns()?.views.remove(0))? else {
            return Ok(None);
        };
        // The identity's bits, zero-extended: only the value type's low bits are kept.
        let mut word = [0u8; 4];
        op.identity()
            .write_c(&mut word[..<Op::Value as DeviceValue>::C_SIZE]);
        let mut k = self.new_array::<K>(table.groups)?;
        let mut v = <Op::Value as ArrayOf>::Array::alloc(self, table.groups)?;
        let mut key_bytes = gpu_bytes(k.target()?)?;
        let value_bytes = gpu_bytes(v.target()?)?;
        g.group_write(
            &module,
            &table,
            u32::from_le_bytes(word),
            typed::<K>(&mut key_bytes, table.groups)?,
            value_bytes,
        )?;
        Ok(Some(ByKey { keys: k, values: v }))
    }
}
