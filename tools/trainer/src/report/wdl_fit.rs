//! `tessera-trainer wdl-fit`: fits the engine's WDL model
//! (`tessera::search::wdl::WdlModel`: a(m) and b(m) cubic in the material)
//! to the scores and results of self-play records by maximum likelihood,
//! and draws the fitted curves against the observed rates.

use std::path::PathBuf;

use clap::Args as ClapArgs;
use plotters::prelude::*;
use rayon::prelude::*;
use shakmaty::Position;
use tessera::search::wdl::{WdlModel, material};
use tessera_data::formats::{self, Format};

use crate::report::plot;

type Error = Box<dyn std::error::Error>;

#[derive(ClapArgs, Debug)]
pub struct WdlFitArgs {
    /// Record files (datagen `.bin` or text) whose scores are the engine's
    /// own search scores, with their games' results.
    #[arg(required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Folder for `wdl-fit.md` (the parameters) and `wdl-fit.png`.
    #[arg(long)]
    pub out: PathBuf,
    /// Positions scored beyond this (cp) are left out (their outcome is settled).
    #[arg(long, default_value_t = 2000)]
    pub max_score: i32,
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 3000)]
    pub steps: usize,
}

/// One position: score (side to move), outcome for the side to move (0
/// loss, 1 draw, 2 win), material.
#[derive(Clone, Copy, Debug)]
pub struct Point {
    pub score: f64,
    pub outcome: u8,
    pub material: i32,
}

/// Coefficients are fitted in units of 100 cp, so that one learning rate
/// suits them all.
const UNIT: f64 = 100.0;

fn model(theta: &[f64; 8]) -> WdlModel {
    let scaled = |i: usize| std::array::from_fn(|k| theta[i + k] * UNIT);
    WdlModel { a: scaled(0), b: scaled(4) }
}

/// The mean negative log-likelihood of the outcomes under `m`.
pub fn mean_nll(m: &WdlModel, points: &[Point]) -> f64 {
    points
        .par_iter()
        .map(|p| {
            let (w, d, l) = m.chances(p.score, p.material);
            -[l, d, w][p.outcome as usize].max(1e-9).ln()
        })
        .sum::<f64>()
        / points.len() as f64
}

/// Mean NLL and its gradient with respect to the eight coefficients.
fn nll_and_gradient(theta: &[f64; 8], points: &[Point]) -> (f64, [f64; 8]) {
    let m = model(theta);
    let (nll, grad) = points
        .par_iter()
        .map(|p| {
            let (a, b) = m.parameters(p.material);
            let x = p.score;
            let (u, v) = ((x - a) / b, (-x - a) / b);
            let (pw, pl) = (1.0 / (1.0 + (-u).exp()), 1.0 / (1.0 + (-v).exp()));
            let pd = (1.0 - pw - pl).max(1e-9);
            // d p / d a and d p / d b of the win and loss chances.
            let (dw_da, dw_db) = (-pw * (1.0 - pw) / b, -pw * (1.0 - pw) * u / b);
            let (dl_da, dl_db) = (-pl * (1.0 - pl) / b, -pl * (1.0 - pl) * v / b);
            let (nll, g_a, g_b) = match p.outcome {
                2 => (-pw.max(1e-9).ln(), -dw_da / pw.max(1e-9), -dw_db / pw.max(1e-9)),
                0 => (-pl.max(1e-9).ln(), -dl_da / pl.max(1e-9), -dl_db / pl.max(1e-9)),
                _ => (-pd.ln(), (dw_da + dl_da) / pd, (dw_db + dl_db) / pd),
            };
            let mm = p.material.clamp(17, 78) as f64 / 58.0;
            let powers = [1.0, mm, mm * mm, mm * mm * mm];
            let mut g = [0.0; 8];
            for k in 0..4 {
                g[k] = g_a * UNIT * powers[k];
                // b is kept at 1 cp or more: no gradient below it.
                g[4 + k] = if b > 1.0 { g_b * UNIT * powers[k] } else { 0.0 };
            }
            (nll, g)
        })
        .reduce(|| (0.0, [0.0; 8]), |(n1, g1), (n2, g2)| (n1 + n2, std::array::from_fn(|k| g1[k] + g2[k])));
    let count = points.len() as f64;
    (nll / count, grad.map(|g| g / count))
}

