//! Loss curves: a CSV always, a PNG when a font for its labels is found.

use std::path::Path;

use plotters::prelude::*;

use crate::train::checkpoint::EpochRecord;

/// One row per epoch; with several validation sets, one more column each
/// (`validation_loss` is their mean).
pub fn write_csv(history: &[EpochRecord], set_names: &[&str], path: &Path) -> std::io::Result<()> {
    let mut text = String::from("epoch,train_loss,validation_loss,learning_rate,samples_per_second");
    let each = set_names.len() > 1;
    if each {
        set_names.iter().for_each(|n| text += &format!(",validation_{}", n.replace(',', "_")));
    }
    text += "\n";
    for r in history {
        text += &format!(
            "{},{:.8},{:.8},{:.6e},{:.0}",
            r.epoch, r.train_loss, r.validation_loss, r.learning_rate, r.samples_per_second
        );
        if each {
            r.per_set.iter().for_each(|l| text += &format!(",{l:.8}"));
        }
        text += "\n";
    }
    std::fs::write(path, text)
}

/// Font files tried for the plot's labels; `TESSERA_PLOT_FONT` comes first.
const FONTS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/Library/Fonts/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

pub fn register_font() -> Result<(), String> {
    static REGISTERED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let candidates = std::env::var("TESSERA_PLOT_FONT").into_iter().chain(FONTS.iter().map(|s| s.to_string()));
            for path in candidates {
                if let Ok(bytes) = std::fs::read(&path) {
                    // plotters keeps fonts for the life of the program.
                    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
                    if plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok() {
                        return Ok(());
                    }
                }
            }
            Err("no TrueType font found for the plot's labels (set TESSERA_PLOT_FONT to a .ttf file, \
                 or install fonts-dejavu-core)"
                .into())
        })
        .clone()
}

/// Training and validation loss per epoch.
pub fn write_png(history: &[EpochRecord], title: &str, path: &Path) -> Result<(), String> {
    register_font()?;
    let plot = || -> Result<(), Box<dyn std::error::Error>> {
        let root = BitMapBackend::new(path, (900, 560)).into_drawing_area();
        root.fill(&WHITE)?;
        let losses = history.iter().flat_map(|r| [r.train_loss, r.validation_loss]);
        let (low, high) = losses.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let pad = ((high - low) * 0.05).max(1e-9);
        let last = history.last().map_or(1.0, |r| r.epoch).max(1.0);
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..last, (low - pad)..(high + pad))?;
        chart.configure_mesh().x_desc("epoch").y_desc("loss").draw()?;
        let series = [("training", BLUE, true), ("validation", RED, false)];
        for (name, colour, train) in series {
            let points = history.iter().map(|r| (r.epoch, if train { r.train_loss } else { r.validation_loss }));
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(2)))?
                .label(name)
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
        root.present()?;
        Ok(())
    };
    plot().map_err(|e| format!("cannot draw {}: {e}", path.display()))
}
