//! `datagen agree`: how close the labels of one or more data sets come to
//! a reference labelling of the same positions (say, depth 7 against depth
//! 12). A cheap screen for labelling recipes: two recipes that label the
//! same games can be ranked on a few thousand positions, before any net is
//! trained on them.
//!
//! Scores are compared as win probabilities, `1 / (1 + exp(-cp / scale))`,
//! the quantity the trainer fits, so that a 200 cp disagreement at +1500
//! counts for little and one at 0 for a lot.

use std::collections::HashMap;
use std::fmt::Write;

use tessera_data::record::Record;

/// The labels of one data set, by position (the first label of a position
/// that occurs twice).
#[derive(Default, Debug)]
pub struct Labels {
    by_position: HashMap<u64, i16>,
    pub records: u64,
}

impl Labels {
    pub fn add(&mut self, record: &Record) {
        self.records += 1;
        let key = tessera::board::zobrist::key_of(&record.pos);
        self.by_position.entry(key).or_insert(record.score);
    }

    pub fn positions(&self) -> usize {
        self.by_position.len()
    }
}

/// Mean and standard error of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub mean: f64,
    pub stderr: f64,
}

impl Estimate {
    fn of(xs: &[f64]) -> Estimate {
        let n = xs.len() as f64;
        if xs.is_empty() {
            return Estimate { mean: f64::NAN, stderr: f64::NAN };
        }
        let mean = xs.iter().sum::<f64>() / n;
        let var = if xs.len() > 1 { xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
        Estimate { mean, stderr: (var / n).sqrt() }
    }
}

/// One candidate's agreement with the reference, on the positions every
/// candidate and the reference share.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// Mean squared difference of win probabilities.
    pub squared: Estimate,
    /// Mean absolute difference in centipawns.
    pub abs_cp: f64,
    /// Paired difference of the squared error against the first candidate
    /// (negative: closer to the reference than the first); `None` for the first.
    pub against_first: Option<Estimate>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    pub shared: usize,
    pub rows: Vec<Row>,
}

fn win_probability(cp: i16, scale: f64) -> f64 {
    1.0 / (1.0 + (-(cp as f64) / scale).exp())
}

/// Compares each candidate with the reference on the positions all of them
/// hold. `scale` is the centipawn scale of the win probability (> 0).
pub fn measure(reference: &Labels, candidates: &[Labels], scale: f64) -> Agreement {
    let mut shared: Vec<(u64, i16)> = reference
        .by_position
        .iter()
        .filter(|(key, _)| candidates.iter().all(|c| c.by_position.contains_key(key)))
        .map(|(&key, &score)| (key, score))
        .collect();
    // A fixed order, so that the sums (and the printed digits) do not depend
    // on the hash map's.
    shared.sort_unstable();
    // Each candidate's score beside the reference's, position by position.
    let pairs: Vec<Vec<(i16, i16)>> =
        candidates.iter().map(|c| shared.iter().map(|(key, r)| (c.by_position[key], *r)).collect()).collect();
    let errors: Vec<Vec<f64>> = pairs
        .iter()
        .map(|p| p.iter().map(|&(c, r)| (win_probability(c, scale) - win_probability(r, scale)).powi(2)).collect())
        .collect();
    let rows = pairs
        .iter()
        .zip(&errors)
        .enumerate()
        .map(|(i, (p, e))| Row {
            squared: Estimate::of(e),
            abs_cp: p.iter().map(|&(c, r)| (c as f64 - r as f64).abs()).sum::<f64>() / p.len().max(1) as f64,
            against_first: (i > 0).then(|| {
                let paired: Vec<f64> = e.iter().zip(&errors[0]).map(|(a, b)| a - b).collect();
                Estimate::of(&paired)
            }),
        })
        .collect();
    Agreement { shared: shared.len(), rows }
}

impl Agreement {
    /// A markdown table, one row per candidate, in the order given.
    pub fn table(&self, names: &[String]) -> String {
        let mut s = String::new();
        writeln!(s, "positions held by the reference and every candidate: {}\n", self.shared).unwrap();
        writeln!(
            s,
            "| labels | mean squared difference (win probability) | mean abs. difference (cp) | minus the first (paired) |"
        )
        .unwrap();
        writeln!(s, "|---|---|---|---|").unwrap();
        for (name, row) in names.iter().zip(&self.rows) {
            let paired = row.against_first.map_or("—".to_string(), |d| format!("{:+.5} ± {:.5}", d.mean, d.stderr));
            writeln!(
                s,
                "| {name} | {:.5} ± {:.5} | {:.1} | {paired} |",
                row.squared.mean, row.squared.stderr, row.abs_cp
            )
            .unwrap();
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(lines: &[&str]) -> Labels {
        let mut l = Labels::default();
        for line in lines {
            l.add(&Record::from_text(line).unwrap());
        }
        l
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    const ROOK: &str = "4k3/8/8/8/8/8/8/4K2R w K - 0 1";
    const ROOK_BLACK: &str = "4k3/8/8/8/8/8/8/4K2R b K - 0 1";

    #[test]
    fn measures_only_shared_positions_by_hand() {
        let reference = labels(&[&format!("{START} | 0 | 0.5"), &format!("{ROOK} | 800 | 1.0")]);
        // The first candidate agrees exactly on both; the second is 400 cp off
        // at the start and also holds a position the reference lacks.
        let exact = labels(&[&format!("{START} | 0 | 0.5"), &format!("{ROOK} | 800 | 1.0")]);
        let off = labels(&[
            &format!("{START} | 400 | 0.5"),
            &format!("{ROOK} | 800 | 1.0"),
            &format!("{ROOK_BLACK} | 900 | 1.0"),
        ]);
        let a = measure(&reference, &[exact, off], 400.0);
        assert_eq!(a.shared, 2);
        assert_eq!(a.rows[0].squared.mean, 0.0);
        assert_eq!(a.rows[0].against_first, None);
        // sigmoid(1) - sigmoid(0) = 0.231059; squared and averaged over 2.
        let expected = (1.0 / (1.0 + (-1.0f64).exp()) - 0.5).powi(2) / 2.0;
        assert!((a.rows[1].squared.mean - expected).abs() < 1e-12);
        assert!((a.rows[1].abs_cp - 200.0).abs() < 1e-12);
        let paired = a.rows[1].against_first.unwrap();
        assert!((paired.mean - expected).abs() < 1e-12);
        let table = a.table(&["exact".into(), "off".into()]);
        assert!(table.contains("| off | 0.02669 ±"), "{table}");
    }

    #[test]
    fn the_side_to_move_tells_positions_apart_and_repeats_keep_the_first_label() {
        let l = labels(&[
            &format!("{ROOK} | 800 | 1.0"),
            &format!("{ROOK_BLACK} | 900 | 1.0"),
            &format!("{ROOK} | 5 | 1.0"),
        ]);
        assert_eq!(l.records, 3);
        assert_eq!(l.positions(), 2);
        let reference = labels(&[&format!("{ROOK} | 800 | 1.0")]);
        assert_eq!(measure(&reference, &[l], 400.0).rows[0].squared.mean, 0.0);
    }

    #[test]
    fn nothing_shared_gives_no_numbers_rather_than_a_panic() {
        let reference = labels(&[&format!("{START} | 0 | 0.5")]);
        let other = labels(&[&format!("{ROOK} | 800 | 1.0")]);
        let a = measure(&reference, &[other], 400.0);
        assert_eq!(a.shared, 0);
        assert!(a.rows[0].squared.mean.is_nan());
    }
}
