//! The stage of a module: what its values are made of ([`Source`]) and the `wd_stage` struct
//! the templates read them through (the loads of every array, the map, the predicates, the
//! bound arguments), written once here for every family.

use std::fmt::Write;

use super::fragment::FnFragment;
use super::type_support;
use crate::types::{Scalar, Ty};

/// What compaction (`filter`, `partition`, `partition3`) writes of each value it places.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pick {
    /// The value itself.
    #[default]
    Value,
    /// Field `k` of a zipped element: the element of array `k`.
    Field(usize),
    /// The value's position in the input, as this index type (`argwhere`).
    Position(Scalar),
}

/// What the values of an operation are made of.
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// The elements themselves: of one array (the element), or of 2 to
    /// [`MAX_INPUTS`](crate::catalogue::MAX_INPUTS) equally long arrays zipped (a tuple, one field per
    /// array).
    Plain(&'a [Scalar]),
    /// `(element, index)` pairs, the index of type `index` (the operator's value is a
    /// two-field tuple).
    Indexed {
        /// The element type.
        elem: Scalar,
        /// The index type.
        index: Scalar,
    },
    /// A `#[map]` of each element (of one array, or of zipped arrays).
    Map {
        /// The element type of each array.
        elem: &'a [Scalar],
        /// The map.
        map: &'a FnFragment<'a>,
    },
    /// The indices `start + i` of a generated range, of type `index`, each mapped by `map`
    /// when there is one: nothing is read (the start travels in the kernel's array argument,
    /// where an array's address would).
    Range {
        /// The index type (`u32` or `u64`).
        index: Scalar,
        /// The map of each index.
        map: Option<&'a FnFragment<'a>>,
    },
    /// Elements of one array read through an array of indices (`xs.gather(&idx)`: element
    /// `i` is `xs[idx[i]]`), each mapped by `map` when there is one. The kernel's array
    /// argument carries the array, the indices, the array's length and the address of the
    /// fault word: an index out of range reads nothing (the value is the element type's zero)
    /// and raises the word to `!i` for the smallest such position `i` (`atomicMax`), which
    /// the runtime reads after the launch.
    Gather {
        /// The array's element type.
        elem: Scalar,
        /// The index type (`u32` or `u64`).
        index: Scalar,
        /// The map of each element.
        map: Option<&'a FnFragment<'a>>,
    },
    /// Every `step`-th element of one array (`xs.step_by(step)`: element `i` is
    /// `xs[i * step]`), each mapped by `map` when there is one. The kernel's array argument
    /// carries the array's address and then the step.
    Strided {
        /// The array's element type.
        elem: Scalar,
        /// The map of each element.
        map: Option<&'a FnFragment<'a>>,
    },
    /// Zipped columns of which those whose bit is set in `generated` are generated ranges
    /// (`(&dev.range(a..b), &xs)`): element `i` of such a column is `start + i` of its index
    /// type, made where it is read (its start travels in the kernel's array argument where
    /// the column's address would), and the other columns are arrays read at `i`; each
    /// element (the tuple) is mapped by `map` when there is one. Vectors start where every
    /// stored column's can.
    Zipped {
        /// The element type of each column, generated or stored.
        elem: &'a [Scalar],
        /// A bit per generated column (bit `k`: column `k`); never 0.
        generated: u8,
        /// The map of each element.
        map: Option<&'a FnFragment<'a>>,
    },
    /// The values of `inner` (any source but `Indexed`) where the predicate `pred` holds, and
    /// the operator's identity where it does not (`xs.filter(p)` as the input of a
    /// reduction, a scan or an axis reduction: `wd_op` is defined before the stage). The
    /// predicate's bound arguments follow the map's.
    Masked {
        /// What the values are made of.
        inner: &'a Source<'a>,
        /// The predicate that keeps a value.
        pred: &'a FnFragment<'a>,
    },
    /// A second `#[map]` of the values of `inner` (a map of a map: `xs.map(f).map(g)`),
    /// `wd_map2` in the module, its bound arguments after the first map's.
    Chained {
        /// The first map's source (`Map`, or a `Range`, `Gather` or `Strided` with a map).
        inner: &'a Source<'a>,
        /// The second map.
        then: &'a FnFragment<'a>,
    },
}

