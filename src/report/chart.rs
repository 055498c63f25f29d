//! The charts, drawn with `plotters` into SVG text.
//!
//! Colours are Okabe-Ito (safe for the common colour blindnesses); series also differ by
//! marker shape and reference lines by dash, so a grayscale print keeps them apart. Legends sit
//! in a strip above the plot, where they never cover data.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::ReportError;

/// Okabe-Ito blue, vermillion, bluish green, orange, reddish purple, sky blue.
pub(crate) const PALETTE: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(230, 159, 0),
    RGBColor(204, 121, 167),
    RGBColor(86, 180, 233),
];
const GRID: RGBColor = RGBColor(226, 226, 226);
const INK: RGBColor = RGBColor(26, 26, 26);

const WIDTH: u32 = 760;
const FONT: &str = "sans-serif";
/// plotters writes `font-size = size / 1.24`: these give about 13, 14 and 15 px.
const LABEL: u32 = 16;
const DESC: u32 = 18;
const LEGEND: u32 = 17;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Drawn = Result<(), String>;

fn e<E: std::fmt::Display>(err: E) -> String {
    err.to_string()
}

/// Draws onto a fresh white SVG of `height` px and returns its text.
fn svg(height: u32, draw: impl FnOnce(&Area<'_>) -> Drawn) -> Result<String, ReportError> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE)
            .map_err(|x| ReportError::Chart(x.to_string()))?;
        draw(&root).map_err(ReportError::Chart)?;
        root.present()
            .map_err(|x| ReportError::Chart(x.to_string()))?;
    }
    Ok(text)
}

/// How a legend entry is drawn.
#[derive(Clone, Copy)]
pub(crate) enum Mark {
    /// A series marker (shape index, colour index).
    Marker(usize, usize),
    /// A line: colour, dash length in px (0 = solid).
    Line(RGBColor, i32),
    /// A filled box of a colour.
    Swatch(RGBColor),
}

/// Where each legend entry goes: left to right, wrapping to another line when full.
fn legend_layout(entries: &[(String, Mark)]) -> Vec<(i32, i32)> {
    let (mut x, mut y) = (70i32, 13i32);
    let mut at = Vec::new();
    for (text, _) in entries {
        let w = 34 + (text.chars().count() as i32) * 8 + 24;
        if x + w > WIDTH as i32 - 10 && x > 70 {
            x = 70;
            y += 24;
        }
        at.push((x, y));
        x += w;
    }
    at
}

/// The height of the strip that holds a legend.
fn legend_height(entries: &[(String, Mark)]) -> u32 {
    legend_layout(entries).last().map_or(0, |p| p.1 as u32 + 19)
}

/// Draws legend entries in `area` (see [`legend_layout`]).
fn legend(area: &Area<'_>, entries: &[(String, Mark)]) -> Drawn {
    let style = TextStyle::from((FONT, LEGEND).into_font())
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    for ((text, mark), (x, y)) in entries.iter().zip(legend_layout(entries)) {
        match *mark {
            Mark::Marker(shape, colour) => marker(area, shape, colour, (x + 12, y))?,
            Mark::Line(c, dash) => {
                if dash == 0 {
                    area.draw(&PathElement::new(
                        vec![(x, y), (x + 26, y)],
                        c.stroke_width(3),
                    ))
                    .map_err(e)?;
                } else {
                    let mut sx = x;
                    while sx < x + 26 {
                        area.draw(&PathElement::new(
                            vec![(sx, y), ((sx + dash).min(x + 26), y)],
                            c.stroke_width(3),
                        ))
                        .map_err(e)?;
                        sx += dash + 4;
                    }
                }
            }
            Mark::Swatch(c) => {
                area.draw(&Rectangle::new(
                    [(x + 4, y - 7), (x + 22, y + 7)],
                    c.filled(),
                ))
                .map_err(e)?;
                area.draw(&Rectangle::new(
                    [(x + 4, y - 7), (x + 22, y + 7)],
                    RGBColor(120, 120, 120).stroke_width(1),
                ))
                .map_err(e)?;
            }
        }
        area.draw(&Text::new(text.clone(), (x + 34, y), style.clone()))
            .map_err(e)?;
    }
    Ok(())
}

