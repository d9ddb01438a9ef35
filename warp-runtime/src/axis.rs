//! Scans and axis reductions: inclusive and exclusive scans, reductions along the rows of a
//! matrix, over CSR segments and along its columns, and transpose; composed per (operator,
//! input) at run time, with the same Rust function run on the CPU backend.

use rayon::prelude::*;

use crate::arrays::ValueArray;
use crate::device::{Backend, Device, DeviceSlice, DeviceVec, Indexed, Storage, sealed};
use crate::elements::{AsSlice, ElementInput, fragment, join_args, reduce_fragment};
use crate::error::{Error, Result};
use crate::gpu::{self, Rows};
use crate::op::{FnMeta, OpMeta, ReduceOp};
use crate::value::{DeviceValue, Element, IndexInt};

/// What the values of an axis operation are made of (for the generated kernel).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum AxisSource {
    /// The elements themselves.
    Plain,
    /// A map of each element, with its bound arguments.
    Map(&'static FnMeta, [u64; 8]),
    /// `(element, index)` pairs; the index type's Rust name and largest value.
    Indexed(&'static str, u64),
}

/// An input of scans and axis reductions with `Op`: a `DeviceVec<Op::Value>` or a view of
/// one, a mapped view `xs.map(f)` whose map returns `Op::Value`, or `xs.indexed()` when
/// `Op::Value` is `(V, I)` (argmax, ...; the index is the flat position in the input).
pub trait AxisInput<Op: ReduceOp>: sealed::Sealed + Sync {
    /// The stored element type.
    type Elem: Element;
    /// The stored elements.
    #[doc(hidden)]
    fn elements(&self) -> DeviceSlice<'_, Self::Elem>;
    /// How values are made from elements.
    #[doc(hidden)]
    fn source(&self) -> AxisSource;
    /// The value of element `e` at flat position `i` (on the CPU).
    #[doc(hidden)]
    fn value(&self, e: Self::Elem, i: u64) -> Op::Value;
}

impl<In, Op> AxisInput<Op> for In
where
    In: ElementInput + ?Sized,
    Op: ReduceOp<Value = In::Value>,
{
    type Elem = In::Elem;
    fn elements(&self) -> DeviceSlice<'_, In::Elem> {
        ElementInput::elements(self)
    }
    fn source(&self) -> AxisSource {
        match self.map_meta() {
            Some((m, args)) => AxisSource::Map(m, args),
            None => AxisSource::Plain,
        }
    }
    fn value(&self, e: In::Elem, _: u64) -> Op::Value {
        ElementInput::value(self, e)
    }
}

impl<V: Element, I: IndexInt, Op: ReduceOp<Value = (V, I)>> AxisInput<Op> for Indexed<'_, V> {
    type Elem = V;
    fn elements(&self) -> DeviceSlice<'_, V> {
        self.slice
    }
    fn source(&self) -> AxisSource {
        AxisSource::Indexed(I::NAME, I::MAX_INDEX)
    }
    fn value(&self, e: V, i: u64) -> (V, I) {
        (e, I::from_index(i))
    }
}

/// The axis module (scan, rows, segments, columns) of `Op` over values made by `source` from
/// elements named `elem`: composed once per combination and kept for the process.
pub fn axis_module<Op: ReduceOp>(elem: &'static str, source: AxisSource) -> &'static OpMeta {
    let first = match source {
        AxisSource::Plain => 0,
        AxisSource::Map(m, _) => m as *const FnMeta as usize,
        // The index type's name: a static string, never at the address of a map's metadata.
        AxisSource::Indexed(index, _) => index.as_ptr() as usize,
    };
    let key = ("axis", first, &Op::META as *const OpMeta as usize, elem);
    gpu::composed(key, || {
        let o = &Op::META;
        let opf = reduce_fragment(o);
        let index_c;
        let mapf;
        let src = match source {
            AxisSource::Plain => kernels_gen::compose::Source::Plain,
            AxisSource::Map(m, _) => {
                mapf = fragment(m);
                kernels_gen::compose::Source::Map(&mapf)
            }
            AxisSource::Indexed(index, _) => {
                index_c = kernels_gen::compose::c_scalar(index);
                kernels_gen::compose::Source::Indexed { index: &index_c }
            }
        };
        let source_text = kernels_gen::compose::axis_module(elem, src, &opf);
        (
            format!("axis_{}_{elem}", o.name),
            source_text,
            o.file.to_string(),
            o.line,
        )
    })
}

/// The (GPU view, module, bound arguments) of an axis operation's input.
struct Launch<'a, E: Element> {
    view: cudarc::driver::CudaView<'a, E>,
    meta: &'static OpMeta,
    args: [u64; 8],
}

