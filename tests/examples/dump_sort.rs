//! Writes the radix sort modules the sort probe (benches/probes/sort), the merge sort module
//! the merge probe (benches/probes/merge) and the Gauss integral's reduction the Gauss probe
//! (benches/probes/rows/gauss_probe.cu) and the f32 search module the search probe
//! (benches/probes/inputs/search_probe.cu) and the f32 sum's axis module the column probes
//! (benches/probes/rows/product_probe.cu, benches/probes/cols/axis0_probe.cu) compile with nvcc:
//! `cargo run -p warp-tests --example dump_sort -- DIR` (DIR defaults to the current folder).

fn main() -> std::io::Result<()> {
    use warp_runtime::impl_::SortMoves::{Keys, Pairs, Positions};
    use warp_runtime::impl_::{merge_module, search_module, sort_module, sort_module_on};
    let dir = std::env::args().nth(1).unwrap_or_else(|| ".".into());
    let write = |name: &str, source: &str| std::fs::write(format!("{dir}/{name}.cu"), source);
    // Each sort module under its own name (`sort_module_name`): `_v4` moves 4-byte values
    // unstaged (as on a GPU without `cp.async`), `_v4_staged` as on an H100 or H200
    // (`SortShape::staged`).
    for m in [
        sort_module::<u32>(Keys),
        sort_module_on::<u32>(Positions(4), false),
        sort_module::<u32>(Pairs(4)),
        sort_module::<f32>(Keys),
        sort_module_on::<f32>(Positions(4), false),
        sort_module::<f32>(Positions(4)),
        sort_module::<u64>(Keys),
    ] {
        write(&m.name, &m.source)?;
    }
    let abs = merge_module::<f32, warp_tests::ops::nearer_zero>();
    write("merge_f32_abs", &abs.source)?;
    let gauss = warp_runtime::impl_::reduce_module::<
        warp_tests::ops::sum_f64,
        warp_runtime::RangeMap<'static, u64, warp_tests::ops::gauss_step_with<f64>>,
    >();
    write("reduce_gauss_f64", &gauss.source)?;
    write("search_f32_u32", &search_module::<f32, u32>().source)?;
    let axis =
        warp_runtime::impl_::axis_module::<warp_tests::ops::sum_f32, warp_runtime::DeviceVec<f32>>(
        );
    write("axis_sum_f32", &axis.source)?;
    Ok(())
}
