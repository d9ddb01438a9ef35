//! warp-dsl against candle's own reductions and arg-sort, on the same candle CUDA tensors in
//! the same run: each operation is timed with CUDA events on candle's stream (warp-dsl runs on
//! that stream too, reading candle's memory through views), warm-up calls first, then the
//! median of several runs (candle's, then warp-dsl's). Fresh random data (cuRAND) for each
//! row. Results are checked to agree (and against plain Rust on a host copy); a mismatch
//! exits with status 1. Prints a Markdown table.
//!
//!     warp-candle bench
//!
//! `WARP_CANDLE_REPS` (default 21) timed runs per operation; `WARP_CANDLE_LOG2N` (default 28)
//! the length of the flat tensors.

use candle_core::{D, DType, Device as Candle, IndexOp, Tensor};
use warp_candle::ops::{argmax, max, sum};
use warp_candle::{GpuTimer, warp_device_of, wrap};
use warp_runtime::prelude::*;

use crate::Res;

const WARMUP: usize = 3;

/// One line of the table.
struct Row {
    op: String,
    shape: String,
    /// Bytes each call reads (for GB/s).
    bytes: f64,
    candle: Option<f64>,
    warp: Option<f64>,
    agree: String,
}

fn us(t: Option<f64>) -> String {
    t.map_or("-".into(), |t| format!("{t:.1}"))
}

fn gbs(bytes: f64, t: Option<f64>) -> String {
    t.map_or("-".into(), |t| format!("{:.0}", bytes / (t * 1e3)))
}

struct Bench {
    candle: Candle,
    dev: Device,
    timer: GpuTimer,
    reps: usize,
    rows: Vec<Row>,
    failed: usize,
    seed: u64,
}

impl Bench {
    /// Fresh random data, uniform in [-1, 1), from candle's cuRAND with a new seed.
    fn fresh(&mut self, shape: impl Into<candle_core::Shape>) -> Res<Tensor> {
        self.seed += 1;
        self.candle.set_seed(self.seed)?;
        Ok(Tensor::rand(-1.0f32, 1.0, shape, &self.candle)?)
    }

    fn time<R>(&self, f: impl FnMut() -> candle_core::Result<R>) -> Res<(f64, R)> {
        Ok(self.timer.median(WARMUP, self.reps, f)?)
    }

    fn record(&mut self, row: Row, ok: bool) {
        if !ok {
            self.failed += 1;
        }
        println!(
            "  {:<34} candle {:>9} us  warp-dsl {:>9} us  {}",
            format!("{} {}", row.op, row.shape),
            us(row.candle),
            us(row.warp),
            row.agree
        );
        self.rows.push(row);
    }

    /// sum_all, max and argmax of a flat tensor of `n` elements.
    fn flat(&mut self, n: usize) -> Res<()> {
        let shape = format!("2^{} f32", n.trailing_zeros());
        let bytes = (n * 4) as f64;

        let x = self.fresh(n)?;
        let host = x.to_vec1::<f32>()?;
        let want: f64 = host.iter().map(|&v| v as f64).sum();
        let abs: f64 = host.iter().map(|&v| (v as f64).abs()).sum();
        let (tc, c) = self.time(|| x.sum_all())?;
        let (tw, w) = self.time(|| with_view(&x, |dev, v| dev.reduce_on_device(sum, v)))?;
        let (c, w) = (c.to_scalar::<f32>()? as f64, w.get().map_err(wrap)? as f64);
        let tol = 1e-5 * abs + 1e-3;
        let ok = (c - want).abs() <= tol && (w - want).abs() <= tol;
        let agree = format!("{c:.2} / {w:.2} (exact {want:.2})");
        self.record(row("sum_all", &shape, bytes, tc, tw, agree), ok);

        let x = self.fresh(n)?;
        let host = x.to_vec1::<f32>()?;
        let want = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let (tc, c) = self.time(|| x.max(0))?;
        let (tw, w) = self.time(|| with_view(&x, |dev, v| dev.reduce_on_device(max, v)))?;
        let (c, w) = (c.to_scalar::<f32>()?, w.get().map_err(wrap)?);
        let ok = c == want && w == want;
        self.record(row("max", &shape, bytes, tc, tw, format!("{c} / {w}")), ok);

        let x = self.fresh(n)?;
        let host = x.to_vec1::<f32>()?;
        let want = host.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let first = host.iter().position(|&v| v == want).unwrap_or(0) as u32;
        let (tc, c) = self.time(|| x.argmax(0))?;
        let (tw, w) = self.time(|| {
            with_view(&x, |dev, v| {
                dev.reduce_on_device(argmax, &CudaInput::indexed(v))
            })
        })?;
        let (c, w) = (c.to_scalar::<u32>()?, w.get().map_err(wrap)?);
        // Ties: warp-dsl gives the first index of the max; candle any index holding it.
        let ok = host[c as usize] == want && w == (want, first);
        let agree = format!("{c} / {} (first max at {first})", w.1);
        self.record(row("argmax", &shape, bytes, tc, tw, agree), ok);
        Ok(())
    }