impl Source<'_> {
    /// The source a reduction's own module reads for operator values of type `value`: its
    /// elements (scalar `T`), or `(V, I)` pairs made from elements of `V` (`T = (V, I)` with
    /// integer `I`); `None` for other tuples, which are reduced only through maps and axis
    /// operations.
    pub fn own(value: &Ty) -> Option<Source<'_>> {
        match value {
            Ty::Scalar(s) => Some(Source::Plain(std::slice::from_ref(s))),
            Ty::Tuple(items) if items.len() == 2 && items[1].is_int() => Some(Source::Indexed {
                elem: items[0],
                index: items[1],
            }),
            Ty::Tuple(_) => None,
        }
    }

    /// The element type of each array read.
    pub fn columns(&self) -> &[Scalar] {
        match self {
            Source::Plain(c) | Source::Map { elem: c, .. } | Source::Zipped { elem: c, .. } => c,
            Source::Indexed { elem, .. }
            | Source::Range { index: elem, .. }
            | Source::Gather { elem, .. }
            | Source::Strided { elem, .. } => std::slice::from_ref(elem),
            Source::Masked { inner, .. } | Source::Chained { inner, .. } => inner.columns(),
        }
    }

    /// The C type of one element: the array's scalar, or the tuple of zipped arrays' scalars.
    pub fn elem_c(&self) -> String {
        row_ty(self.columns()).c_name()
    }

    /// Words for comments (`` `f32` ``, ``map `square` of `f32` ``).
    pub(crate) fn describe(&self) -> String {
        let cols = |c: &[Scalar]| match c {
            [one] => format!("`{one}`"),
            many => format!("zipped `{}`", row_ty(many)),
        };
        match self {
            Source::Plain(c) => cols(c),
            Source::Indexed { elem, index } => format!("(`{elem}`, `{index}` index) pairs"),
            Source::Map { elem, map } => format!("map `{}` of {}", map.name, cols(elem)),
            Source::Range { index, map: None } => format!("generated `{index}` indices"),
            Source::Range {
                index,
                map: Some(map),
            } => format!("map `{}` of generated `{index}` indices", map.name),
            Source::Gather {
                elem,
                index,
                map: None,
            } => format!("`{elem}` gathered by `{index}` indices"),
            Source::Gather {
                elem,
                index,
                map: Some(map),
            } => format!(
                "map `{}` of `{elem}` gathered by `{index}` indices",
                map.name
            ),
            Source::Strided { elem, map: None } => format!("every `step`-th `{elem}`"),
            Source::Zipped {
                elem,
                generated,
                map,
            } => {
                let kinds: Vec<String> = elem
                    .iter()
                    .enumerate()
                    .map(|(k, c)| match generated >> k & 1 {
                        1 => format!("generated `{c}`"),
                        _ => format!("`{c}`"),
                    })
                    .collect();
                let zip = format!("zipped ({})", kinds.join(", "));
                match map {
                    Some(map) => format!("map `{}` of {zip}", map.name),
                    None => zip,
                }
            }
            Source::Strided {
                elem,
                map: Some(map),
            } => format!("map `{}` of every `step`-th `{elem}`", map.name),
            Source::Masked { inner, pred } => {
                format!("{} where `{}` holds", inner.describe(), pred.name)
            }
            Source::Chained { inner, then } => {
                format!("map `{}` of {}", then.name, inner.describe())
            }
        }
    }

    /// A tag for file names (`f32`, `square_f32`, `indexed_u32_f32`, `f32_f32`).
    pub(crate) fn tag(&self) -> String {
        let cols: Vec<&str> = self.columns().iter().map(|c| c.rust_name()).collect();
        let cols = cols.join("_");
        match self {
            Source::Plain(_) => cols,
            Source::Indexed { index, .. } => format!("indexed_{index}_{cols}"),
            Source::Map { map, .. } => format!("{}_{cols}", map.name),
            Source::Range { map: None, .. } => format!("range_{cols}"),
            Source::Range { map: Some(map), .. } => format!("{}_range_{cols}", map.name),
            Source::Gather {
                index, map: None, ..
            } => format!("gather_{index}_{cols}"),
            Source::Gather {
                index,
                map: Some(map),
                ..
            } => format!("{}_gather_{index}_{cols}", map.name),
            Source::Strided { map: None, .. } => format!("strided_{cols}"),
            Source::Strided { map: Some(map), .. } => format!("{}_strided_{cols}", map.name),
            Source::Zipped { generated, map, .. } => {
                let zip = format!("zip{generated}_{cols}");
                match map {
                    Some(map) => format!("{}_{zip}", map.name),
                    None => zip,
                }
            }
            Source::Masked { inner, pred } => format!("{}_where_{}", inner.tag(), pred.name),
            Source::Chained { inner, then } => format!("{}_{}", then.name, inner.tag()),
        }
    }

    /// The tuple types a stage of this source needs beyond its functions' own: the zipped row.
    pub(crate) fn row_support(&self) -> String {
        match self.columns() {
            [_] => String::new(),
            many => type_support(&[many.to_vec()]),
        }
    }
}

