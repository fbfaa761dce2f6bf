//! The report's charts, drawn with plotters into SVG text that the page inlines.
//!
//! Each chart is one `<svg data-chart="ID">`; its bars and markers use the colours below and
//! nothing else does, so a test can count a chart's plotted elements in the browser's DOM.
//! Nothing here reads files or knows where the numbers came from: `report.rs` passes them in.

use anyhow::{Result, anyhow};
use plotters::coord::Shift;
use plotters::prelude::*;

/// A bar that meets what it is judged by.
pub const BAR: RGBColor = RGBColor(0x3b, 0x6e, 0xa5);
/// A bar that does not: a kernel slower than the limit or its target, a harmful class.
pub const BAR_FLAGGED: RGBColor = RGBColor(0xc0, 0x39, 0x2b);
/// The series of the timing chart, in order (patched, patched, oracle, pristine…).
pub const SERIES: [RGBColor; 5] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0xff, 0x7f, 0x0e),
];
/// Reference lines (the 3 % limit, 1.0, 100 % of copy).
const MARK: RGBColor = RGBColor(0x55, 0x55, 0x55);

/// One bar of a horizontal bar chart.
#[derive(Debug, Clone, PartialEq)]
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub flagged: bool,
}

/// A horizontal bar chart: one bar per item, from `base` to its value, with vertical
/// reference lines at `marks`.
pub struct Bars<'a> {
    pub title: &'a str,
    pub axis: &'a str,
    pub bars: &'a [Bar],
    pub base: f64,
    pub marks: &'a [f64],
}

/// One series of the log-log chart: (size, median) points and its legend.
pub struct Curve {
    pub legend: String,
    pub points: Vec<(f64, f64)>,
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draws into a fresh SVG of `size` and tags it `data-chart="id"`.
fn svg(id: &str, size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Result<()>) -> Result<String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow!("chart {id}: {e}"))?;
        draw(&root)?;
        root.present().map_err(|e| anyhow!("chart {id}: {e}"))?;
    }
    Ok(text.replacen("<svg ", &format!(r#"<svg data-chart="{id}" role="img" "#), 1))
}

/// Pixels per bar, and the chart height for `bars` bars.
fn bars_height(bars: usize) -> u32 {
    90 + 26 * bars.max(1) as u32
}

/// One chart of horizontal bars.
pub fn bar_chart(id: &str, width: u32, chart: &Bars<'_>) -> Result<String> {
    svg(id, (width, bars_height(chart.bars.len())), |root| draw_bars(root, chart))
}

/// Two bar charts side by side in one SVG (the GPU run: copy bandwidth, and the peer).
pub fn bar_chart_pair(id: &str, width: u32, left: &Bars<'_>, right: &Bars<'_>) -> Result<String> {
    let height = bars_height(left.bars.len().max(right.bars.len()));
    svg(id, (width, height), |root| {
        let halves = root.split_evenly((1, 2));
        draw_bars(&halves[0], left)?;
        draw_bars(&halves[1], right)
    })
}

fn draw_bars(area: &Area<'_>, chart: &Bars<'_>) -> Result<()> {
    let failed = |e: &dyn std::fmt::Display| anyhow!("chart {}: {e}", chart.title);
    let values = chart.bars.iter().map(|b| b.value).chain(chart.marks.iter().copied()).chain([chart.base]);
    let finite: Vec<f64> = values.filter(|v| v.is_finite()).collect();
    let low = finite.iter().copied().fold(chart.base, f64::min);
    let high = finite.iter().copied().fold(chart.base, f64::max);
    let pad = ((high - low) * 0.06).max(1e-3);
    let (low, high) = (if low < chart.base { low - pad } else { low }, high + pad);
    // One segment per bar, the first bar at the top; a single bar gets an empty second row
    // (a one-value segmented range has no width).
    let rows = chart.bars.len().max(2);
    let label_width = chart.bars.iter().map(|b| b.label.chars().count()).max().unwrap_or(4) as u32 * 7 + 12;
    let mut plot = ChartBuilder::on(area)
        .caption(chart.title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(label_width)
        .build_cartesian_2d(low..high, (0..rows - 1).into_segmented())
        .map_err(|e| failed(&e))?;
    let labels: Vec<&str> = chart.bars.iter().map(|b| b.label.as_str()).collect();
    let row_label = |value: &SegmentValue<usize>| match value {
        SegmentValue::CenterOf(row) | SegmentValue::Exact(row) => {
            labels.get(rows - 1 - row).map(|l| (*l).to_owned()).unwrap_or_default()
        }
        SegmentValue::Last => String::new(),
    };
    plot.configure_mesh()
        .disable_y_mesh()
        .y_labels(rows)
        .y_label_formatter(&row_label)
        .x_desc(chart.axis)
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(|e| failed(&e))?;
    let bars = chart.bars.iter().enumerate().filter(|(_, b)| b.value.is_finite()).map(|(i, bar)| {
        let row = rows - 1 - i;
        let colour = if bar.flagged { BAR_FLAGGED } else { BAR };
        let mut rectangle = Rectangle::new(
            [(chart.base, SegmentValue::Exact(row)), (bar.value, SegmentValue::Exact(row + 1))],
            colour.filled(),
        );
        rectangle.set_margin(3, 3, 0, 0);
        rectangle
    });
    plot.draw_series(bars).map_err(|e| failed(&e))?;
    for &mark in chart.marks {
        let line = [(mark, SegmentValue::Exact(0)), (mark, SegmentValue::Last)];
        plot.draw_series(std::iter::once(PathElement::new(line, MARK.stroke_width(1))))
            .map_err(|e| failed(&e))?;
    }
    Ok(())
}

/// Time against size on log-log axes: one line with points per curve, and the legend.
pub fn log_log_chart(id: &str, size: (u32, u32), title: &str, curves: &[Curve]) -> Result<String> {
    svg(id, size, |root| {
        let failed = |e: &dyn std::fmt::Display| anyhow!("chart {id}: {e}");
        let points = curves.iter().flat_map(|c| c.points.iter()).filter(|(x, y)| *x > 0.0 && *y > 0.0);
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in points {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (1.0, 10.0, 1.0, 10.0);
        }
        let mut plot = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d((x0 / 1.3..x1 * 1.3).log_scale(), (y0 / 1.5..y1 * 1.5).log_scale())
            .map_err(|e| failed(&e))?;
        plot.configure_mesh()
            .x_desc("blocks per scope")
            .y_desc("median time (ms)")
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(|e| failed(&e))?;
        for (curve, colour) in curves.iter().zip(SERIES.iter().cycle()) {
            let points: Vec<(f64, f64)> =
                curve.points.iter().copied().filter(|(x, y)| *x > 0.0 && *y > 0.0).collect();
            let colour = *colour;
            plot.draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))
                .map_err(|e| failed(&e))?
                .label(curve.legend.as_str())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
            plot.draw_series(points.into_iter().map(|p| Circle::new(p, 3, colour.filled())))
                .map_err(|e| failed(&e))?;
        }
        plot.configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.9))
            .border_style(MARK)
            .label_font(("sans-serif", 12))
            .draw()
            .map_err(|e| failed(&e))?;
        Ok(())
    })
}

