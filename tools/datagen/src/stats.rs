//! `datagen stats`: what a data set holds.

use std::fmt::Write;

use shakmaty::Position;

use tessera_data::record::Record;

/// Score buckets of the histogram, in centipawns (white's view, absolute).
const BUCKETS: [i32; 8] = [25, 50, 100, 200, 400, 800, 1600, i32::MAX];

#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    pub count: u64,
    /// Results from white's view: black won, draw, white won.
    pub results: [u64; 3],
    pub score_buckets: [u64; BUCKETS.len()],
    /// Positions by number of pieces on the board (index 0..=32).
    pub pieces: Vec<u64>,
    pub white_to_move: u64,
    pub score_sum_abs: f64,
}

impl Default for Stats {
    fn default() -> Self {
        Stats {
            count: 0,
            results: [0; 3],
            score_buckets: [0; BUCKETS.len()],
            pieces: vec![0; 33],
            white_to_move: 0,
            score_sum_abs: 0.0,
        }
    }
}

impl Stats {
    pub fn add(&mut self, r: &Record) {
        self.count += 1;
        self.results[r.result as usize] += 1;
        let abs = (r.score as i32).abs();
        let bucket = BUCKETS.iter().position(|&b| abs < b).unwrap_or(BUCKETS.len() - 1);
        self.score_buckets[bucket] += 1;
        self.pieces[r.pos.board().occupied().count()] += 1;
        self.white_to_move += r.pos.turn().is_white() as u64;
        self.score_sum_abs += abs as f64;
    }

    pub fn table(&self) -> String {
        let n = self.count.max(1) as f64;
        let pct = |x: u64| 100.0 * x as f64 / n;
        let mut s = String::new();
        writeln!(s, "positions: {}", self.count).unwrap();
        writeln!(s, "white to move: {:.1}%", pct(self.white_to_move)).unwrap();
        writeln!(
            s,
            "results (white's view): win {:.1}%, draw {:.1}%, loss {:.1}%",
            pct(self.results[2]),
            pct(self.results[1]),
            pct(self.results[0])
        )
        .unwrap();
        writeln!(s, "mean |score|: {:.1} cp", self.score_sum_abs / n).unwrap();
        writeln!(s, "\n| abs score below (cp) | positions | share |\n|---|---|---|").unwrap();
        for (b, &c) in BUCKETS.iter().zip(&self.score_buckets) {
            let label = if *b == i32::MAX { "∞".to_string() } else { b.to_string() };
            writeln!(s, "| {label} | {c} | {:.1}% |", pct(c)).unwrap();
        }
        writeln!(s, "\n| pieces on board | positions | share |\n|---|---|---|").unwrap();
        for (k, &c) in self.pieces.iter().enumerate().filter(|(_, c)| **c > 0) {
            writeln!(s, "| {k} | {c} | {:.1}% |", pct(c)).unwrap();
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_hand() {
        let mut stats = Stats::default();
        for line in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 | 30 | 0.5",
            "4k3/8/8/8/8/8/8/4K2R b K - 0 1 | 900 | 1.0",
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1 | -2000 | 0.0",
        ] {
            stats.add(&Record::from_text(line).unwrap());
        }
        assert_eq!(stats.count, 3);
        assert_eq!(stats.results, [1, 1, 1]);
        assert_eq!(stats.pieces[32], 1);
        assert_eq!(stats.pieces[3], 2);
        assert_eq!(stats.white_to_move, 2);
        assert_eq!(stats.score_buckets[1], 1); // 30 < 50
        assert_eq!(stats.score_buckets[6], 1); // 900 < 1600
        assert_eq!(stats.score_buckets[7], 1); // 2000
        assert!(stats.table().contains("results (white's view): win 33.3%, draw 33.3%, loss 33.3%"));
    }
}
