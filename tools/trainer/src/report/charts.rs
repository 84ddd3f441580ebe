//! Charts that compare runs, for the feature-set study: validation loss per
//! epoch of several runs on one chart, Elo with its error bar per set, and
//! each set's Elo against the size of its training data; and the parameter
//! trace of an SPSA run (tournaments/spsa.py).

use std::path::PathBuf;

use clap::Args as ClapArgs;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

use crate::report::plot;

type Error = Box<dyn std::error::Error>;

#[derive(ClapArgs, Debug)]
pub struct LossChartArgs {
    /// The PNG to write.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value = "validation loss per epoch")]
    pub title: String,
    /// `LABEL=RUN/loss.csv`, one per run (the trainer's loss table).
    #[arg(required = true, num_args = 1..)]
    pub runs: Vec<String>,
}

#[derive(ClapArgs, Debug)]
pub struct EloChartArgs {
    /// The PNG to write.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value = "Elo against the reference (95% interval)")]
    pub title: String,
    /// `LABEL=ELO±ERROR` (or `LABEL=ELO+-ERROR`), one per set, in the order drawn.
    #[arg(required = true, num_args = 1.., allow_hyphen_values = true)]
    pub sets: Vec<String>,
}

#[derive(ClapArgs, Debug)]
pub struct SizeChartArgs {
    /// The PNG to write.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value = "Elo against the reference by training data (95% interval)")]
    pub title: String,
    /// `LABEL=SIZE:ELO±ERROR,SIZE:ELO±ERROR,…`, one per set: its Elo at each
    /// size of training data (millions of positions), one line per set.
    #[arg(required = true, num_args = 1.., allow_hyphen_values = true)]
    pub sets: Vec<String>,
}

#[derive(ClapArgs, Debug)]
pub struct TraceChartArgs {
    /// The PNG to write.
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value = "parameter trace")]
    pub title: String,
    /// A CSV with a header: the first column is the x axis, every other
    /// column a line (drawn as its move from its first value).
    #[arg(long)]
    pub csv: PathBuf,
    /// `NAME=STEP`: draw that column's move in units of STEP (default 1).
    #[arg(long = "step")]
    pub steps: Vec<String>,
    /// Columns not to draw.
    #[arg(long = "skip")]
    pub skip: Vec<String>,
}

/// The columns of a CSV with a header: (x name, x values, [(name, values)]).
pub type Columns = (String, Vec<f64>, Vec<(String, Vec<f64>)>);

/// Reads a numeric CSV with a header, column by column.
pub fn read_columns(text: &str) -> Result<Columns, Error> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<String> = lines.next().ok_or("empty table")?.split(',').map(|h| h.trim().to_string()).collect();
    if header.len() < 2 {
        return Err("the table needs an x column and at least one more".into());
    }
    let mut values = vec![Vec::new(); header.len()];
    for line in lines {
        let cells: Vec<&str> = line.split(',').collect();
        if cells.len() != header.len() {
            return Err(format!("row `{line}` has {} cells, the header {}", cells.len(), header.len()).into());
        }
        for (column, cell) in values.iter_mut().zip(&cells) {
            column.push(cell.trim().parse::<f64>().map_err(|_| format!("bad number `{cell}` in `{line}`"))?);
        }
    }
    if values[0].is_empty() {
        return Err("no rows in the table".into());
    }
    let mut columns = header.into_iter().zip(values);
    let (x_name, x) = columns.next().expect("two columns at least");
    Ok((x_name, x, columns.collect()))
}

