//! The warp and block primitives (warp-kernels' `warp.cuh` and `block.cuh`) tested on their
//! own: the test kernels of `tests/emu/primitives.cuh` (one per primitive, one block of
//! `catalogue::BLOCK` threads, 32-bit words in and out), the cases they run on random inputs,
//! and the check of each output against plain sequential Rust. The emulation
//! (`emu_primitives.rs`) and the GPU (`gpu_primitives.rs`) run the same cases through
//! [`run_all`]; `nvrtc_compile.rs` compiles [`source`].

use rand::Rng;
use rand::rngs::SmallRng;
use warp_kernels::catalogue;
use warp_kernels::module::TEMPLATES;

/// The test kernels (appended to the primitives by [`source`]).
pub const KERNELS: &str = include_str!("../emu/primitives.cuh");

/// Every test kernel's name (`WD_T_KERNELS` of the kernels' file).
pub const NAMES: [&str; 16] = [
    "wd_t_warp_reduce",
    "wd_t_warp_allreduce",
    "wd_t_warp_fold_back",
    "wd_t_warp_scan",
    "wd_t_warp_seg_scan",
    "wd_t_ballot_rank",
    "wd_t_lower_bound",
    "wd_t_block_reduce",
    "wd_t_block_scan",
    "wd_t_block_warp_totals",
    "wd_t_radix",
    "wd_t_bitonic",
    "wd_t_merge_sort",
    "wd_t_bitonic_words",
    "wd_t_tiles",
    "wd_t_tiles_striped",
];

const THREADS: usize = catalogue::BLOCK as usize;
const WARPS: usize = THREADS / 32;
const SENTINEL: u32 = 0xDEAD_BEEF;

fn template(name: &str) -> &'static str {
    TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("no template {name}"))
        .1
}

/// The source of the test kernels: the catalogue's constants, the prelude, the warp
/// primitives, the intrinsics-style warp reduce, the block primitives, then the kernels (the
/// order modules include them in).
pub fn source() -> String {
    let mut s = String::from("// warp-dsl: the warp and block primitives' test kernels.\n");
    s.push_str(&catalogue::defines());
    for t in [
        "prelude.cuh",
        "warp.cuh",
        "warp_intrinsics.cuh",
        "block.cuh",
    ] {
        s.push_str(template(t));
        s.push('\n');
    }
    s.push_str(KERNELS);
    s
}

/// One launch of a test kernel (one block): its name, `n` and `arg`, its input words and the
/// number of output words it may write (the output starts filled with 0xDEADBEEF).
#[derive(Clone, Debug)]
pub struct Case {
    pub kernel: &'static str,
    pub n: u32,
    pub arg: u32,
    pub input: Vec<u32>,
    pub out_words: usize,
}

impl Case {
    fn new(kernel: &'static str, n: u32, arg: u32, input: Vec<u32>, out_words: usize) -> Case {
        // The kernels' vector loads read whole 16-byte vectors: inputs are padded to them.
        let mut input = input;
        input.resize(input.len().div_ceil(4) * 4 + 4, 0);
        Case {
            kernel,
            n,
            arg,
            input,
            out_words,
        }
    }

    fn what(&self) -> String {
        format!("{} n={} arg={}", self.kernel, self.n, self.arg)
    }
}

/// The affine maps x -> a x + b modulo 2^32, composed in order (the kernels' `wd_t_aff`).
type Aff = (u32, u32);
const AFF_ID: Aff = (1, 0);
fn aff(x: Aff, y: Aff) -> Aff {
    (
        x.0.wrapping_mul(y.0),
        x.1.wrapping_mul(y.0).wrapping_add(y.1),
    )
}
fn pair(words: &[u32], i: usize) -> Aff {
    (words[2 * i], words[2 * i + 1])
}
fn u64_at(words: &[u32], i: usize) -> u64 {
    words[2 * i] as u64 | (words[2 * i + 1] as u64) << 32
}
fn u64_pair(x: u64) -> Aff {
    (x as u32, (x >> 32) as u32)
}
fn fold(values: impl IntoIterator<Item = Aff>) -> Aff {
    values.into_iter().fold(AFF_ID, aff)
}

/// Words with few distinct values now and then (so that maxima, digits and keys repeat).
fn words(r: &mut SmallRng, n: usize) -> Vec<u32> {
    let narrow = r.random_bool(0.5);
    (0..n)
        .map(|_| {
            if narrow {
                r.random_range(0..7u32) * 0x0101_0101
            } else {
                r.random()
            }
        })
        .collect()
}