    /// The max of each row of `rows` x `cols`: candle's `max(D::Minus1)` and warp-dsl's
    /// `reduce_rows` (into a result array each call, as candle makes one).
    fn row_max(&mut self, rows: usize, cols: usize) -> Res<()> {
        let m = self.fresh((rows, cols))?;
        let (tc, c) = self.time(|| m.max(D::Minus1))?;
        let (tw, w) = self.time(|| {
            with_view(&m, |dev, v| -> warp_runtime::Result<DeviceVec<f32>> {
                dev.reduce_rows(max, v, cols)
            })
        })?;
        let (c, w) = (c.to_vec1::<f32>()?, w.download().map_err(wrap)?);
        let host = m.to_vec2::<f32>()?;
        let want: Vec<f32> = host
            .iter()
            .map(|r| r.iter().copied().fold(f32::NEG_INFINITY, f32::max))
            .collect();
        let ok = c == want && w == want;
        let shape = format!("{rows} x {cols}");
        let agree = format!("{} rows equal", if ok { rows } else { 0 });
        self.record(
            row(
                "max over the last dim",
                &shape,
                (rows * cols * 4) as f64,
                tc,
                tw,
                agree,
            ),
            ok,
        );
        Ok(())
    }

    /// candle's `arg_sort_last_dim` of `rows` x `cols`: warp-dsl has no sort and no per-row
    /// top-k, so candle's figure alone.
    fn arg_sort_rows(&mut self, rows: usize, cols: usize) -> Res<()> {
        let m = self.fresh((rows, cols))?;
        let shape = format!("{rows} x {cols}");
        let bytes = (rows * cols * 4) as f64;
        match self.time(|| m.arg_sort_last_dim(false)) {
            Ok((tc, idx)) => {
                // Check a few rows: descending values, a permutation.
                let mut ok = idx.dtype() == DType::U32;
                for r in [0, rows / 2, rows - 1] {
                    let i = idx.i(r)?.to_vec1::<u32>()?;
                    let v = m.i(r)?.to_vec1::<f32>()?;
                    let mut seen = vec![false; cols];
                    i.iter().for_each(|&j| seen[j as usize] = true);
                    ok &= seen.iter().all(|&s| s)
                        && i.windows(2).all(|p| v[p[0] as usize] >= v[p[1] as usize]);
                }
                let agree = "no warp-dsl sort: candle alone (rows checked sorted)".to_string();
                self.record(
                    row("arg_sort_last_dim desc", &shape, bytes, tc, f64::NAN, agree),
                    ok,
                );
            }
            Err(e) => {
                let agree = format!("candle error: {}", first_line(&e.to_string()));
                self.record(
                    row_none("arg_sort_last_dim desc", &shape, bytes, agree),
                    true,
                );
            }
        }
        Ok(())
    }

    /// The top `k` of one row of `cols`, in order with indices: candle's idiom
    /// `arg_sort_last_dim(false)` then the first `k` (`narrow`), against warp-dsl's `top_k`.
    fn top_k_row(&mut self, cols: usize, k: usize) -> Res<()> {
        let m = self.fresh((1, cols))?;
        let shape = format!("1 x {cols}, k = {k}");
        let bytes = (cols * 4) as f64;
        let op = "top-k: arg_sort + narrow / top_k";
        let (tw, w) = self.time(|| with_view(&m, |dev, v| dev.top_k(v, k)))?;
        let host = m.i(0)?.to_vec1::<f32>()?;
        let mut want = host.clone();
        want.sort_by(|a, b| b.total_cmp(a));
        want.truncate(k);
        let wv = w.values.download().map_err(wrap)?;
        let wi = w.indices.download().map_err(wrap)?;
        let warp_ok = wv == want && wi.iter().zip(&wv).all(|(&i, &v)| host[i as usize] == v);
        match self.time(|| m.arg_sort_last_dim(false)?.narrow(D::Minus1, 0, k)) {
            Ok((tc, idx)) => {
                let ci = idx.i(0)?.to_vec1::<u32>()?;
                let cv: Vec<f32> = ci.iter().map(|&i| host[i as usize]).collect();
                let ok = warp_ok && cv == want;
                let agree = format!("same {k} values in order: {ok}");
                self.record(row(op, &shape, bytes, tc, tw, agree), ok);
            }
            Err(e) => {
                let agree = format!("candle error: {}", first_line(&e.to_string()));
                self.record(row(op, &shape, bytes, f64::NAN, tw, agree), warp_ok);
            }
        }
        Ok(())
    }