/// The marker of series shape `shape` in palette colour `colour`, at a pixel position.
fn marker(area: &Area<'_>, shape: usize, colour: usize, at: (i32, i32)) -> Drawn {
    let c = PALETTE[colour % PALETTE.len()];
    match shape % 4 {
        0 => area.draw(&Circle::new(at, 5, c.filled())),
        1 => area.draw(&TriangleMarker::new(at, 7, c.filled())),
        2 => area.draw(&Rectangle::new(
            [(at.0 - 5, at.1 - 5), (at.0 + 5, at.1 + 5)],
            c.filled(),
        )),
        _ => area.draw(&Cross::new(at, 6, c.stroke_width(3))),
    }
    .map_err(e)
}

/// One point of an interval chart: a category, a value and its 95% interval.
pub(crate) struct Point {
    /// Category index.
    pub cat: usize,
    /// The estimate.
    pub value: f64,
    /// The interval, if known.
    pub interval: Option<(f64, f64)>,
}

/// Points of one series.
pub(crate) struct Series {
    /// Legend text.
    pub name: String,
    /// The points.
    pub points: Vec<Point>,
}

/// Estimates with interval bars per category, optionally against a reference line.
pub(crate) struct IntervalChart<'a> {
    /// Category labels, left to right.
    pub categories: Vec<String>,
    /// One or more series (dodged within each category).
    pub series: Vec<Series>,
    /// X axis description.
    pub x_label: &'a str,
    /// Y axis description, with units.
    pub y_label: &'a str,
    /// A horizontal reference line and its legend text.
    pub reference: Option<(f64, String)>,
    /// Decimals of tick and value labels.
    pub decimals: usize,
    /// The y axis never goes below this (0 for rates).
    pub floor: Option<f64>,
}

/// The largest magnitude a chart plots: beyond it a value is not a figure of any job (the
/// report says so), and an axis over it would have no sensible ticks.
pub(crate) const MAX_PLOTTED: f64 = 1e12;

/// Whether a chart can plot a value.
pub(crate) fn plottable(v: f64) -> bool {
    v.is_finite() && v.abs() <= MAX_PLOTTED
}

fn y_range(values: impl Iterator<Item = f64>, floor: Option<f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|&v| plottable(v)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return (0.0, 1.0);
    }
    let pad = if hi > lo {
        (hi - lo) * 0.15
    } else {
        hi.abs().max(1.0) * 0.1
    };
    let mut lo = lo - pad;
    if let Some(f) = floor {
        lo = lo.max(f);
    }
    (lo, hi + pad)
}