/// How many times `colour` fills an element of `svg`: the plotted bars or points.
pub fn count_filled(svg: &str, colour: RGBColor) -> usize {
    let RGBColor(r, g, b) = colour;
    svg.matches(&format!(r##"fill="#{r:02X}{g:02X}{b:02X}""##)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bar_chart_has_one_filled_rectangle_per_bar_in_its_colour_and_its_id() {
        let bars = [
            Bar { label: "vector_add".into(), value: 0.99, flagged: false },
            Bar { label: "saxpy <&>".into(), value: 1.05, flagged: true },
            Bar { label: "gemv_f16".into(), value: 1.01, flagged: false },
        ];
        let chart = Bars { title: "new / old", axis: "ratio", bars: &bars, base: 1.0, marks: &[1.03] };
        let svg = bar_chart("compare", 700, &chart).unwrap();
        assert!(svg.starts_with(r#"<svg data-chart="compare" role="img" "#), "{}", &svg[..80]);
        assert_eq!(count_filled(&svg, BAR), 2, "{svg}");
        assert_eq!(count_filled(&svg, BAR_FLAGGED), 1);
        assert!(
            svg.contains("saxpy &lt;&amp;&gt;") || svg.contains("saxpy &lt;&amp;>"),
            "labels are escaped"
        );
        assert!(svg.contains("vector_add"));
    }

    #[test]
    fn a_log_log_chart_plots_every_point_and_names_its_curves() {
        let curves = [
            Curve {
                legend: "guard: k = 1.01".into(),
                points: vec![(200.0, 1.0), (400.0, 2.0), (800.0, 4.1)],
            },
            Curve { legend: "pristine: k = 2.02".into(), points: vec![(800.0, 10.0), (1600.0, 41.0)] },
        ];
        let svg = log_log_chart("timing", (700, 400), "verifier", &curves).unwrap();
        assert_eq!(count_filled(&svg, SERIES[0]), 3);
        assert_eq!(count_filled(&svg, SERIES[1]), 2);
        assert!(svg.contains("guard: k = 1.01") && svg.contains("pristine: k = 2.02"));
    }
}