/// Every case, on inputs from `r`.
pub fn cases(r: &mut SmallRng) -> Vec<Case> {
    let mut v = Vec::new();
    for arg in 0..3 {
        v.push(Case::new(
            "wd_t_warp_reduce",
            0,
            arg,
            words(r, 2 * THREADS),
            2 * WARPS,
        ));
        v.push(Case::new(
            "wd_t_block_reduce",
            0,
            arg,
            words(r, 2 * THREADS),
            2,
        ));
    }
    for g in [1, 2, 4, 8, 16, 32] {
        v.push(Case::new(
            "wd_t_warp_allreduce",
            0,
            g,
            words(r, THREADS),
            THREADS,
        ));
    }
    v.push(Case::new(
        "wd_t_warp_fold_back",
        0,
        0,
        words(r, 2 * THREADS),
        2 * THREADS,
    ));
    v.push(Case::new(
        "wd_t_warp_scan",
        0,
        0,
        words(r, 2 * THREADS + 2 * WARPS),
        6 * THREADS,
    ));
    for p in [0.0, 0.1, 0.5, 1.0] {
        let mut input = words(r, 2 * THREADS);
        input.extend((0..THREADS).map(|_| r.random_bool(p) as u32));
        v.push(Case::new("wd_t_warp_seg_scan", 0, 0, input, 2 * THREADS));
        let flags = (0..8 * THREADS).map(|_| r.random_bool(p) as u32).collect();
        v.push(Case::new("wd_t_ballot_rank", 0, 0, flags, 6 * THREADS));
    }
    for len in [0usize, 1, 5, 33, 1000, 5000] {
        let mut offsets: Vec<u64> = (0..len).map(|_| r.random_range(0..3000u64)).collect();
        offsets.sort_unstable();
        let queries: Vec<u64> = (0..40).map(|_| r.random_range(0..3100u64)).collect();
        let input = offsets
            .iter()
            .chain(&queries)
            .flat_map(|&x| [x as u32, (x >> 32) as u32])
            .collect();
        v.push(Case::new("wd_t_lower_bound", len as u32, 40, input, 80));
    }
    v.push(Case::new(
        "wd_t_block_scan",
        0,
        0,
        words(r, 2 * THREADS),
        4 * THREADS + 4,
    ));
    v.push(Case::new(
        "wd_t_block_warp_totals",
        0,
        0,
        words(r, 2 * WARPS),
        2 * WARPS + 2,
    ));
    for n in [0u32, 1, 255, 256, 300, 512, 1000, 1024] {
        let keys = words(r, n as usize);
        let counted = keys.iter().filter(|&&k| k % 3 != 0).count() as u32;
        for (shift, descending) in [(0u32, true), (8, false), (24, true)] {
            for rank in [0, 1, counted / 2 + 1, counted, counted + 1] {
                let arg = shift | (descending as u32) << 5 | rank << 8;
                v.push(Case::new("wd_t_radix", n, arg, keys.clone(), 260));
            }
        }
        for arg in 0..4 {
            v.push(Case::new(
                "wd_t_bitonic",
                n,
                arg,
                keys.clone(),
                2 * n as usize,
            ));
        }
    }
    // The merge sort, 5 keys a thread: partial tiles stably by the top byte (many ties), around
    // a warp's 160 keys (the last round behind warp barriers alone) and the block's 1,280; full
    // tiles by the whole key, unstably, of random keys and of few distinct ones.
    let tile = 5 * THREADS as u32;
    for n in [0u32, 1, 5, 37, 159, 160, 161, 321, 1000, tile] {
        v.push(Case::new(
            "wd_t_merge_sort",
            n,
            0,
            words(r, n as usize),
            2 * n as usize,
        ));
    }
    let few: Vec<u32> = words(r, tile as usize).iter().map(|w| w % 5).collect();
    for keys in [words(r, tile as usize), few] {
        v.push(Case::new(
            "wd_t_merge_sort",
            tile,
            1,
            keys,
            2 * tile as usize,
        ));
    }
    // The bitonic sort of 4,096 words a group of 128 threads: groups padded (the largest word
    // past n) or idle, random words, few distinct ones, words in descending order, all the
    // largest word.
    let full = 32 * THREADS as u32;
    for n in [0u32, 1, 37, 4095, 4096, 4097, 6000, full] {
        v.push(Case::new(
            "wd_t_bitonic_words",
            n,
            0,
            words(r, n as usize),
            n as usize,
        ));
    }
    let few: Vec<u32> = words(r, full as usize).iter().map(|w| w % 5).collect();
    let descending: Vec<u32> = (0..full).rev().collect();
    for keys in [few, descending, vec![u32::MAX; full as usize]] {
        v.push(Case::new(
            "wd_t_bitonic_words",
            full,
            0,
            keys,
            full as usize,
        ));
    }
    for n in [0u32, 1, 37, 512, 4 * 512 + 37, 8 * 512, 9 * 512 + 511] {
        // (input offset, output offset): aligned, both misaligned, one of them.
        for (from, to) in [(0u32, 0u32), (1, 1), (0, 1), (3, 0)] {
            let input = words(r, (n + from) as usize);
            for kernel in ["wd_t_tiles", "wd_t_tiles_striped"] {
                v.push(Case::new(
                    kernel,
                    n,
                    from | to << 2,
                    input.clone(),
                    (n + 8) as usize,
                ));
            }
        }
    }
    v
}