/// The type of one element of `cols` zipped arrays (the scalar itself for one array).
pub(crate) fn row_ty(cols: &[Scalar]) -> Ty {
    match cols {
        [one] => Ty::Scalar(*one),
        many => Ty::Tuple(many.to_vec()),
    }
}

/// The readers of a stage over the arrays `cols` (zipped when more than one): their pointers
/// `p0..`, `VEC` (elements per vector: 16 bytes of the widest array), `ARRAYS` (how many
/// there are: what `catalogue::scan_span` reads as `sizes.len()`), and the loads the
/// templates use, each written once here for every array: `load` (streaming), `load_l2`
/// (through L2 only), `at` (plain), `load_vec` (a vector of every array), `aligned` (whether a
/// vector of every array can start at element `i`) and `head` (elements from `i` to the first
/// place where one can, or `WD_NO_VEC` when the arrays' alignments disagree).
///
/// A column whose bit is set in `generated` is a generated range ([`Source::Zipped`]): its
/// `p{k}` is the range's start, element `i` is `start + i` made in registers, nothing is read
/// or prefetched for it, and vectors start wherever the stored columns' can (anywhere when
/// there are none).
pub(crate) fn readers(cols: &[Scalar], generated: u8) -> String {
    let widest = cols.iter().map(|c| c.size()).max().unwrap_or(1);
    let vec = 16 / widest;
    let made = |k: usize| generated >> k & 1 == 1;
    let mut s = format!(
        "    static constexpr int VEC = {vec};\n    static constexpr int ARRAYS = {};\n",
        cols.len()
    );
    for (k, c) in cols.iter().enumerate() {
        let _ = match made(k) {
            true => writeln!(s, "    wd_u64 p{k};"),
            false => writeln!(s, "    const {}* p{k};", c.c_name()),
        };
    }
    let one = cols.len() == 1;
    // Element `i + off` of column `k` through `load` (a generated column makes it).
    let elem = |k: usize, load: &str, off: &str| match made(k) {
        true => format!("({})(p{k} + i{off})", cols[k].c_name()),
        false => format!("{load}(p{k} + i{off})"),
    };
    let gather = |load: &dyn Fn(usize) -> String| -> String {
        if one {
            format!("return {};", load(0))
        } else {
            let sets: String = (0..cols.len())
                .map(|k| format!(" e.f{k} = {};", load(k)))
                .collect();
            format!("elem_t e;{sets} return e;")
        }
    };
    let fun = |sig: &str, body: String| {
        format!("    __device__ __forceinline__ {sig} const {{ {body} }}\n")
    };
    s.push_str(&fun(
        "elem_t load(wd_u64 i)",
        gather(&|k| elem(k, "wd_ldcs", "")),
    ));
    s.push_str(&fun(
        "elem_t load_l2(wd_u64 i)",
        gather(&|k| elem(k, "wd_ldcg", "")),
    ));
    s.push_str(&fun(
        "elem_t at(wd_u64 i)",
        gather(&|k| match made(k) {
            true => elem(k, "", ""),
            false => format!("p{k}[i]"),
        }),
    ));
    let stored: Vec<usize> = (0..cols.len()).filter(|&k| !made(k)).collect();
    let lines = match stored.is_empty() {
        true => "(void)i;".to_string(),
        false => stored
            .iter()
            .map(|k| format!("wd_prefetch_l2(p{k} + i);"))
            .collect::<Vec<_>>()
            .join(" "),
    };
    s.push_str(&fun("void prefetch_l2(wd_u64 i)", lines));
    let mut lv = String::new();
    for &k in &stored {
        let _ = writeln!(
            lv,
            "        const wd_vec<{t}, VEC> v{k} = wd_ldcs_vec<{t}, VEC>(p{k} + i);",
            t = cols[k].c_name()
        );
    }
    let moves: String = if one {
        "e[k] = v0.e[k];".into()
    } else {
        (0..cols.len())
            .map(|c| match made(c) {
                true => format!(" e[k].f{c} = {};", elem(c, "", " + k")),
                false => format!(" e[k].f{c} = v{c}.e[k];"),
            })
            .collect::<String>()
            .trim_start()
            .to_string()
    };
    let _ = write!(
        s,
        "    __device__ __forceinline__ void load_vec(wd_u64 i, elem_t (&e)[VEC]) const {{\n{lv}#pragma unroll\n        for (int k = 0; k < VEC; ++k) {{ {moves} }}\n    }}\n"
    );
    let aligned: Vec<String> = stored
        .iter()
        .map(|&k| format!("wd_vec_aligned<{}, VEC>(p{k} + i)", cols[k].c_name()))
        .collect();
    let (aligned, head) = match stored.split_first() {
        // Only generated columns: vectors start anywhere.
        None => (
            "(void)i; return true;".to_string(),
            "(void)i; return 0;".to_string(),
        ),
        Some((&first, rest)) => {
            let head0 = format!("wd_vec_head<{}, VEC>(p{first} + i)", cols[first].c_name());
            let head = if rest.is_empty() {
                format!("return {head0};")
            } else {
                let rest: Vec<String> = rest
                    .iter()
                    .map(|&k| format!("wd_vec_aligned<{}, VEC>(p{k} + i + h)", cols[k].c_name()))
                    .collect();
                format!(
                    "const wd_u64 h = {head0}; return {} ? h : WD_NO_VEC;",
                    rest.join(" && ")
                )
            };
            (format!("return {};", aligned.join(" && ")), head)
        }
    };
    s.push_str(&fun("bool aligned(wd_u64 i)", aligned));
    s.push_str(&fun("wd_u64 head(wd_u64 i)", head));
    s
}