/// Draws an [`IntervalChart`] (points or interval ends a chart cannot plot are left out).
pub(crate) fn intervals(c: &IntervalChart<'_>) -> Result<String, ReportError> {
    let series: Vec<Series> = c
        .series
        .iter()
        .map(|s| Series {
            name: s.name.clone(),
            points: s
                .points
                .iter()
                .filter(|p| plottable(p.value))
                .map(|p| Point {
                    cat: p.cat,
                    value: p.value,
                    interval: p.interval.filter(|(l, h)| plottable(*l) && plottable(*h)),
                })
                .collect(),
        })
        .collect();
    let c = &IntervalChart {
        categories: c.categories.clone(),
        series,
        x_label: c.x_label,
        y_label: c.y_label,
        reference: c.reference.clone().filter(|r| plottable(r.0)),
        decimals: c.decimals,
        floor: c.floor,
    };
    let n = c.categories.len().max(1);
    let all = c.series.iter().flat_map(|s| {
        s.points.iter().flat_map(|p| {
            let (l, h) = p.interval.unwrap_or((p.value, p.value));
            [p.value, l, h]
        })
    });
    let (y0, y1) = y_range(all.chain(c.reference.iter().map(|r| r.0)), c.floor);
    let k = c.series.len().max(1);
    let total_points: usize = c.series.iter().map(|s| s.points.len()).sum();
    let mut entries: Vec<(String, Mark)> = Vec::new();
    if k > 1 {
        for (j, s) in c.series.iter().enumerate() {
            entries.push((s.name.clone(), Mark::Marker(j, j)));
        }
    } else if let Some(s) = c.series.first() {
        entries.push((s.name.clone(), Mark::Marker(0, 0)));
    }
    if let Some((_, name)) = &c.reference {
        entries.push((name.clone(), Mark::Line(INK, 14)));
    }
    let legend_h = legend_height(&entries);
    svg(360 + legend_h, |root| {
        let (top, plot) = root.split_vertically(legend_h);
        legend(&top, &entries)?;
        let labels = c.categories.clone();
        let dec = c.decimals;
        let below = TextStyle::from((FONT, LABEL).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let mut chart = ChartBuilder::on(&plot)
            .margin_left(10)
            .margin_right(24)
            .margin_bottom(6)
            .x_label_area_size(52)
            .y_label_area_size(70)
            .build_cartesian_2d(-0.5..n as f64 - 0.5, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .bold_line_style(GRID)
            .x_desc(c.x_label)
            .y_desc(c.y_label)
            .axis_desc_style((FONT, DESC))
            .label_style((FONT, LABEL))
            .x_labels(0)
            .y_label_formatter(&|y| format!("{y:.dec$}"))
            .draw()
            .map_err(e)?;
        for (i, l) in labels.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64, y0));
            root.draw(&Text::new(l.clone(), (x, y + 8), below.clone()))
                .map_err(e)?;
        }
        if let Some((r, _)) = &c.reference {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(-0.5, *r), (n as f64 - 0.5, *r)],
                    14,
                    6,
                    INK.stroke_width(2),
                ))
                .map_err(e)?;
        }
        let value_style = TextStyle::from((FONT, LABEL).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (j, s) in c.series.iter().enumerate() {
            let colour = PALETTE[j % PALETTE.len()];
            let offset = if k > 1 {
                (j as f64 - (k - 1) as f64 / 2.0) * (0.7 / k as f64)
            } else {
                0.0
            };
            for p in &s.points {
                let x = p.cat as f64 + offset;
                if let Some((l, h)) = p.interval {
                    chart
                        .draw_series([PathElement::new(
                            vec![(x, l), (x, h)],
                            colour.stroke_width(2),
                        )])
                        .map_err(e)?;
                    for v in [l, h] {
                        chart
                            .draw_series([EmptyElement::at((x, v))
                                + PathElement::new(vec![(-7, 0), (7, 0)], colour.stroke_width(2))])
                            .map_err(e)?;
                    }
                }
                let at = chart.backend_coord(&(x, p.value));
                marker(root, j, j, at)?;
                if total_points <= 12 {
                    chart
                        .draw_series([EmptyElement::at((x, p.value))
                            + Text::new(
                                format!("{:.dec$}", p.value),
                                (10, 0),
                                value_style.clone(),
                            )])
                        .map_err(e)?;
                }
            }
        }
        Ok(())
    })
}

/// A nice bin width covering `span` values in about `target` bins.
fn bin_width(span: u128, target: u128) -> u128 {
    let raw = span.div_ceil(target).max(1);
    let mut step: u128 = 1;
    loop {
        for m in [1, 2, 5] {
            if step * m >= raw {
                return step * m;
            }
        }
        step *= 10;
    }
}

/// Counts per value binned into at most about 140 bars of a round width, for a histogram:
/// built in two passes over a table (the range first), so memory does not grow with the
/// number of distinct values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Bins {
    start: u128,
    width: u128,
    counts: Vec<u64>,
}

impl Bins {
    /// Empty bins covering `min..=max`.
    pub fn new(min: u64, max: u64) -> Bins {
        let (min, max) = (u128::from(min), u128::from(max.max(min)));
        let width = bin_width(max - min + 1, 70);
        let start = min / width * width;
        let n = ((max - start) / width + 1) as usize;
        Bins {
            start,
            width,
            counts: vec![0; n],
        }
    }

    /// Adds `count` games of length `value` (ignored outside the range).
    pub fn add(&mut self, value: u64, count: u64) {
        let v = u128::from(value);
        if v < self.start {
            return;
        }
        if let Some(b) = self
            .counts
            .get_mut(((v - self.start) / self.width) as usize)
        {
            *b = b.saturating_add(count);
        }
    }