/// Checks `out` (the case's `out_words` words) against sequential Rust; panics naming the
/// case and the first wrong word.
pub fn check(c: &Case, out: &[u32]) {
    let want = expected(c);
    assert_eq!(out.len(), c.out_words, "{}: output size", c.what());
    if let Some(i) = (0..out.len()).find(|&i| out[i] != want[i]) {
        panic!(
            "{}: word {i} is {:#x}, expected {:#x}",
            c.what(),
            out[i],
            want[i]
        );
    }
}

/// What the case's kernel must write (0xDEADBEEF where it writes nothing).
pub fn expected(c: &Case) -> Vec<u32> {
    let mut out = vec![SENTINEL; c.out_words];
    let input = &c.input;
    let put = |out: &mut Vec<u32>, i: usize, p: Aff| {
        out[2 * i] = p.0;
        out[2 * i + 1] = p.1;
    };
    match c.kernel {
        "wd_t_warp_reduce" => {
            for w in 0..WARPS {
                let lanes = w * 32..w * 32 + 32;
                match c.arg {
                    0 => out[w] = lanes.map(|t| input[t]).fold(0u32, u32::wrapping_add),
                    1 => out[w] = lanes.map(|t| input[t] as i32).max().unwrap() as u32,
                    _ => put(
                        &mut out,
                        w,
                        u64_pair(lanes.map(|t| u64_at(input, t)).fold(0, u64::wrapping_add)),
                    ),
                }
            }
        }
        "wd_t_block_reduce" => match c.arg {
            0 => {
                out[0] = input[..THREADS]
                    .iter()
                    .fold(0u32, |a, &b| a.wrapping_add(b))
            }
            1 => out[0] = input[..THREADS].iter().map(|&x| x as i32).max().unwrap() as u32,
            _ => put(
                &mut out,
                0,
                u64_pair(
                    (0..THREADS)
                        .map(|t| u64_at(input, t))
                        .fold(0, u64::wrapping_add),
                ),
            ),
        },
        "wd_t_warp_allreduce" => {
            let g = c.arg as usize;
            for (t, o) in out.iter_mut().enumerate() {
                let first = t / g * g;
                *o = input[first..first + g]
                    .iter()
                    .fold(0u32, |a, &b| a.wrapping_add(b));
            }
        }
        "wd_t_warp_fold_back" => {
            for t in 0..THREADS {
                let w = t / 32 * 32;
                put(&mut out, t, fold((w..w + 32).rev().map(|l| pair(input, l))));
            }
        }
        "wd_t_warp_scan" => {
            for t in 0..THREADS {
                let w = t / 32 * 32;
                let before = fold((w..t).map(|l| pair(input, l)));
                put(&mut out, 3 * t, aff(before, pair(input, t)));
                put(&mut out, 3 * t + 1, before);
                put(
                    &mut out,
                    3 * t + 2,
                    aff(pair(input, THREADS + t / 32), before),
                );
            }
        }
        "wd_t_warp_seg_scan" => {
            for t in 0..THREADS {
                let w = t / 32 * 32;
                let head = |l: usize| input[2 * THREADS + l] & 1 != 0;
                let start = (w..=t).rev().find(|&l| head(l)).unwrap_or(w);
                put(&mut out, t, fold((start..=t).map(|l| pair(input, l))));
            }
        }
        "wd_t_ballot_rank" => {
            let flag = |t: usize, k: usize| input[8 * t + k] & 1;
            for t in 0..THREADS {
                let w = t / 32 * 32;
                let rows: [(usize, usize); 3] = [(4, 4), (0, 2), (0, 1)];
                for (q, (at, vec)) in rows.into_iter().enumerate() {
                    let count = |lanes: std::ops::Range<usize>| -> u32 {
                        lanes
                            .flat_map(|l| (at..at + vec).map(move |k| (l, k)))
                            .map(|(l, k)| flag(l, k))
                            .sum()
                    };
                    out[6 * t + 2 * q] = count(w..t);
                    out[6 * t + 2 * q + 1] = count(w..w + 32);
                }
            }
        }
        "wd_t_lower_bound" => {
            let len = c.n as usize;
            let word = |i: usize| u64_at(input, i);
            let offsets: Vec<u64> = (0..len).map(word).collect();
            for q in 0..c.arg as usize {
                let at = offsets.partition_point(|&o| o < word(len + q)) as u64;
                out[2 * q] = at as u32;
                out[2 * q + 1] = (at >> 32) as u32;
            }
        }
        "wd_t_block_scan" => {
            let mut before = AFF_ID;
            for t in 0..THREADS {
                put(&mut out, 2 * t + 1, before);
                before = aff(before, pair(input, t));
                put(&mut out, 2 * t, before);
            }
            put(&mut out, 2 * THREADS, before);
            put(&mut out, 2 * THREADS + 1, before);
        }
        "wd_t_block_warp_totals" => {
            let mut before = AFF_ID;
            for w in 0..WARPS {
                put(&mut out, w, before);
                before = aff(before, pair(input, w));
            }
            put(&mut out, WARPS, before);
        }
        "wd_t_radix" => {
            let (shift, descending, rank) = (c.arg & 31, (c.arg >> 5) & 1 != 0, c.arg >> 8);
            let mut hist = [0u32; 256];
            for &k in input[..c.n as usize].iter().filter(|&&k| k % 3 != 0) {
                hist[((k >> shift) & 255) as usize] += 1;
            }
            out[..256].copy_from_slice(&hist);
            out[256..259].fill(u32::MAX);
            let order: Vec<usize> = if descending {
                (0..256).rev().collect()
            } else {
                (0..256).collect()
            };
            let mut excl = 0u32;
            for d in order {
                let incl = excl + hist[d];
                if excl < rank && rank <= incl {
                    out[256] = d as u32;
                    out[257] = rank - excl;
                    out[258] = hist[d];
                }
                excl = incl;
            }
            out[259] = excl;
        }
        "wd_t_bitonic" => {
            let mut entries: Vec<(u32, u32)> =
                input[..c.n as usize].iter().copied().zip(0..).collect();
            if c.arg & 1 == 0 {
                entries.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            } else {
                entries.sort();
            }
            for (j, (k, i)) in entries.into_iter().enumerate() {
                out[2 * j] = k;
                out[2 * j + 1] = i;
            }
        }
        "wd_t_merge_sort" => {
            let mut entries: Vec<(u32, u32)> =
                input[..c.n as usize].iter().copied().zip(0..).collect();
            if c.arg == 1 {
                entries.sort();
                entries.iter_mut().for_each(|e| e.1 = 0);
            } else {
                // Stable: equal top bytes keep their input order.
                entries.sort_by_key(|e| e.0 >> 24);
            }
            for (j, (k, i)) in entries.into_iter().enumerate() {
                out[2 * j] = k;
                out[2 * j + 1] = i;
            }
        }
        "wd_t_bitonic_words" => {
            // Each group's 4,096 words sorted (its padding sorts last), those below n written.
            out[..c.n as usize].copy_from_slice(&input[..c.n as usize]);
            out[..c.n as usize]
                .chunks_mut(4096)
                .for_each(|g| g.sort_unstable());
        }
        "wd_t_tiles" | "wd_t_tiles_striped" => {
            let (n, from, to) = (c.n as usize, (c.arg & 3) as usize, (c.arg >> 2) as usize);
            out[to..to + n].copy_from_slice(&input[from..from + n]);
        }
        other => panic!("no check for {other}"),
    }
    out
}

/// Runs every case through `run` (the kernel's output words for a case) and checks it.
/// Returns the number of cases.
pub fn run_all(r: &mut SmallRng, mut run: impl FnMut(&Case) -> Vec<u32>) -> usize {
    let all = cases(r);
    for c in &all {
        check(c, &run(c));
    }
    all.len()
}