/// The readers of a stage over a generated range of `index` values (see [`readers`]): element
/// `i` is `start + i` (wrapping to the type), nothing is read; vectors start anywhere.
/// `GENERATED` tells the reduction's thread loop that the stage reads no memory (reduce.cuh's
/// `wd_thread_reduce_generated`).
pub(crate) fn counting_readers(index: Scalar) -> String {
    let t = index.c_name();
    let vec = 16 / index.size();
    format!(
        "    static constexpr int VEC = {vec};
    static constexpr int ARRAYS = 1;
    static constexpr bool GENERATED = true;
    wd_u64 start;
    __device__ __forceinline__ elem_t load(wd_u64 i) const {{ return ({t})(start + i); }}
    __device__ __forceinline__ elem_t load_l2(wd_u64 i) const {{ return ({t})(start + i); }}
    __device__ __forceinline__ elem_t at(wd_u64 i) const {{ return ({t})(start + i); }}
    __device__ __forceinline__ void prefetch_l2(wd_u64 i) const {{ (void)i; }}
    __device__ __forceinline__ void load_vec(wd_u64 i, elem_t (&e)[VEC]) const {{
#pragma unroll
        for (int k = 0; k < VEC; ++k) e[k] = ({t})(start + i + k);
    }}
    __device__ __forceinline__ bool aligned(wd_u64 i) const {{ (void)i; return true; }}
    __device__ __forceinline__ wd_u64 head(wd_u64 i) const {{ (void)i; return 0; }}
"
    )
}