pub fn trace_chart(args: &TraceChartArgs) -> Result<(), Error> {
    plot::register_font()?;
    let path = args.csv.display();
    let text = std::fs::read_to_string(&args.csv).map_err(|e| format!("cannot read {path}: {e}"))?;
    let (x_name, x, columns) = read_columns(&text).map_err(|e| format!("{path}: {e}"))?;
    let mut steps = std::collections::HashMap::new();
    for arg in &args.steps {
        let (name, value) = split_label(arg)?;
        let step: f64 = value.parse().ok().filter(|s: &f64| *s > 0.0).ok_or(format!("`{arg}`: STEP must be > 0"))?;
        steps.insert(name.to_string(), step);
    }
    let lines: Vec<(String, Vec<(f64, f64)>)> = columns
        .into_iter()
        .filter(|(name, _)| !args.skip.contains(name))
        .map(|(name, ys)| {
            let step = steps.get(&name).copied().unwrap_or(1.0);
            let points = x.iter().zip(&ys).map(|(&xv, &y)| (xv, (y - ys[0]) / step)).collect();
            (name, points)
        })
        .collect();
    let ys = lines.iter().flat_map(|(_, p)| p.iter().map(|&(_, y)| y));
    let (low, high) = ys.fold((0.0f64, 0.0f64), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let pad = ((high - low) * 0.05).max(0.5);
    let x_max = x.iter().copied().fold(f64::MIN, f64::max);
    let x_min = x.iter().copied().fold(f64::MAX, f64::min);
    let frame = Frame {
        x: x_min..x_max.max(x_min + 1.0),
        y: (low - pad)..(high + pad),
        x_desc: &x_name,
        y_desc: "move from the start (steps)",
    };
    draw_lines(&args.out, &args.title, frame, &lines)
}

/// The axes of a line chart: ranges and descriptions.
struct Frame<'a> {
    x: std::ops::Range<f64>,
    y: std::ops::Range<f64>,
    x_desc: &'a str,
    y_desc: &'a str,
}