    /// Bins of a list of (value, count).
    #[cfg(test)]
    pub fn of(counts: &[(u64, u64)]) -> Option<Bins> {
        let min = counts.iter().map(|c| c.0).min()?;
        let max = counts.iter().map(|c| c.0).max()?;
        let mut b = Bins::new(min, max);
        for &(v, c) in counts {
            b.add(v, c);
        }
        Some(b)
    }
}

/// A histogram of games per length, with the mean and the median marked.
pub(crate) fn histogram(
    bins: Option<&Bins>,
    mean: Option<f64>,
    median: Option<f64>,
    unit: &str,
) -> Result<String, ReportError> {
    let Some(Bins {
        start,
        width: w,
        counts: bins,
    }) = bins.filter(|b| b.counts.iter().any(|&c| c > 0))
    else {
        return svg(120, |root| {
            root.draw(&Text::new("no games", (20, 50), (FONT, DESC).into_font()))
                .map_err(e)
        });
    };
    let (start, w) = (*start, *w);
    let nbins = bins.len();
    let top = bins.iter().copied().max().unwrap_or(1).max(1) as f64 * 1.1;
    let end = start + nbins as u128 * w;
    let (start, w) = (start as f64, w as f64);
    let mut entries = vec![(
        if w == 1.0 {
            format!("games per {unit} count")
        } else {
            format!("games per {w} {unit}")
        },
        Mark::Swatch(PALETTE[5]),
    )];
    if let Some(m) = mean {
        entries.push((format!("mean {m:.1} {unit}"), Mark::Line(PALETTE[1], 0)));
    }
    if let Some(m) = median {
        entries.push((format!("median {m:.0} {unit}"), Mark::Line(INK, 12)));
    }
    let strip_h = legend_height(&entries);
    svg(360 + strip_h, |root| {
        let (strip, plot) = root.split_vertically(strip_h);
        legend(&strip, &entries)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin_left(10)
            .margin_right(24)
            .margin_bottom(6)
            .x_label_area_size(52)
            .y_label_area_size(70)
            .build_cartesian_2d(start..end as f64, 0.0..top)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(0)
            .bold_line_style(GRID)
            .x_desc(format!("game length ({unit})"))
            .y_desc(if w == 1.0 {
                "games".to_string()
            } else {
                format!("games per {w} {unit}")
            })
            .axis_desc_style((FONT, DESC))
            .label_style((FONT, LABEL))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(e)?;
        chart
            .draw_series(
                bins.iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0)
                    .map(|(i, &c)| {
                        let x0 = start + i as f64 * w;
                        Rectangle::new([(x0, 0.0), (x0 + w, c as f64)], PALETTE[5].filled())
                    }),
            )
            .map_err(e)?;
        // Bar outlines, so neighbouring bars stay apart in print.
        chart
            .draw_series(
                bins.iter()
                    .enumerate()
                    .filter(|(_, c)| **c > 0)
                    .map(|(i, &c)| {
                        let x0 = start + i as f64 * w;
                        Rectangle::new([(x0, 0.0), (x0 + w, c as f64)], PALETTE[0].stroke_width(1))
                    }),
            )
            .map_err(e)?;
        // A value v covers [v, v + 1) on this axis: mark the centre of its bar.
        if let Some(m) = mean {
            chart
                .draw_series(LineSeries::new(
                    vec![(m + 0.5, 0.0), (m + 0.5, top)],
                    PALETTE[1].stroke_width(3),
                ))
                .map_err(e)?;
        }
        if let Some(m) = median {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(m + 0.5, 0.0), (m + 0.5, top)],
                    12,
                    6,
                    INK.stroke_width(3),
                ))
                .map_err(e)?;
        }
        Ok(())
    })
}