/// The readers of a stage over elements of one array of `elem` gathered by indices of type
/// `index` (see [`readers`] and [`Source::Gather`]): each reader reads the indices at `i` (a
/// vector of them in `load_vec`, 16 bytes of the wider of the two types) and then the element
/// each names; vectors start where the indices' can.
pub(crate) fn gather_readers(elem: Scalar, index: Scalar) -> String {
    let (e, ix) = (elem.c_name(), index.c_name());
    let vec = 16 / elem.size().max(index.size());
    format!(
        "    static constexpr int VEC = {vec};
    static constexpr int ARRAYS = 2;
    const {e}* p0;
    const {ix}* p1;
    wd_u64 nv;
    unsigned long long* fault;
    // Element j of the array, for position i; an index out of range reads nothing and
    // records the smallest such position (as !i) in the fault word.
    __device__ __forceinline__ elem_t pick(wd_u64 i, wd_u64 j) const {{
        const bool ok = j < nv;
        if (!ok) atomicMax(fault, ~(unsigned long long)i);
        return ok ? p0[j] : elem_t();
    }}
    __device__ __forceinline__ elem_t load(wd_u64 i) const {{ return pick(i, (wd_u64)wd_ldcs(p1 + i)); }}
    __device__ __forceinline__ elem_t load_l2(wd_u64 i) const {{ return pick(i, (wd_u64)wd_ldcg(p1 + i)); }}
    __device__ __forceinline__ elem_t at(wd_u64 i) const {{ return pick(i, (wd_u64)p1[i]); }}
    __device__ __forceinline__ void prefetch_l2(wd_u64 i) const {{ wd_prefetch_l2(p1 + i); }}
    __device__ __forceinline__ void load_vec(wd_u64 i, elem_t (&e)[VEC]) const {{
        const wd_vec<{ix}, VEC> v = wd_ldcs_vec<{ix}, VEC>(p1 + i);
#pragma unroll
        for (int k = 0; k < VEC; ++k) e[k] = pick(i + k, (wd_u64)v.e[k]);
    }}
    __device__ __forceinline__ bool aligned(wd_u64 i) const {{ return wd_vec_aligned<{ix}, VEC>(p1 + i); }}
    __device__ __forceinline__ wd_u64 head(wd_u64 i) const {{ return wd_vec_head<{ix}, VEC>(p1 + i); }}
"
    )
}