fn gpu_input<'a, Op, I>(device: &Device, input: &'a I) -> Result<Launch<'a, I::Elem>>
where
    Op: ReduceOp,
    I: AxisInput<Op> + ?Sized,
{
    let s = input.elements();
    device.check_owner(s.vec)?;
    let Storage::Gpu(buf) = &s.vec.storage else {
        return Err(Error::DeviceMismatch);
    };
    let source = input.source();
    if let AxisSource::Indexed(index, max) = source
        && s.len > 0
        && (s.len - 1) as u64 > max
    {
        return Err(Error::Shape(format!(
            "{} elements cannot be indexed with `{index}` (largest index {max}); use a wider index type",
            s.len
        )));
    }
    let args = match source {
        AxisSource::Map(m, a) => join_args(Some((m, a)), None)?,
        _ => [0; 8],
    };
    Ok(Launch {
        view: buf.slice(s.start..s.start + s.len),
        meta: axis_module::<Op>(I::Elem::NAME, source),
        args,
    })
}

/// The values of `input` on the CPU, in order.
fn cpu_values<Op, I>(device: &Device, input: &I) -> Result<Vec<Op::Value>>
where
    Op: ReduceOp,
    I: AxisInput<Op> + ?Sized,
{
    device.cpu_map(input.elements(), |e, i| input.value(e, i))
}

fn fold<Op: ReduceOp>(op: Op, values: &[Op::Value]) -> Op::Value {
    values.iter().fold(op.identity(), |a, &x| op.combine(a, x))
}

/// `len / cols` when `cols` divides it: the number of rows of a row-major matrix.
fn rows_of(len: usize, cols: usize) -> Result<usize> {
    if cols == 0 {
        return Err(Error::Shape("a matrix needs at least one column".into()));
    }
    if !len.is_multiple_of(cols) {
        return Err(Error::Shape(format!(
            "{len} elements are not a whole number of rows of {cols} columns"
        )));
    }
    Ok(len / cols)
}

type Array<Op> = <<Op as ReduceOp>::Value as DeviceValue>::Array;