/// The maximum-likelihood model, by full-batch Adam from a flat start.
pub fn fit(points: &[Point], steps: usize) -> WdlModel {
    let mut theta = [1.5, 0.0, 0.0, 0.0, 0.8, 0.0, 0.0, 0.0];
    let (mut m1, mut m2) = ([0.0; 8], [0.0; 8]);
    let (beta1, beta2, lr) = (0.9f64, 0.999f64, 0.01);
    for t in 1..=steps {
        let (_, g) = nll_and_gradient(&theta, points);
        for k in 0..8 {
            m1[k] = beta1 * m1[k] + (1.0 - beta1) * g[k];
            m2[k] = beta2 * m2[k] + (1.0 - beta2) * g[k] * g[k];
            let (h1, h2) = (m1[k] / (1.0 - beta1.powi(t as i32)), m2[k] / (1.0 - beta2.powi(t as i32)));
            theta[k] -= lr * h1 / (h2.sqrt() + 1e-12);
        }
    }
    model(&theta)
}

/// The points of `args.data` within the score bound.
fn load(args: &WdlFitArgs) -> Result<Vec<Point>, Error> {
    let mut points = Vec::new();
    for path in &args.data {
        formats::read(path, Format::of_path(path), &mut |entry| {
            let r = entry.record;
            let white = r.pos.turn() == shakmaty::Color::White;
            let score = if white { r.score as f64 } else { -(r.score as f64) };
            let outcome = if white { r.result } else { 2 - r.result };
            if score.abs() <= args.max_score as f64 {
                points.push(Point { score, outcome, material: material(&r.pos) });
            }
        })?;
    }
    if points.len() < 100 {
        return Err(format!("only {} positions within ±{} cp: too few to fit", points.len(), args.max_score).into());
    }
    Ok(points)
}

/// Material ranges drawn separately: endgames, middlegames, openings.
const BUCKETS: [(i32, i32, &str); 3] =
    [(0, 30, "material ≤ 30"), (31, 60, "material 31–60"), (61, 78, "material > 60")];

pub fn run(args: &WdlFitArgs) -> Result<(), Error> {
    let points = load(args)?;
    let old = WdlModel { a: [200.0, 0.0, 0.0, 0.0], b: [60.0, 0.0, 0.0, 0.0] };
    let fitted = fit(&points, args.steps);
    let (before, after) = (mean_nll(&old, &points), mean_nll(&fitted, &points));
    std::fs::create_dir_all(&args.out)?;
    let outcomes = |o: u8| points.iter().filter(|p| p.outcome == o).count() as f64 / points.len() as f64;
    let mut text = format!(
        "# WDL model fit\n\n{} positions within ±{} cp from {}; outcomes for the side to move: win {:.1}%, draw {:.1}%, loss {:.1}%.\n\n",
        points.len(),
        args.max_score,
        args.data.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "),
        100.0 * outcomes(2),
        100.0 * outcomes(1),
        100.0 * outcomes(0),
    );
    text += &format!(
        "| model | a(m) coefficients (cp) | b(m) coefficients (cp) | mean NLL |\n|---|---|---|---|\n\
         | fixed logistic (200, 60), before | 200, 0, 0, 0 | 60, 0, 0, 0 | {before:.5} |\n\
         | fitted | {} | {} | {after:.5} |\n\n",
        fitted.a.map(|c| format!("{c:.3}")).join(", "),
        fitted.b.map(|c| format!("{c:.3}")).join(", "),
    );
    text += "| material | a (cp) | b (cp) | win chance at +100 cp | draw at 0 |\n|---|---|---|---|---|\n";
    for material in [10, 20, 30, 40, 50, 60, 70, 78] {
        let (a, b) = fitted.parameters(material);
        let (w, ..) = fitted.chances(100.0, material);
        let (_, d, _) = fitted.chances(0.0, material);
        text += &format!("| {material} | {a:.1} | {b:.1} | {:.1}% | {:.1}% |\n", 100.0 * w, 100.0 * d);
    }
    text += &format!(
        "\nIn the engine (`src/search/wdl.rs`):\n\n```rust\npub const FITTED: WdlModel = WdlModel {{ a: [{}], b: [{}] }};\n```\n",
        fitted.a.map(|c| format!("{c:.3}")).join(", "),
        fitted.b.map(|c| format!("{c:.3}")).join(", "),
    );
    std::fs::write(args.out.join("wdl-fit.md"), &text)?;
    print!("{text}");
    if let Err(e) = draw(&points, &fitted, &args.out.join("wdl-fit.png")) {
        eprintln!("warning: no chart: {e}");
    }
    Ok(())
}