/// The readers of a stage over every `step`-th element of one array of `elem` (see [`readers`]
/// and [`Source::Strided`]): element `i` is `p0[i * step]`. Vectors never start (`aligned` is
/// false, `head` is `WD_NO_VEC`), so the templates take their element paths, where lane `l`
/// of a warp reads element `i + l`: one load instruction then spans `32 * step` elements with
/// no sector fetched twice (a thread's vector of `VEC` elements `step` apart would fetch each
/// sector again from L2 for every lane sharing it). `load_vec` exists for the type's sake.
pub(crate) fn strided_readers(elem: Scalar) -> String {
    let e = elem.c_name();
    let vec = 16 / elem.size();
    format!(
        "    static constexpr int VEC = {vec};
    static constexpr int ARRAYS = 1;
    const {e}* p0;
    wd_u64 step;
    __device__ __forceinline__ elem_t load(wd_u64 i) const {{ return wd_ldcs(p0 + i * step); }}
    __device__ __forceinline__ elem_t load_l2(wd_u64 i) const {{ return wd_ldcg(p0 + i * step); }}
    __device__ __forceinline__ elem_t at(wd_u64 i) const {{ return p0[i * step]; }}
    __device__ __forceinline__ void prefetch_l2(wd_u64 i) const {{ wd_prefetch_l2(p0 + i * step); }}
    __device__ __forceinline__ void load_vec(wd_u64 i, elem_t (&e)[VEC]) const {{
#pragma unroll
        for (int k = 0; k < VEC; ++k) e[k] = wd_ldcs(p0 + (i + k) * step);
    }}
    __device__ __forceinline__ bool aligned(wd_u64 i) const {{ (void)i; return false; }}
    __device__ __forceinline__ wd_u64 head(wd_u64 i) const {{ (void)i; return WD_NO_VEC; }}
"
    )
}

/// The arguments of a call of `f` on value `v` (field by field for a zipped element) followed
/// by its bound arguments, decoded from `a` from word `first` on.
pub(crate) fn call_args(f: &FnFragment, v: &str, first: usize) -> String {
    let mut out = if f.inputs > 1 {
        (0..f.inputs)
            .map(|k| format!("{v}.f{k}"))
            .collect::<Vec<_>>()
            .join(", ")
    } else {
        v.to_string()
    };
    out.push_str(&bound_args(f, first));
    out
}

/// `f`'s bound arguments as call arguments (each after a comma), decoded from `a` from word
/// `first` on.
pub(crate) fn bound_args(f: &FnFragment, first: usize) -> String {
    let mut out = String::new();
    for (i, t) in f.extras.iter().enumerate() {
        let _ = write!(out, ", wd_arg<{}>(a, {})", t.c_name(), first + i);
    }
    out
}

/// The stage struct `wd_stage` (and `WD_STAGE`, which builds `st` from a kernel's `in`, `n`,
/// `a`; `st.n`, the elements read, is `n` or the device-resident length `*in.len` when that
/// is set and smaller; `st.cap` is `n`, what the grid and the scratch were sized for, which
/// the look-backs of compaction and of the plain scan count their tiles by): elements of `source` (one array, or several zipped), mapped if it is a map, made into
/// pairs if indexed, tested by `pred` if any; bound arguments decoded from `a` (the map's
/// first). `value` is the C type of the values (the operator's, for indexed sources). `pick`:
/// what compaction writes of a value at position `i` (`out(v, i)`).
pub(crate) fn stage(source: &Source, pred: Option<&FnFragment>, value: &str, pick: Pick) -> String {
    stage_with(source, pred, None, value, pick)
}