/// Horizontal bars, one per label top to bottom, each with its value written at its end.
pub(crate) fn bars(
    labels: &[String],
    values: &[f64],
    x_label: &str,
    decimals: usize,
) -> Result<String, ReportError> {
    let n = labels.len().max(1);
    let values: Vec<f64> = values
        .iter()
        .map(|&v| if plottable(v) { v } else { 0.0 })
        .collect();
    let values = &values[..];
    let top = values.iter().copied().fold(0.0, f64::max).max(1e-9) * 1.2;
    let longest = labels.iter().map(|l| l.len()).max().unwrap_or(4) as u32;
    svg(60 + 34 * n as u32, |root| {
        let labels = labels.to_vec();
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .margin_right(24)
            .x_label_area_size(48)
            .y_label_area_size(20 + 9 * longest)
            .build_cartesian_2d(0.0..top, -0.5..n as f64 - 0.5)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .max_light_lines(0)
            .bold_line_style(GRID)
            .x_desc(x_label)
            .axis_desc_style((FONT, DESC))
            .label_style((FONT, LABEL))
            .y_labels(0)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()
            .map_err(e)?;
        let style = TextStyle::from((FONT, LABEL).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let left = TextStyle::from((FONT, LABEL).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, l) in labels.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(0.0, (n - 1 - i) as f64));
            root.draw(&Text::new(l.clone(), (x - 8, y), left.clone()))
                .map_err(e)?;
        }
        for (i, &v) in values.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            chart
                .draw_series([Rectangle::new(
                    [(0.0, y - 0.3), (v, y + 0.3)],
                    PALETTE[0].filled(),
                )])
                .map_err(e)?;
            chart
                .draw_series([EmptyElement::at((v, y))
                    + Text::new(format!("{v:.decimals$}"), (6, 0), style.clone())])
                .map_err(e)?;
        }
        Ok(())
    })
}

/// An SPRT's log-likelihood ratio over games against its two bounds.
pub(crate) fn llr_path(path: &[(u64, f64)], lower: f64, upper: f64) -> Result<String, ReportError> {
    let path: Vec<(u64, f64)> = path.iter().copied().filter(|p| plottable(p.1)).collect();
    let path = &path[..];
    let last = path.last().map_or(1, |p| p.0).max(1) as f64;
    let (y0, y1) = y_range(path.iter().map(|p| p.1).chain([lower, upper, 0.0]), None);
    let entries = vec![
        (
            "LLR after each check".to_string(),
            Mark::Line(PALETTE[0], 0),
        ),
        (
            format!("upper bound {upper:.2}: accept H1"),
            Mark::Line(PALETTE[2], 10),
        ),
        (
            format!("lower bound {lower:.2}: accept H0"),
            Mark::Line(PALETTE[1], 4),
        ),
    ];
    let strip_h = legend_height(&entries);
    svg(368 + strip_h, |root| {
        let (strip, plot) = root.split_vertically(strip_h);
        legend(&strip, &entries)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin_left(10)
            .margin_right(30)
            .margin_bottom(6)
            .x_label_area_size(52)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..last * 1.02, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .bold_line_style(GRID)
            .x_desc("games played")
            .y_desc("log-likelihood ratio")
            .axis_desc_style((FONT, DESC))
            .label_style((FONT, LABEL))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .draw()
            .map_err(e)?;
        for (b, c, dash) in [(upper, PALETTE[2], 10), (lower, PALETTE[1], 4)]
            .into_iter()
            .filter(|x| plottable(x.0))
        {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(0.0, b), (last * 1.02, b)],
                    dash,
                    4,
                    c.stroke_width(3),
                ))
                .map_err(e)?;
        }
        let points: Vec<(f64, f64)> = std::iter::once((0.0, 0.0))
            .chain(path.iter().map(|&(g, l)| (g as f64, l)))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), PALETTE[0].stroke_width(2)))
            .map_err(e)?;
        if let Some(&p) = points.last() {
            chart
                .draw_series([Circle::new(p, 5, PALETTE[0].filled())])
                .map_err(e)?;
        }
        Ok(())
    })
}

/// The ColorBrewer "Blues" ramp (one hue, monotone lightness) at `t` in [0, 1].
fn blues(t: f64) -> RGBColor {
    const STOPS: [(f64, (f64, f64, f64)); 3] = [
        (0.0, (247.0, 251.0, 255.0)),
        (0.5, (107.0, 174.0, 214.0)),
        (1.0, (8.0, 48.0, 107.0)),
    ];
    let t = t.clamp(0.0, 1.0);
    let (a, b) = if t <= 0.5 {
        (STOPS[0], STOPS[1])
    } else {
        (STOPS[1], STOPS[2])
    };
    let f = (t - a.0) / (b.0 - a.0);
    let mix = |x: f64, y: f64| (x + (y - x) * f).round() as u8;
    RGBColor(mix(a.1.0, b.1.0), mix(a.1.1, b.1.1), mix(a.1.2, b.1.2))
}

