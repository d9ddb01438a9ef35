//! The bench's bandwidth chart: grouped bars per operation (warp-dsl and each peer), the copy
//! bandwidth as a dashed line, written as a standalone SVG.

use std::fmt::Write as _;

/// One operation's bars: its name and each library's GB/s (`None`: no peer for it).
pub struct Row {
    /// Operation name (the bench table's first column).
    pub op: String,
    /// GB/s per library, in the order of the chart's `libs`.
    pub gbps: Vec<Option<f64>>,
}

const COLORS: [&str; 5] = ["#1b9e77", "#7570b3", "#d95f02", "#e7298a", "#66a61e"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// An SVG chart of `rows` for the libraries `libs` (the first is warp-dsl), with the copy
/// bandwidth `copy` (GB/s) drawn as a line, titled `title`.
///
/// ```
/// use warp_tests::chart::{Row, bandwidth_svg};
/// let rows = vec![Row { op: "sum_f32".into(), gbps: vec![Some(4400.0), Some(4300.0)] }];
/// let svg = bandwidth_svg("H200", &["warp-dsl", "CUB"], &rows, 4200.0);
/// assert!(svg.starts_with("<svg") && svg.contains("sum_f32"));
/// ```
pub fn bandwidth_svg(title: &str, libs: &[&str], rows: &[Row], copy: f64) -> String {
    let (left, top, bar_w, gap, plot_h) = (60.0, 50.0, 9.0, 14.0, 300.0);
    let group_w = bar_w * libs.len() as f64 + gap;
    let width = left + group_w * rows.len() as f64 + 20.0;
    let height = top + plot_h + 150.0;
    let max = rows
        .iter()
        .flat_map(|r| r.gbps.iter().flatten())
        .copied()
        .chain([copy])
        .fold(1.0f64, f64::max);
    let ymax = (max / 1000.0).ceil() * 1000.0;
    let y = |v: f64| top + plot_h - v / ymax * plot_h;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" font-family="sans-serif" font-size="11">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="100%" height="100%" fill="white"/><text x="{left}" y="20" font-size="14">{}</text>"#,
        esc(title)
    );
    let mut tick = 0.0;
    while tick <= ymax {
        let _ = writeln!(
            s,
            r##"<line x1="{left}" x2="{x2:.1}" y1="{yy:.1}" y2="{yy:.1}" stroke="#ddd"/><text x="{tx}" y="{ty:.1}" text-anchor="end">{tick:.0}</text>"##,
            x2 = width - 20.0,
            yy = y(tick),
            tx = left - 4.0,
            ty = y(tick) + 4.0
        );
        tick += 1000.0;
    }
    let _ = writeln!(
        s,
        r#"<text x="14" y="{:.1}" transform="rotate(-90 14 {:.1})" text-anchor="middle">GB/s</text>"#,
        top + plot_h / 2.0,
        top + plot_h / 2.0
    );
    for (g, r) in rows.iter().enumerate() {
        let x0 = left + gap / 2.0 + g as f64 * group_w;
        for (k, v) in r.gbps.iter().enumerate() {
            if let Some(v) = v {
                let _ = writeln!(
                    s,
                    r#"<rect x="{:.1}" y="{:.1}" width="{bar_w}" height="{:.1}" fill="{}"><title>{} {}: {v:.0} GB/s</title></rect>"#,
                    x0 + k as f64 * bar_w,
                    y(*v),
                    plot_h - (y(*v) - top),
                    COLORS[k % COLORS.len()],
                    esc(libs[k]),
                    esc(&r.op)
                );
            }
        }
        let lx = x0 + bar_w * libs.len() as f64 / 2.0;
        let ly = top + plot_h + 8.0;
        let _ = writeln!(
            s,
            r#"<text x="{lx:.1}" y="{ly:.1}" transform="rotate(60 {lx:.1} {ly:.1})">{}</text>"#,
            esc(&r.op)
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{left}" x2="{:.1}" y1="{yy:.1}" y2="{yy:.1}" stroke="#000" stroke-dasharray="6 4"/><text x="{:.1}" y="{:.1}" text-anchor="end">copy {copy:.0} GB/s</text>"##,
        width - 20.0,
        width - 22.0,
        y(copy) - 4.0,
        yy = y(copy)
    );
    for (k, lib) in libs.iter().enumerate() {
        let lx = left + 10.0 + k as f64 * 110.0;
        let _ = writeln!(
            s,
            r#"<rect x="{lx:.1}" y="30" width="10" height="10" fill="{}"/><text x="{:.1}" y="39">{}</text>"#,
            COLORS[k % COLORS.len()],
            lx + 14.0,
            esc(lib)
        );
    }
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_value_and_the_copy_line() {
        let rows = vec![
            Row {
                op: "sum_f32".into(),
                gbps: vec![Some(4400.0), Some(4300.0), None],
            },
            Row {
                op: "a<b".into(),
                gbps: vec![Some(100.0), None, Some(50.0)],
            },
        ];
        let svg = bandwidth_svg("t", &["warp-dsl", "CUB", "PyTorch"], &rows, 4200.0);
        assert_eq!(svg.matches("<title>").count(), 4);
        assert!(svg.contains("copy 4200 GB/s"));
        assert!(svg.contains("a&lt;b") && !svg.contains("a<b"));
        assert!(svg.trim_end().ends_with("</svg>"));
    }
}