/// Labelled lines on one chart with a legend, written as a PNG.
fn draw_lines(
    out: &std::path::Path,
    title: &str,
    frame: Frame,
    lines: &[(String, Vec<(f64, f64)>)],
) -> Result<(), Error> {
    let root = BitMapBackend::new(out, (1000, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(frame.x, frame.y)?;
    chart.configure_mesh().x_desc(frame.x_desc).y_desc(frame.y_desc).draw()?;
    for (i, (label, points)) in lines.iter().enumerate() {
        chart
            .draw_series(std::iter::once(series_line(points.iter().copied(), i)))?
            .label(label)
            .legend(move |(x, y)| series_line([(x, y), (x + 20, y)], i));
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    root.present()?;
    println!("wrote {}", out.display());
    Ok(())
}

fn split_label(arg: &str) -> Result<(&str, &str), Error> {
    arg.split_once('=')
        .filter(|(l, v)| !l.is_empty() && !v.is_empty())
        .ok_or_else(|| format!("`{arg}`: expected LABEL=VALUE").into())
}

/// The epochs and validation losses of a trainer's `loss.csv`.
pub fn read_losses(text: &str) -> Result<Vec<(f64, f64)>, Error> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().ok_or("empty loss table")?.split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).ok_or(format!("no `{name}` column"));
    let (epoch, loss) = (column("epoch")?, column("validation_loss")?);
    let points = lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            let cell = |i: usize| -> Result<f64, Error> {
                cells.get(i).and_then(|c| c.trim().parse().ok()).ok_or_else(|| format!("bad row `{l}`").into())
            };
            Ok((cell(epoch)?, cell(loss)?))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    if points.is_empty() {
        return Err("no epochs in the loss table".into());
    }
    Ok(points)
}

/// `ELO±ERROR` → (elo, error); `−` (the Unicode minus) is read as `-`.
pub fn parse_elo(value: &str) -> Result<(f64, f64), Error> {
    let value = value.replace('−', "-").replace(' ', "");
    let (elo, error) = value.split_once('±').or_else(|| value.split_once("+-")).unwrap_or((&value, "0"));
    let number = |s: &str| s.parse::<f64>().map_err(|_| format!("`{value}`: expected ELO±ERROR"));
    Ok((number(elo)?, number(error)?))
}

/// How series `i` of a chart is drawn: the palette's colours in turn, and the gap between
/// dashes (0: solid) changing each time the colours come round again, so that no two series
/// of a chart look alike (the feature-set study charts eleven sets and more).
fn series_stroke(i: usize) -> (RGBColor, u32) {
    const GAPS: [u32; 3] = [0, 7, 3];
    (PALETTE[i % PALETTE.len()], GAPS[(i / PALETTE.len()) % GAPS.len()])
}

/// The line of series `i` through `points`, on the chart or as its legend's mark. A dash
/// with no gap after it is a solid line: one element type draws both styles, as a legend
/// needs.
fn series_line<C, I>(points: I, i: usize) -> DashedPathElement<I::IntoIter, u32>
where
    I: IntoIterator<Item = C>,
    I::IntoIter: Clone,
{
    let (colour, gap) = series_stroke(i);
    let dash = if gap == 0 { i32::MAX as u32 } else { 10 };
    DashedPathElement::new(points, dash, gap, colour.stroke_width(2))
}

const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

pub fn loss_chart(args: &LossChartArgs) -> Result<(), Error> {
    plot::register_font()?;
    let mut runs = Vec::new();
    for arg in &args.runs {
        let (label, path) = split_label(arg)?;
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        runs.push((label.to_string(), read_losses(&text).map_err(|e| format!("{path}: {e}"))?));
    }
    let all = runs.iter().flat_map(|(_, p)| p.iter());
    let (x_max, low, high) =
        all.fold((1.0f64, f64::MAX, f64::MIN), |(x, lo, hi), &(e, l)| (x.max(e), lo.min(l), hi.max(l)));
    let pad = ((high - low) * 0.05).max(1e-9);
    let frame = Frame { x: 0.0..x_max, y: (low - pad)..(high + pad), x_desc: "epoch", y_desc: "validation loss" };
    draw_lines(&args.out, &args.title, frame, &runs)
}

pub fn elo_chart(args: &EloChartArgs) -> Result<(), Error> {
    plot::register_font()?;
    let mut sets = Vec::new();
    for arg in &args.sets {
        let (label, value) = split_label(arg)?;
        sets.push((label.to_string(), parse_elo(value)?));
    }
    let low = sets.iter().map(|(_, (e, r))| e - r).fold(0.0f64, f64::min);
    let high = sets.iter().map(|(_, (e, r))| e + r).fold(0.0f64, f64::max);
    let pad = ((high - low) * 0.08).max(10.0);
    let n = sets.len() as i32;
    let root = BitMapBackend::new(&args.out, (1000, (120 + 34 * n) as u32)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&args.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(140)
        .build_cartesian_2d((low - pad)..(high + pad), (0..n).into_segmented())?;
    let labels: Vec<String> = sets.iter().map(|(l, _)| l.clone()).collect();
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(sets.len())
        .y_label_formatter(&|y| match y {
            SegmentValue::CenterOf(i) => labels.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        })
        .x_desc("Elo")
        .draw()?;
    let y = |i: usize| SegmentValue::CenterOf(i as i32);
    chart.draw_series(std::iter::once(PathElement::new(
        [(0.0, SegmentValue::Exact(0)), (0.0, SegmentValue::Exact(n))],
        BLACK.stroke_width(1),
    )))?;
    chart.draw_series(sets.iter().enumerate().map(|(i, (_, (elo, error)))| {
        ErrorBar::new_horizontal(y(i), elo - error, *elo, elo + error, PALETTE[0].filled(), 10)
    }))?;
    chart.draw_series(
        sets.iter().enumerate().map(|(i, (_, (elo, _)))| Circle::new((*elo, y(i)), 5, PALETTE[3].filled())),
    )?;
    root.present()?;
    println!("wrote {}", args.out.display());
    Ok(())
}

/// `SIZE:ELO±ERROR,SIZE:ELO±ERROR,…` → (size, elo, error) points, by size.
pub fn parse_sized_elos(value: &str) -> Result<Vec<(f64, f64, f64)>, Error> {
    let mut points =
        value
            .split(',')
            .map(|point| {
                let (size, elo) = point.split_once(':').ok_or_else(|| format!("`{point}`: expected SIZE:ELO±ERROR"))?;
                let size =
                    size.trim().parse::<f64>().ok().filter(|s| s.is_finite() && *s > 0.0).ok_or_else(|| {
                        format!("`{point}`: the size must be a positive number (millions of positions)")
                    })?;
                let (elo, error) = parse_elo(elo)?;
                Ok((size, elo, error))
            })
            .collect::<Result<Vec<_>, Error>>()?;
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    Ok(points)
}

pub fn size_chart(args: &SizeChartArgs) -> Result<(), Error> {
    plot::register_font()?;
    let mut sets = Vec::new();
    for arg in &args.sets {
        let (label, value) = split_label(arg)?;
        sets.push((label.to_string(), parse_sized_elos(value)?));
    }
    let points = || sets.iter().flat_map(|(_, p)| p.iter());
    let (mut small, mut large) = points().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    if large / small < 4.0 {
        // A range of a few sizes still spans a doubling or two on the axis.
        (small, large) = ((small * large).sqrt() / 2.0, (small * large).sqrt() * 2.0);
    }
    let low = points().map(|p| p.1 - p.2).fold(0.0f64, f64::min);
    let high = points().map(|p| p.1 + p.2).fold(0.0f64, f64::max);
    let pad = ((high - low) * 0.05).max(10.0);
    let root = BitMapBackend::new(&args.out, (1000, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(&args.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        // Room on the right for the legend, clear of the last points.
        .build_cartesian_2d((small / 1.25..large * 4.0).log_scale(), (low - pad)..(high + pad))?;
    chart
        .configure_mesh()
        .x_labels(6)
        .x_desc("training positions (millions, log scale)")
        .y_desc("Elo against the reference")
        .draw()?;
    chart.draw_series(std::iter::once(PathElement::new(
        [(small / 1.25, 0.0), (large * 4.0, 0.0)],
        BLACK.stroke_width(1),
    )))?;
    for (i, (label, points)) in sets.iter().enumerate() {
        let (colour, gap) = series_stroke(i);
        chart
            .draw_series(std::iter::once(series_line(points.iter().map(|p| (p.0, p.1)), i)))?
            .label(label)
            .legend(move |(x, y)| series_line([(x, y), (x + 20, y)], i));
        chart.draw_series(
            points
                .iter()
                .map(|&(size, elo, error)| ErrorBar::new_vertical(size, elo - error, elo, elo + error, colour, 8)),
        )?;
        // Solid lines end in circles, dashed ones in triangles: the points tell the sets apart too.
        if gap == 0 {
            chart.draw_series(points.iter().map(|&(size, elo, _)| Circle::new((size, elo), 4, colour.filled())))?;
        } else {
            chart.draw_series(
                points.iter().map(|&(size, elo, _)| TriangleMarker::new((size, elo), 5, colour.filled())),
            )?;
        }
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
    root.present()?;
    println!("wrote {}", args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loss_tables_and_elo_values_are_read() {
        let table = "epoch,train_loss,validation_loss,learning_rate,samples_per_second\n1,0.5,0.25,1e-3,100\n2,0.4,0.2,1e-3,100\n";
        assert_eq!(read_losses(table).unwrap(), vec![(1.0, 0.25), (2.0, 0.2)]);
        assert!(read_losses("epoch,train_loss\n1,2\n").unwrap_err().to_string().contains("validation_loss"));
        assert!(read_losses("epoch,validation_loss\n").unwrap_err().to_string().contains("no epochs"));
        assert_eq!(parse_elo("−38.2 ± 4.8").unwrap(), (-38.2, 4.8));
        assert_eq!(parse_elo("12+-30").unwrap(), (12.0, 30.0));
        assert_eq!(parse_elo("0").unwrap(), (0.0, 0.0));
        assert!(parse_elo("lots").is_err());
        assert!(split_label("=1").is_err() && split_label("a").is_err());
        assert_eq!(
            parse_sized_elos("31.2:−20 ± 30,3.3:-80.3±34.3").unwrap(),
            vec![(3.3, -80.3, 34.3), (31.2, -20.0, 30.0)]
        );
        assert!(parse_sized_elos("3.3").unwrap_err().to_string().contains("SIZE:ELO"));
        assert!(parse_sized_elos("0:5±1").unwrap_err().to_string().contains("positive"));
        assert!(parse_sized_elos("3.3:lots").is_err());
    }

    #[test]
    fn no_two_series_of_a_chart_look_alike() {
        let strokes: Vec<_> = (0..30).map(series_stroke).collect();
        for (i, a) in strokes.iter().enumerate() {
            for b in &strokes[..i] {
                assert_ne!(a, b, "series {i} is drawn like an earlier one");
            }
        }
        assert_eq!(series_stroke(3).1, 0, "the first ten are solid");
    }

    #[test]
    fn trace_tables_are_read_by_column() {
        let (x_name, x, columns) = read_columns("iteration,a,b\n1,10,0.5\n2,11,0.25\n").unwrap();
        assert_eq!((x_name.as_str(), x), ("iteration", vec![1.0, 2.0]));
        assert_eq!(columns, vec![("a".to_string(), vec![10.0, 11.0]), ("b".to_string(), vec![0.5, 0.25])]);
        assert!(read_columns("iteration\n1\n").unwrap_err().to_string().contains("at least one more"));
        assert!(read_columns("i,a\n1\n").unwrap_err().to_string().contains("cells"));
        assert!(read_columns("i,a\n1,x\n").unwrap_err().to_string().contains("bad number"));
        assert!(read_columns("i,a\n").unwrap_err().to_string().contains("no rows"));
    }

    #[test]
    fn charts_are_drawn_when_a_font_is_found() {
        if plot::register_font().is_err() {
            return; // No font on this machine: the chart commands say so instead.
        }
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let csv = dir.join("loss.csv");
        std::fs::write(&csv, "epoch,train_loss,validation_loss\n1,0.5,0.25\n2,0.4,0.2\n").unwrap();
        let out = dir.join("loss.png");
        loss_chart(&LossChartArgs {
            out: out.clone(),
            title: "t".into(),
            runs: vec![format!("all={}", csv.display())],
        })
        .unwrap();
        assert!(std::fs::read(&out).unwrap().starts_with(b"\x89PNG"));
        let out = dir.join("elo.png");
        let sets = vec!["h+v=−384±40".to_string(), "all+pv=5±30".to_string()];
        elo_chart(&EloChartArgs { out: out.clone(), title: "t".into(), sets }).unwrap();
        assert!(std::fs::read(&out).unwrap().starts_with(b"\x89PNG"));
        let out = dir.join("size.png");
        let sets = vec!["h+v=3.3:−80±34,31:−20±30".to_string(), "kb4=3.3:−10±35".to_string()];
        size_chart(&SizeChartArgs { out: out.clone(), title: "t".into(), sets }).unwrap();
        assert!(std::fs::read(&out).unwrap().starts_with(b"\x89PNG"));
        let trace = dir.join("trace.csv");
        std::fs::write(&trace, "iteration,a,b,wins\n1,10,0.5,1\n2,12,0.4,0\n").unwrap();
        let out = dir.join("trace.png");
        let args = TraceChartArgs {
            out: out.clone(),
            title: "t".into(),
            csv: trace,
            steps: vec!["a=2".into()],
            skip: vec!["wins".into()],
        };
        trace_chart(&args).unwrap();
        assert!(std::fs::read(&out).unwrap().starts_with(b"\x89PNG"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