/// A square matrix of shares in [0, 1] as a heat map with the number in each cell; row `i`
/// is `names[i]`, top to bottom.
pub(crate) fn heat_map(
    names: &[String],
    cells: &[Vec<Option<f64>>],
    x_label: &str,
    y_label: &str,
) -> Result<String, ReportError> {
    let n = names.len().max(1);
    let longest = names.iter().map(|l| l.len()).max().unwrap_or(4) as u32;
    let h = (80 + 54 * n as u32).min(720);
    let entries = vec![
        ("0 (always behind)".to_string(), Mark::Swatch(blues(0.0))),
        ("0.5".to_string(), Mark::Swatch(blues(0.5))),
        ("1 (always ahead)".to_string(), Mark::Swatch(blues(1.0))),
    ];
    let strip_h = legend_height(&entries);
    svg(h + strip_h, |root| {
        let (strip, plot) = root.split_vertically(strip_h);
        legend(&strip, &entries)?;
        let labels = names.to_vec();
        let mut chart = ChartBuilder::on(&plot)
            .margin_left(10)
            .margin_right(24)
            .margin_bottom(6)
            .x_label_area_size(52)
            .y_label_area_size(34 + 9 * longest)
            .build_cartesian_2d(0.0..n as f64, 0.0..n as f64)
            .map_err(e)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .axis_desc_style((FONT, DESC))
            .label_style((FONT, LABEL))
            .x_labels(0)
            .y_labels(0)
            .draw()
            .map_err(e)?;
        let below = TextStyle::from((FONT, LABEL).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Center, VPos::Top));
        let left = TextStyle::from((FONT, LABEL).into_font())
            .color(&INK)
            .pos(Pos::new(HPos::Right, VPos::Center));
        for (i, l) in labels.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(i as f64 + 0.5, 0.0));
            root.draw(&Text::new(l.clone(), (x, y + 8), below.clone()))
                .map_err(e)?;
            let (x, y) = chart.backend_coord(&(0.0, (n - 1 - i) as f64 + 0.5));
            root.draw(&Text::new(l.clone(), (x - 8, y), left.clone()))
                .map_err(e)?;
        }
        let centre =
            TextStyle::from((FONT, DESC).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
        for (i, row) in cells.iter().enumerate() {
            let y = (n - 1 - i) as f64;
            for (j, cell) in row.iter().enumerate() {
                let x = j as f64;
                let (fill, text, ink) = match cell.filter(|v| (0.0..=1.0).contains(v)) {
                    Some(ref v) => (
                        blues(*v),
                        format!("{v:.3}"),
                        // Pure black, not INK: the page gives INK labels a white halo.
                        if *v > 0.55 { WHITE } else { BLACK },
                    ),
                    None => (RGBColor(235, 235, 235), "-".to_string(), BLACK),
                };
                chart
                    .draw_series([Rectangle::new([(x, y), (x + 1.0, y + 1.0)], fill.filled())])
                    .map_err(e)?;
                chart
                    .draw_series([Rectangle::new(
                        [(x, y), (x + 1.0, y + 1.0)],
                        WHITE.stroke_width(2),
                    )])
                    .map_err(e)?;
                chart
                    .draw_series([Text::new(
                        text,
                        (x + 0.5, y + 0.5),
                        centre.clone().color(&ink),
                    )])
                    .map_err(e)?;
            }
        }
        Ok(())
    })
}

/// One series of a [`trace`] chart.
pub(crate) struct Trace {
    /// Legend text.
    pub name: String,
    /// The points, x ascending.
    pub points: Vec<(f64, f64)>,
    /// Palette colour index.
    pub colour: usize,
    /// Dots (small markers, no line) instead of a line.
    pub dots: bool,
}