    /// warp-dsl's `top_k` of a whole flat tensor, which candle's arg-sort (one block per row)
    /// cannot sort: warp-dsl's figure alone.
    fn top_k_flat(&mut self, n: usize, k: usize) -> Res<()> {
        let x = self.fresh(n)?;
        let (tw, w) = self.time(|| with_view(&x, |dev, v| dev.top_k(v, k)))?;
        let host = x.to_vec1::<f32>()?;
        let wv = w.values.download().map_err(wrap)?;
        let wi = w.indices.download().map_err(wrap)?;
        let kth = wv[k - 1];
        // Sorted, each index distinct and holding its value, and nothing left out: fewer than
        // k values above the k-th, at least k at or above it.
        let distinct = wi.iter().collect::<std::collections::HashSet<_>>().len() == k;
        let ok = wv.windows(2).all(|p| p[0] >= p[1])
            && distinct
            && wi.iter().zip(&wv).all(|(&i, &v)| host[i as usize] == v)
            && host.iter().filter(|&&v| v > kth).count() < k
            && host.iter().filter(|&&v| v >= kth).count() >= k;
        let shape = format!("2^{} f32, k = {k}", n.trailing_zeros());
        let agree = "candle: no equivalent (arg_sort_last_dim sorts a row in one block)".into();
        self.record(
            row("top_k", &shape, (n * 4) as f64, f64::NAN, tw, agree),
            ok,
        );
        Ok(())
    }
}

fn row(op: &str, shape: &str, bytes: f64, candle: f64, warp: f64, agree: String) -> Row {
    Row {
        op: op.into(),
        shape: shape.into(),
        bytes,
        candle: (!candle.is_nan()).then_some(candle),
        warp: (!warp.is_nan()).then_some(warp),
        agree,
    }
}

fn row_none(op: &str, shape: &str, bytes: f64, agree: String) -> Row {
    row(op, shape, bytes, f64::NAN, f64::NAN, agree)
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").chars().take(100).collect()
}

/// Runs `f` on warp-dsl's device of the tensor's candle device, reading the contiguous `f32`
/// tensor through a view of candle's `CudaSlice` at its layout's offsets (no copy).
fn with_view<R>(
    t: &Tensor,
    f: impl FnOnce(&Device, &warp_runtime::cudarc::driver::CudaView<'_, f32>) -> warp_runtime::Result<R>,
) -> candle_core::Result<R> {
    let candle_core::Device::Cuda(cuda) = t.device() else {
        candle_core::bail!("the bench needs a CUDA tensor");
    };
    let dev = warp_device_of(cuda)?;
    let (storage, layout) = t.storage_and_layout();
    let candle_core::Storage::Cuda(s) = &*storage else {
        candle_core::bail!("the bench needs a CUDA tensor");
    };
    let view = s
        .as_cuda_slice::<f32>()?
        .slice(warp_candle::contiguous_range(layout)?);
    f(&dev, &view).map_err(wrap)
}

fn env_usize(name: &str, default: usize) -> Res<usize> {
    match std::env::var(name) {
        Ok(v) if !v.is_empty() => Ok(v.parse().map_err(|e| format!("{name}={v}: {e}"))?),
        _ => Ok(default),
    }
}

pub fn main() -> Res<()> {
    let reps = env_usize("WARP_CANDLE_REPS", 21)?;
    let log2n = env_usize("WARP_CANDLE_LOG2N", 28)?;
    let candle = Candle::new_cuda(0)?;
    let cuda = candle.as_cuda_device()?.clone();
    let dev = warp_device_of(&cuda)?;
    println!(
        "warp-dsl vs candle 0.11.1 on {}: CUDA events on candle's stream, {WARMUP} warm-up calls, median of {reps}",
        dev.describe()
    );
    let mut b = Bench {
        timer: GpuTimer::new(cuda.cuda_stream()),
        candle,
        dev,
        reps,
        rows: Vec::new(),
        failed: 0,
        seed: 20_260_000,
    };
    let n = 1usize << log2n;
    b.flat(n)?;
    b.row_max(n / 1024, 1024)?;
    b.arg_sort_rows(1 << 14, 1024)?;
    b.top_k_row(1024, 1024)?;
    b.top_k_row(8192, 64)?;
    b.top_k_flat(n, 1024)?;

    println!();
    println!(
        "| op | shape | candle us | warp-dsl us | candle / warp-dsl | candle GB/s | warp-dsl GB/s | results |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for r in &b.rows {
        let ratio = match (r.candle, r.warp) {
            (Some(c), Some(w)) => format!("{:.2}x", c / w),
            _ => "-".into(),
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.op,
            r.shape,
            us(r.candle),
            us(r.warp),
            ratio,
            gbs(r.bytes, r.candle),
            gbs(r.bytes, r.warp),
            r.agree
        );
    }
    let modules = b.dev.load_reports();
    println!();
    println!(
        "warp-dsl modules loaded: {}; checks failed: {}",
        modules.len(),
        b.failed
    );
    if b.failed > 0 {
        std::process::exit(1);
    }
    Ok(())
}