impl Device {
    /// The inclusive scan of `input` with `op`: `out[i] = x[0] + ... + x[i]`, combined in
    /// order. On the GPU: a thread scan, a Kogge-Stone warp scan (`__shfl_up_sync`), a block
    /// scan of warp totals, and one pass over the data with decoupled look-back between
    /// blocks. Deterministic (the same bits every run): values holding floats, whose rounding
    /// would depend on how the look-back happens to group tiles, take three passes instead
    /// (tile aggregates, their scan in a fixed order, then the tiles). Returns a
    /// [`DeviceVec`] for scalar operators and a [`DeviceTuples`](crate::DeviceTuples) for
    /// tuple ones.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0)]
    /// fn add(a: i32, b: i32) -> i32 { a.wrapping_add(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[1, 2, 3, 4])?;
    /// assert_eq!(dev.scan(add, &xs)?.download()?, vec![1, 3, 6, 10]);
    /// assert_eq!(dev.exclusive_scan(add, &xs)?.download()?, vec![0, 1, 3, 6]);
    /// # Ok(()) }
    /// ```
    pub fn scan<Op, I>(&self, op: Op, input: &I) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        self.run_scan(op, input, false)
    }

    /// The exclusive scan of `input` with `op`: `out[0]` is the identity and
    /// `out[i] = x[0] + ... + x[i - 1]`. Same machinery as [`Device::scan`].
    pub fn exclusive_scan<Op, I>(&self, op: Op, input: &I) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        self.run_scan(op, input, true)
    }

    fn run_scan<Op, I>(&self, op: Op, input: &I, exclusive: bool) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        let n = input.elements().len();
        match &*self.backend {
            Backend::Cpu => {
                let values = cpu_values(self, input)?;
                let mut acc = op.identity();
                let out: Vec<Op::Value> = values
                    .iter()
                    .map(|&x| {
                        let before = acc;
                        acc = op.combine(acc, x);
                        if exclusive { before } else { acc }
                    })
                    .collect();
                Array::<Op>::from_values(self, &out)
            }
            Backend::Gpu(g) => {
                let l = gpu_input::<Op, I>(self, input)?;
                let (out, ptr) = Array::<Op>::alloc_gpu(self, n)?;
                if n > 0 {
                    g.scan(
                        l.meta,
                        &l.view,
                        &l.args,
                        ptr,
                        Op::Value::C_SIZE,
                        Op::Value::EXACT,
                        exclusive,
                    )?;
                }
                Ok(out)
            }
        }
    }

    /// Reduces each row of the row-major matrix `input` (`cols` columns; its length must be a
    /// whole number of rows) with `op`: one value per row. The kernel is chosen by shape:
    /// several rows per warp with width-limited shuffles for short rows, a warp per row, a
    /// block per row, or several blocks per row for very long rows.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = 0.0)]
    /// fn sum(a: f32, b: f32) -> f32 { a + b }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0])?; // 2 x 3
    /// assert_eq!(dev.reduce_rows(sum, &m, 3)?.download()?, vec![6.0, 15.0]);
    /// assert_eq!(dev.reduce_cols(sum, &m, 3)?.download()?, vec![5.0, 7.0, 9.0]);
    /// # Ok(()) }
    /// ```
    pub fn reduce_rows<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        let rows = rows_of(input.elements().len(), cols)?;
        match &*self.backend {
            Backend::Cpu => {
                let values = cpu_values(self, input)?;
                let out: Vec<Op::Value> = if rows == 0 {
                    Vec::new()
                } else {
                    values.par_chunks(cols).map(|r| fold(op, r)).collect()
                };
                Array::<Op>::from_values(self, &out)
            }
            Backend::Gpu(g) => {
                let l = gpu_input::<Op, I>(self, input)?;
                let (out, ptr) = Array::<Op>::alloc_gpu(self, rows)?;
                if rows > 0 {
                    let shape = Rows { rows, cols };
                    g.reduce_rows(l.meta, &l.view, &l.args, shape, ptr, Op::Value::C_SIZE)?;
                }
                Ok(out)
            }
        }
    }

    /// Reduces each column of the row-major matrix `input` (`cols` columns) with `op`: one
    /// value per column. Loads are coalesced along rows; the threads sharing a column combine
    /// through a `[32][33]` padded shared tile (no bank conflicts).
    pub fn reduce_cols<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        self.reduce_cols_with(op, input, cols, true)
    }

    /// [`Device::reduce_cols`] through an unpadded `[32][32]` tile: 32-way shared-memory bank
    /// conflicts. It exists only to measure what the padding saves (see BENCHMARKS.md); the
    /// results are the same.
    #[doc(hidden)]
    pub fn reduce_cols_unpadded<Op, I>(&self, op: Op, input: &I, cols: usize) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        self.reduce_cols_with(op, input, cols, false)
    }

    fn reduce_cols_with<Op, I>(
        &self,
        op: Op,
        input: &I,
        cols: usize,
        padded: bool,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        let rows = rows_of(input.elements().len(), cols)?;
        match &*self.backend {
            Backend::Cpu => {
                let values = cpu_values(self, input)?;
                let out: Vec<Op::Value> = (0..cols)
                    .into_par_iter()
                    .map(|c| {
                        (0..rows).fold(op.identity(), |a, r| op.combine(a, values[r * cols + c]))
                    })
                    .collect();
                Array::<Op>::from_values(self, &out)
            }
            Backend::Gpu(g) => {
                let l = gpu_input::<Op, I>(self, input)?;
                let (out, ptr) = Array::<Op>::alloc_gpu(self, cols)?;
                let shape = Rows { rows, cols };
                let size = Op::Value::C_SIZE;
                g.reduce_cols(l.meta, &l.view, &l.args, shape, ptr, size, padded)?;
                Ok(out)
            }
        }
    }

    /// Reduces each segment of `input` with `op`: segment `s` is the elements
    /// `offsets[s]..offsets[s + 1]` (CSR offsets: non-decreasing, the last at most the input's
    /// length). Empty segments give the identity. Bad offsets are an [`Error::Shape`].
    ///
    /// On a GPU, one warp reduces each segment of up to 8192 elements (several of up to 32
    /// together); longer ones are then split into chunks over the whole grid, so one huge
    /// segment still runs at close to the full read bandwidth.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// #[reduce(identity = i64::MIN)]
    /// fn max(a: i64, b: i64) -> i64 { a.max(b) }
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let xs = dev.upload(&[4i64, 1, 9, 2, 7])?;
    /// let offsets = dev.upload(&[0u64, 2, 2, 5])?; // [4, 1], [], [9, 2, 7]
    /// assert_eq!(dev.reduce_segments(max, &xs, &offsets)?.download()?, vec![4, i64::MIN, 9]);
    /// # Ok(()) }
    /// ```
    pub fn reduce_segments<Op, I>(
        &self,
        op: Op,
        input: &I,
        offsets: &DeviceVec<u64>,
    ) -> Result<Array<Op>>
    where
        Op: ReduceOp,
        I: AxisInput<Op> + ?Sized,
    {
        self.check_owner(offsets)?;
        let n = input.elements().len();
        if offsets.is_empty() {
            return Err(Error::Shape(
                "CSR offsets need at least one entry (segments + 1)".into(),
            ));
        }
        let nseg = offsets.len() - 1;
        match &*self.backend {
            Backend::Cpu => {
                let values = cpu_values(self, input)?;
                let o = offsets.download()?;
                check_offsets(&o, n)?;
                let out: Vec<Op::Value> = o
                    .par_windows(2)
                    .map(|w| fold(op, &values[w[0] as usize..w[1] as usize]))
                    .collect();
                Array::<Op>::from_values(self, &out)
            }
            Backend::Gpu(g) => {
                let l = gpu_input::<Op, I>(self, input)?;
                let (out, ptr) = Array::<Op>::alloc_gpu(self, nseg)?;
                let Storage::Gpu(obuf) = &offsets.storage else {
                    return Err(Error::DeviceMismatch);
                };
                if nseg > 0 {
                    let bad = g.reduce_segments(
                        l.meta,
                        &l.view,
                        &l.args,
                        &obuf.slice(..),
                        nseg,
                        ptr,
                        Op::Value::C_SIZE,
                    )?;
                    if bad {
                        check_offsets(&offsets.download()?, n)?;
                    }
                }
                Ok(out)
            }
        }
    }

    /// The transpose of the row-major matrix `input` (`cols` columns): a `cols x rows`
    /// row-major matrix. Through a `[32][33]` padded shared tile, so that both the reads and
    /// the writes are coalesced and shared memory has no bank conflicts.
    ///
    /// ```
    /// use warp_runtime::prelude::*;
    /// # fn main() -> warp_runtime::Result<()> {
    /// let dev = Device::cpu();
    /// let m = dev.upload(&[1u8, 2, 3, 4, 5, 6])?; // 2 x 3
    /// assert_eq!(dev.transpose(&m, 3)?.download()?, vec![1, 4, 2, 5, 3, 6]);
    /// # Ok(()) }
    /// ```
    pub fn transpose<T: Element, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
    ) -> Result<DeviceVec<T>> {
        self.transpose_with(input, cols, true)
    }

    /// [`Device::transpose`] through an unpadded `[32][32]` tile (bank conflicts), for the
    /// padding measurement only.
    #[doc(hidden)]
    pub fn transpose_unpadded<T: Element, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
    ) -> Result<DeviceVec<T>> {
        self.transpose_with(input, cols, false)
    }

    fn transpose_with<T: Element, S: AsSlice<T> + ?Sized>(
        &self,
        input: &S,
        cols: usize,
        padded: bool,
    ) -> Result<DeviceVec<T>> {
        let s = input.as_view();
        self.check_owner(s.vec)?;
        let rows = rows_of(s.len, cols)?;
        match (&*self.backend, &s.vec.storage) {
            (Backend::Cpu, Storage::Cpu(v)) => {
                let m = &v[s.start..s.start + s.len];
                let out: Vec<T> = (0..cols * rows)
                    .into_par_iter()
                    .map(|i| m[(i % rows) * cols + i / rows])
                    .collect();
                self.upload(&out)
            }
            (Backend::Gpu(g), Storage::Gpu(buf)) => {
                let (out, ptr) = DeviceVec::<T>::alloc_gpu(self, s.len)?;
                if s.len > 0 {
                    let meta = transpose_module(T::NAME);
                    let shape = Rows { rows, cols };
                    g.transpose(
                        meta,
                        &buf.slice(s.start..s.start + s.len),
                        shape,
                        ptr,
                        padded,
                    )?;
                }
                Ok(out)
            }
            _ => Err(Error::DeviceMismatch),
        }
    }
}

/// Checks CSR offsets against an input of `n` elements.
fn check_offsets(o: &[u64], n: usize) -> Result<()> {
    if let Some(w) = o.windows(2).position(|w| w[1] < w[0]) {
        return Err(Error::Shape(format!(
            "CSR offsets decrease at segment {w}: {} then {}",
            o[w],
            o[w + 1]
        )));
    }
    match o.last() {
        Some(&last) if last > n as u64 => Err(Error::Shape(format!(
            "the last CSR offset ({last}) is past the input's {n} elements"
        ))),
        _ => Ok(()),
    }
}

/// The transpose module for elements named `elem`: composed once per element type.
pub fn transpose_module(elem: &'static str) -> &'static OpMeta {
    gpu::composed(("transpose", 0, 0, elem), || {
        (
            format!("transpose_{elem}"),
            kernels_gen::compose::transpose_module(elem),
            file!().to_string(),
            line!(),
        )
    })
}