/// Series over a numeric x axis (a tune's iterations) with dashed horizontal reference lines
/// (value, legend text, palette colour); the y axis spans `y_span` if given, else the data.
pub(crate) fn trace(
    series: &[Trace],
    references: &[(f64, String, usize)],
    x_label: &str,
    y_label: &str,
    y_span: Option<(f64, f64)>,
    decimals: usize,
) -> Result<String, ReportError> {
    let x_max = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(1.0f64, f64::max);
    let (y0, y1) = match y_span {
        Some((lo, hi)) => (lo, hi),
        None => y_range(
            series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .chain(references.iter().map(|r| r.0)),
            None,
        ),
    };
    let mut entries: Vec<(String, Mark)> = series
        .iter()
        .map(|s| {
            let mark = if s.dots {
                Mark::Marker(0, s.colour)
            } else {
                Mark::Line(PALETTE[s.colour % PALETTE.len()], 0)
            };
            (s.name.clone(), mark)
        })
        .collect();
    entries.extend(
        references
            .iter()
            .map(|(_, name, c)| (name.clone(), Mark::Line(PALETTE[c % PALETTE.len()], 8))),
    );
    let strip_h = legend_height(&entries);
    svg(340 + strip_h, |root| {
        let (strip, plot) = root.split_vertically(strip_h);
        legend(&strip, &entries)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin_left(10)
            .margin_right(30)
            .margin_bottom(6)
            .x_label_area_size(52)
            .y_label_area_size(80)
            .build_cartesian_2d(0.0..x_max, y0..y1)
            .map_err(e)?;
        chart
            .configure_mesh()
            .max_light_lines(0)
            .bold_line_style(GRID)
            .x_desc(x_label)
            .y_desc(y_label)
            .axis_desc_style((FONT, DESC))
            .label_style((FONT, LABEL))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| {
                // No "-0.00" for a tick a rounding error below zero.
                let y = if y.abs() < 0.5 * 10f64.powi(-(decimals as i32)) {
                    0.0
                } else {
                    *y
                };
                format!("{y:.decimals$}")
            })
            .draw()
            .map_err(e)?;
        for (value, _, c) in references {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(0.0, *value), (x_max, *value)],
                    8,
                    5,
                    PALETTE[c % PALETTE.len()].stroke_width(2),
                ))
                .map_err(e)?;
        }
        for s in series {
            let colour = PALETTE[s.colour % PALETTE.len()];
            if s.dots {
                chart
                    .draw_series(
                        s.points
                            .iter()
                            .map(|&p| Circle::new(p, 2, colour.mix(0.6).filled())),
                    )
                    .map_err(e)?;
            } else {
                chart
                    .draw_series(LineSeries::new(s.points.clone(), colour.stroke_width(2)))
                    .map_err(e)?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_round_and_cover_the_span() {
        assert_eq!(bin_width(50, 70), 1);
        assert_eq!(bin_width(u128::from(u64::MAX), 70), 500_000_000_000_000_000);
        assert_eq!(bin_width(71, 70), 2);
        assert_eq!(bin_width(400, 70), 10);
        assert_eq!(bin_width(3000, 70), 50);
    }

    #[test]
    fn the_ramp_darkens_monotonically() {
        let lum = |c: RGBColor| 0.2126 * c.0 as f64 + 0.7152 * c.1 as f64 + 0.0722 * c.2 as f64;
        let steps: Vec<f64> = (0..=10).map(|i| lum(blues(i as f64 / 10.0))).collect();
        assert!(steps.windows(2).all(|w| w[0] > w[1]), "{steps:?}");
    }

    #[test]
    fn charts_are_svg_documents() {
        let svg = histogram(
            Bins::of(&[(10, 3), (11, 5), (14, 1)]).as_ref(),
            Some(11.2),
            Some(11.0),
            "turns",
        )
        .unwrap();
        // A damaged table's lengths up to u64::MAX: a few wide bins, no overflow.
        let huge = Bins::of(&[(0, 1), (u64::MAX, 1)]).unwrap();
        assert!(huge.counts.len() <= 140);
        assert!(histogram(Some(&huge), None, None, "turns").is_ok());
        assert!(svg.trim_start().starts_with("<svg"));
        assert!(svg.contains("mean 11.2 turns") && svg.contains("median 11 turns"));
        let empty = histogram(None, None, None, "turns").unwrap();
        assert!(empty.contains("no games"));
    }
}
