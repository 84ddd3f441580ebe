//! Every constant of the search and the time manager, named in one place.
//!
//! In a normal build each is a `const fn` the compiler folds away. The `tune`
//! cargo feature turns each into a value that `setoption` can change (a UCI
//! spin option per constant, absent from the release build), so that SPSA can
//! tune them: `tessera spsa-input` prints them in OpenBench's SPSA input
//! format, and `tournaments/spsa.py` tunes them on this machine.

use std::sync::{Arc, Mutex, PoisonError};

/// One tunable constant: its value, the range a tuner may explore, and the
/// perturbation SPSA ends with (OpenBench's `c_end`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: i32,
}

/// SPSA's learning rate at the end of a run (OpenBench's `r_end`), the same
/// for every parameter, as OpenBench's own examples use.
pub const R_END: f64 = 0.002;

macro_rules! params {
    ($($(#[$doc:meta])* $name:ident = $default:literal, $min:literal..=$max:literal, step $step:literal;)*) => {
        /// Every tunable, in declaration order.
        pub const ALL: &[Param] = &[
            $(Param { name: stringify!($name), default: $default, min: $min, max: $max, step: $step },)*
        ];

        $(
            $(#[$doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub const fn $name() -> i32 {
                $default
            }

            $(#[$doc])*
            #[cfg(feature = "tune")]
            #[inline(always)]
            pub fn $name() -> i32 {
                values::$name.load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        #[cfg(feature = "tune")]
        mod values {
            use std::sync::atomic::AtomicI32;
            $(
                #[allow(non_upper_case_globals)]
                pub static $name: AtomicI32 = AtomicI32::new($default);
            )*
        }

        /// Sets the tunable `name` (exact spelling); false if there is none
        /// of that name or this build cannot change it.
        #[cfg(feature = "tune")]
        fn store(name: &str, value: i32) -> bool {
            match name {
                $(stringify!($name) => values::$name.store(value, std::sync::atomic::Ordering::Relaxed),)*
                _ => return false,
            }
            true
        }
    };
}

params! {
    // Late-move reductions: LMR[d][m] = base/100 + ln d · ln m / (divisor/100).
    /// Constant part of the late-move reduction, in hundredths of a ply.
    lmr_base = 75, 0..=200, step 10;
    /// Divisor of the logarithmic part of the reduction, in hundredths.
    lmr_divisor = 225, 100..=400, step 15;
    /// History that buys one ply less reduction.
    lmr_history = 8000, 2000..=16000, step 500;

    // Pruning before the moves are searched.
    /// Reverse futility: deepest node it applies to.
    rfp_depth = 8, 4..=12, step 1;
    /// Reverse futility: margin per ply of depth.
    rfp_margin = 80, 30..=150, step 6;
    /// Razoring: deepest node it applies to.
    razor_depth = 3, 1..=6, step 1;
    /// Razoring: margin below alpha at depth 0.
    razor_base = 250, 100..=500, step 20;
    /// Razoring: margin per ply of depth.
    razor_margin = 200, 50..=400, step 15;
    /// Null move: shallowest node it applies to.
    nmp_depth = 3, 2..=5, step 1;
    /// Null move: base reduction.
    nmp_base = 3, 1..=5, step 1;
    /// Null move: one ply more reduction per this many plies of depth.
    nmp_depth_divisor = 3, 2..=6, step 1;
    /// Null move: one ply more reduction per this much eval above beta (at most 3).
    nmp_eval_divisor = 200, 100..=400, step 15;
    /// Internal iterative reduction: shallowest node it applies to.
    iir_depth = 4, 2..=8, step 1;

    // Pruning of single moves.
    /// Late move pruning: quiets tried before the rest are skipped, (base + d²) / (2 − improving).
    lmp_base = 3, 1..=8, step 1;
    /// Late move pruning: deepest node it applies to.
    lmp_depth = 8, 3..=12, step 1;
    /// Futility pruning: deepest reduced depth it applies to.
    fp_depth = 8, 3..=12, step 1;
    /// Futility pruning: margin at reduced depth 0.
    fp_base = 100, 30..=250, step 8;
    /// Futility pruning: margin per ply of reduced depth.
    fp_margin = 100, 40..=200, step 8;
    /// Futility pruning: quiets with at least this history are never pruned.
    fp_history = 8000, 2000..=16000, step 500;
    /// SEE pruning: deepest node it applies to.
    see_depth = 8, 4..=12, step 1;
    /// SEE pruning of quiets: material a move may lose per ply of reduced depth.
    see_quiet = 60, 20..=120, step 5;
    /// SEE pruning of captures: material a move may lose per ply² of depth.
    see_noisy = 25, 5..=60, step 3;

    // Extensions.
    /// Singular extension: shallowest node it applies to.
    singular_depth = 8, 5..=12, step 1;
    /// Singular extension: margin below the table score, in sixteenths of a cp per ply.
    singular_margin = 32, 8..=64, step 3;
    /// Double extension when the others fail this far below the singular beta.
    double_ext_margin = 25, 5..=60, step 3;

    // Correction history: how much of each table's learnt error is applied,
    // out of 256 (the non-pawn weight counts once per side).
    /// Weight of the pawn-structure correction.
    corr_pawn_weight = 128, 0..=256, step 12;
    /// Weight of each side's non-pawn correction.
    corr_non_pawn_weight = 64, 0..=256, step 8;

    // Iterative deepening.
    /// Aspiration window: first half-width in centipawns.
    asp_delta = 20, 8..=50, step 3;

    // History updates: bonus = min(mul · depth − offset, max); malus alike.
    /// Bonus per ply of depth for the move that cut.
    hist_bonus_mul = 170, 80..=300, step 10;
    /// Bonus offset.
    hist_bonus_offset = 100, 0..=300, step 15;
    /// Largest bonus.
    hist_bonus_max = 1800, 800..=3000, step 100;
    /// Malus per ply of depth for the moves tried before the cut.
    hist_malus_mul = 170, 80..=300, step 10;
    /// Malus offset.
    hist_malus_offset = 100, 0..=300, step 15;
    /// Largest malus.
    hist_malus_max = 1800, 800..=3000, step 100;

    // Time management.
    /// Moves planned for when the GUI gives no `movestogo`.
    tm_moves_to_go = 30, 15..=50, step 2;
    /// Share of the increment planned for each move, in percent.
    tm_increment = 75, 40..=100, step 5;
    /// The hard limit is this many soft limits (no `movestogo`).
    tm_hard_factor = 4, 2..=6, step 1;
    /// Soft-limit factor of a new best move, in percent.
    tm_stability_base = 150, 100..=300, step 10;
    /// Less of it per iteration the best move held (at most 10), in percent.
    tm_stability_step = 8, 0..=25, step 1;
    /// Node-fraction factor: (base − fraction of nodes on the best move) …, in percent.
    tm_nodes_base = 150, 110..=250, step 8;
    /// … times this, in percent.
    tm_nodes_scale = 120, 50..=250, step 8;
    /// Score factor: percent more time per cp the best score fell, in hundredths.
    tm_score_scale = 80, 0..=300, step 10;
    /// Score factor: least, in percent.
    tm_score_min = 80, 40..=100, step 4;
    /// Score factor: most, in percent.
    tm_score_max = 150, 100..=250, step 8;
    /// Iterations before the plan is scaled at all.
    tm_scale_depth = 6, 1..=12, step 1;
}

/// Sets a tunable by its UCI name (any case). `Err` names what is wrong:
/// no such tunable, a value outside its range, or a build without `tune`.
pub fn set(name: &str, value: i64) -> Result<(), String> {
    let param = find(name).ok_or_else(|| format!("unknown option '{name}'"))?;
    if !(param.min as i64..=param.max as i64).contains(&value) {
        return Err(format!("option '{}' value {value} is outside {}..{}", param.name, param.min, param.max));
    }
    #[cfg(feature = "tune")]
    {
        store(param.name, value as i32);
        Ok(())
    }
    #[cfg(not(feature = "tune"))]
    Err(format!("option '{}' can be set only in a build with the `tune` feature", param.name))
}

/// The tunable called `name` (any case).
pub fn find(name: &str) -> Option<&'static Param> {
    ALL.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

/// True where `setoption` can change the tunables (the `tune` build).
pub const TUNABLE: bool = cfg!(feature = "tune");

/// OpenBench's SPSA input, one line a tunable: `name, int, value, min, max, c_end, r_end`.
pub fn spsa_input() -> String {
    ALL.iter()
        .map(|p| format!("{}, int, {}, {}, {}, {}, {}\n", p.name, p.default, p.min, p.max, p.step, R_END))
        .collect()
}

/// Late-move reductions in plies, by depth and move number.
pub type LmrTable = [[i32; 64]; 64];

/// The late-move reduction table of the current values. Built once for
/// each pair of values (only the `tune` build changes them between
/// searches): building it for every search was a fortieth of a 400-node
/// search.
pub fn lmr_table() -> Arc<LmrTable> {
    /// The table last built and the (base, divisor) it was built from.
    type Built = Option<((i32, i32), Arc<LmrTable>)>;
    static BUILT: Mutex<Built> = Mutex::new(None);
    let values = (lmr_base(), lmr_divisor());
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    match &*built {
        Some((made_from, table)) if *made_from == values => Arc::clone(table),
        _ => {
            let table = Arc::new(build_lmr_table(values.0, values.1));
            *built = Some((values, Arc::clone(&table)));
            table
        }
    }
}

fn build_lmr_table(base: i32, divisor: i32) -> LmrTable {
    let base = base as f64 / 100.0;
    let divisor = divisor as f64 / 100.0;
    let ln: [f64; 64] = std::array::from_fn(|i| (i as f64).ln());
    let mut table = [[0; 64]; 64];
    for (depth, row) in table.iter_mut().enumerate().skip(1) {
        for (moves, r) in row.iter_mut().enumerate().skip(1) {
            *r = (base + ln[depth] * ln[moves] / divisor) as i32;
        }
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_is_named_once_and_inside_its_range() {
        for (i, p) in ALL.iter().enumerate() {
            assert!(p.min <= p.default && p.default <= p.max && p.step > 0, "{p:?}");
            assert!(ALL[..i].iter().all(|q| !q.name.eq_ignore_ascii_case(p.name)), "{} twice", p.name);
        }
    }

    #[test]
    fn the_spsa_input_has_one_line_per_tunable_in_openbench_form() {
        let text = spsa_input();
        assert_eq!(text.lines().count(), ALL.len());
        let first = text.lines().next().unwrap();
        let fields: Vec<&str> = first.split(", ").collect();
        assert_eq!(fields.len(), 7, "{first}");
        assert_eq!(fields[0], ALL[0].name);
        assert_eq!(fields[1], "int");
        assert_eq!(fields[2].parse::<i32>().unwrap(), ALL[0].default);
        assert_eq!(fields[6].parse::<f64>().unwrap(), R_END);
    }

    #[test]
    fn the_reduction_table_grows_with_depth_and_move_number() {
        let t = lmr_table();
        assert_eq!(t[1][1], 0);
        assert!(t[20][30] > t[5][30] && t[20][30] > t[20][5]);
    }

    #[test]
    fn the_reduction_table_is_built_once_for_the_same_values() {
        // No test changes the two values it is built from.
        let (first, again) = (lmr_table(), lmr_table());
        assert!(Arc::ptr_eq(&first, &again));
        assert_eq!(*first, build_lmr_table(lmr_base(), lmr_divisor()));
    }

    #[test]
    fn setting_checks_the_name_and_the_range() {
        assert!(set("no_such_thing", 1).unwrap_err().contains("unknown"));
        assert!(set("RFP_MARGIN", 10_000).unwrap_err().contains("outside"));
        if TUNABLE {
            set("rfp_margin", 81).unwrap();
            assert_eq!(rfp_margin(), 81);
            set("rfp_margin", 80).unwrap();
        } else {
            assert!(set("rfp_margin", 81).unwrap_err().contains("tune"));
            assert_eq!(rfp_margin(), 80);
        }
    }
}