/// Observed win and draw rates per 25-cp bin (bins of 30+ positions) and
/// the model at each bucket's mean material.
fn draw(points: &[Point], m: &WdlModel, path: &std::path::Path) -> Result<(), Error> {
    plot::register_font()?;
    let root = BitMapBackend::new(path, (1000, 640)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("win and draw chance by score: observed (points) and fitted (lines)", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(-600.0..600.0, 0.0..1.0)?;
    chart.configure_mesh().x_desc("score, side to move (cp)").y_desc("chance").draw()?;
    let colours = [RED, BLUE, RGBColor(0, 140, 0)];
    for ((low, high, name), colour) in BUCKETS.iter().zip(colours) {
        let inside: Vec<&Point> = points.iter().filter(|p| (*low..=*high).contains(&p.material)).collect();
        if inside.is_empty() {
            continue;
        }
        let mean = (inside.iter().map(|p| p.material as f64).sum::<f64>() / inside.len() as f64).round() as i32;
        let mut bins = std::collections::BTreeMap::<i32, [usize; 3]>::new();
        for p in &inside {
            if p.score.abs() < 600.0 {
                bins.entry((p.score / 25.0).floor() as i32).or_default()[p.outcome as usize] += 1;
            }
        }
        let observed: Vec<(f64, f64, f64)> = bins
            .iter()
            .filter(|(_, c)| c.iter().sum::<usize>() >= 30)
            .map(|(bin, c)| {
                let n = c.iter().sum::<usize>() as f64;
                (*bin as f64 * 25.0 + 12.5, c[2] as f64 / n, c[1] as f64 / n)
            })
            .collect();
        chart.draw_series(observed.iter().map(|&(x, w, _)| Circle::new((x, w), 3, colour.filled())))?;
        chart.draw_series(observed.iter().map(|&(x, _, d)| TriangleMarker::new((x, d), 4, colour)))?;
        let curve = |draw_line: bool| {
            (-600..=600).step_by(10).map(move |x| {
                let (w, d, _) = m.chances(x as f64, mean);
                (x as f64, if draw_line { d } else { w })
            })
        };
        chart
            .draw_series(LineSeries::new(curve(false), colour.stroke_width(2)))?
            .label(format!("{name} (mean {mean}): win ●, draw ▲"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        chart.draw_series(LineSeries::new(curve(true), colour.stroke_width(1)))?;
    }
    chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use tessera::rng::Rng;

    /// Outcomes drawn from a known model are fitted back to it.
    #[test]
    fn a_known_model_is_recovered() {
        let truth = WdlModel { a: [120.0, 80.0, 0.0, 0.0], b: [70.0, 20.0, 0.0, 0.0] };
        let mut rng = Rng::new(3);
        let uniform = |rng: &mut Rng| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        let points: Vec<Point> = (0..40_000)
            .map(|_| {
                let score = uniform(&mut rng) * 1200.0 - 600.0;
                let material = 17 + (uniform(&mut rng) * 61.0) as i32;
                let (w, d, _) = truth.chances(score, material);
                let r = uniform(&mut rng);
                let outcome = if r < w {
                    2
                } else if r < w + d {
                    1
                } else {
                    0
                };
                Point { score, outcome, material }
            })
            .collect();
        let fitted = fit(&points, 3000);
        for material in [20, 45, 78] {
            let (a, b) = fitted.parameters(material);
            let (ta, tb) = truth.parameters(material);
            assert!(
                (a - ta).abs() < 15.0 && (b - tb).abs() < 12.0,
                "m {material}: ({a:.1}, {b:.1}) vs ({ta:.1}, {tb:.1})"
            );
        }
        assert!(mean_nll(&fitted, &points) <= mean_nll(&truth, &points) + 1e-3);
    }
}
