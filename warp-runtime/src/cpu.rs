//! The CPU backend: every operation computed with the user's own Rust function, in parallel
//! with rayon, in a fixed chunking so results do not depend on the thread count.

use rayon::prelude::*;

use crate::op::ReduceOp;
use crate::value::{Element, IndexInt};

/// Elements folded sequentially by one task.
pub const CHUNK: usize = 1 << 16;

/// Folds `data` with `op`: each chunk from the identity, then the chunk results in order.
pub fn reduce<Op>(op: Op, data: &[Op::Value]) -> Op::Value
where
    Op: ReduceOp,
    Op::Value: Element,
{
    let partials: Vec<Op::Value> = data
        .par_chunks(CHUNK)
        .map(|c| c.iter().fold(op.identity(), |a, &x| op.combine(a, x)))
        .collect();
    partials
        .into_iter()
        .fold(op.identity(), |a, x| op.combine(a, x))
}

/// Folds `(data[i], i)` pairs with `op`, in the same chunking as [`reduce`].
pub fn reduce_indexed<Op, V, I>(op: Op, data: &[V]) -> Op::Value
where
    Op: ReduceOp<Value = (V, I)>,
    V: Element,
    I: IndexInt,
{
    let partials: Vec<(V, I)> = data
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(ci, c)| {
            let base = (ci * CHUNK) as u64;
            c.iter().enumerate().fold(op.identity(), |a, (j, &x)| {
                op.combine(a, (x, I::from_index(base + j as u64)))
            })
        })
        .collect();
    partials
        .into_iter()
        .fold(op.identity(), |a, x| op.combine(a, x))
}