/// [`stage`] with a second predicate `pred2` (`keep2`, its bound arguments after the first's).
pub(crate) fn stage_with(
    source: &Source,
    pred: Option<&FnFragment>,
    pred2: Option<&FnFragment>,
    value: &str,
    pick: Pick,
) -> String {
    let what = source.describe();
    // A masked source: the inner source's stage, its values kept by the mask (the module's
    // only predicate), the identity where it fails.
    let (source, pred, masked) = match source {
        Source::Masked { inner, pred: mask } => (*inner, Some(*mask), true),
        other => (other, pred, false),
    };
    // A map of a map: the first map's stage, its value mapped again by `wd_map2`.
    let (source, then) = match source {
        Source::Chained { inner, then } => (*inner, Some(*then)),
        other => (other, None),
    };
    let cols = source.columns();
    let e = source.elem_c();
    // The value of element `e` (an expression) and the bound arguments it takes.
    let plain = match source {
        Source::Plain(_)
        | Source::Range { map: None, .. }
        | Source::Gather { map: None, .. }
        | Source::Strided { map: None, .. }
        | Source::Zipped { map: None, .. } => Some(("e".to_string(), 0)),
        Source::Map { map, .. }
        | Source::Range { map: Some(map), .. }
        | Source::Gather { map: Some(map), .. }
        | Source::Strided { map: Some(map), .. }
        | Source::Zipped { map: Some(map), .. } => Some((
            format!("wd_map({})", call_args(map, "e", 0)),
            map.extras.len(),
        )),
        _ => None,
    };
    let (value_fn, make, nmap) = match (plain, source) {
        (Some((expr, n)), _) => {
            let (body, n) = match then {
                None => (format!("return {expr};"), n),
                Some(g) => (
                    format!(
                        "const {} v = {expr}; return wd_map2({});",
                        stage_value(source),
                        call_args(g, "v", n)
                    ),
                    n + g.extras.len(),
                ),
            };
            (
                format!(
                    "    __device__ __forceinline__ value_t value(elem_t e) const {{ {body} }}\n"
                ),
                "return value(e);".to_string(),
                n,
            )
        }
        (None, Source::Indexed { index, .. }) => (
            String::new(),
            format!(
                "value_t t;\n        t.f0 = e;\n        t.f1 = ({})i;\n        return t;",
                index.c_name()
            ),
            0,
        ),
        _ => (
            String::new(),
            "\n#error \"a masked or chained source inside another\"\n".to_string(),
            0,
        ),
    };
    let make = if masked {
        "(void)i;\n        const value_t v = value(e);\n        return keep(v) ? v : wd_op::identity();"
            .to_string()
    } else {
        make
    };
    let keep = match pred {
        Some(p) => format!("return wd_pred({});", call_args(p, "v", nmap)),
        None => "return true;".into(),
    };
    let keep2 = match (pred, pred2) {
        (Some(p), Some(q)) => format!(
            "    __device__ __forceinline__ bool keep2(value_t v) const {{ return wd_pred2({}); }}\n",
            call_args(q, "v", nmap + p.extras.len())
        ),
        _ => String::new(),
    };
    let (out_t, out) = match pick {
        Pick::Field(k) => (
            cols[k].c_name().to_string(),
            format!("(void)i; return v.f{k};"),
        ),
        Pick::Value => ("value_t".to_string(), "(void)i; return v;".to_string()),
        Pick::Position(ix) => (
            ix.c_name().to_string(),
            format!("(void)v; return ({})i;", ix.c_name()),
        ),
    };
    let (readers, sets): (String, String) = match source {
        Source::Range { index, .. } => (
            counting_readers(*index),
            " st.start = (wd_u64)in.p[0];".to_string(),
        ),
        Source::Gather { elem, index, .. } => (
            gather_readers(*elem, *index),
            format!(
                " st.p0 = (const {}*)in.p[0]; st.p1 = (const {}*)in.p[1]; st.nv = (wd_u64)in.p[2]; st.fault = (unsigned long long*)in.p[3];",
                elem.c_name(),
                index.c_name()
            ),
        ),
        Source::Strided { elem, .. } => (
            strided_readers(*elem),
            format!(
                " st.p0 = (const {}*)in.p[0]; st.step = (wd_u64)in.p[1];",
                elem.c_name()
            ),
        ),
        _ => {
            let generated = match source {
                Source::Zipped { generated, .. } => *generated,
                _ => 0,
            };
            let sets = (0..cols.len())
                .map(|k| match generated >> k & 1 {
                    1 => format!(" st.p{k} = (wd_u64)in.p[{k}];"),
                    _ => format!(" st.p{k} = (const {}*)in.p[{k}];", cols[k].c_name()),
                })
                .collect();
            (readers(cols, generated), sets)
        }
    };
    format!(
        "
// ---- the stage: {what} ----
struct wd_stage {{
    typedef {e} elem_t;
    typedef {value} value_t;
    typedef {out_t} out_t;
{readers}    wd_u64 n;
    wd_u64 cap;
    wd_args a;
{value_fn}    __device__ __forceinline__ bool keep(value_t v) const {{ {keep} }}
{keep2}    __device__ __forceinline__ value_t make(elem_t e, wd_u64 i) const {{
        {make}
    }}
    __device__ __forceinline__ out_t out(value_t v, wd_u64 i) const {{ {out} }}
}};
#define WD_STAGE wd_stage st;{sets} st.cap = n; st.n = in.len != nullptr && *in.len < n ? *in.len : n; st.a = wd_resolve_args(a); (void)st
",
    )
}

/// The value type of a source's stage when no operator gives it: the element, or the map's
/// result.
pub(crate) fn stage_value(source: &Source) -> String {
    match source {
        Source::Map { map, .. }
        | Source::Range { map: Some(map), .. }
        | Source::Gather { map: Some(map), .. }
        | Source::Strided { map: Some(map), .. }
        | Source::Zipped { map: Some(map), .. } => map.output.to_string(),
        Source::Masked { inner, .. } => stage_value(inner),
        Source::Chained { then, .. } => then.output.to_string(),
        // Every source without a map, named so that a new source is decided here.
        other @ (Source::Plain(_)
        | Source::Indexed { .. }
        | Source::Range { map: None, .. }
        | Source::Gather { map: None, .. }
        | Source::Strided { map: None, .. }
        | Source::Zipped { map: None, .. }) => other.elem_c(),
    }
}

/// The mask of a masked source (`Source::Masked`), if it is one.
pub(crate) fn mask_parts<'a>(source: &Source<'a>) -> Option<&'a FnFragment<'a>> {
    match source {
        Source::Masked { pred, .. } => Some(pred),
        _ => None,
    }
}

/// The second map of a chained source (`Source::Chained`, or a masked one), if any.
pub(crate) fn then_parts<'a>(source: &Source<'a>) -> Option<&'a FnFragment<'a>> {
    match source {
        Source::Chained { then, .. } => Some(then),
        Source::Masked { inner, .. } => then_parts(inner),
        _ => None,
    }
}

/// The user's functions a source's stage calls, each with the name the module gives it: the
/// map (`wd_map`), a second map (`wd_map2`), the mask (`wd_pred`). Every family that builds a
/// stage emits these (and their tuple types) through this list.
pub(crate) fn stage_functions<'a>(source: &Source<'a>) -> Vec<(&'a FnFragment<'a>, &'static str)> {
    let mut out = Vec::new();
    if let Some(f) = map_parts(source) {
        out.push((f, "wd_map"));
    }
    if let Some(f) = then_parts(source) {
        out.push((f, "wd_map2"));
    }
    if let Some(f) = mask_parts(source) {
        out.push((f, "wd_pred"));
    }
    out
}

/// The map of a source (a masked one's inner source's), if any.
pub(crate) fn map_parts<'a>(source: &Source<'a>) -> Option<&'a FnFragment<'a>> {
    match source {
        Source::Map { map, .. }
        | Source::Range { map: Some(map), .. }
        | Source::Gather { map: Some(map), .. }
        | Source::Strided { map: Some(map), .. }
        | Source::Zipped { map: Some(map), .. } => Some(map),
        Source::Masked { inner, .. } | Source::Chained { inner, .. } => map_parts(inner),
        // Every source without a map, named so that a new source is decided here.
        Source::Plain(_)
        | Source::Indexed { .. }
        | Source::Range { map: None, .. }
        | Source::Gather { map: None, .. }
        | Source::Strided { map: None, .. }
        | Source::Zipped { map: None, .. } => None,
    }
}
