//! The samples a run trains and validates on: its files read and filtered,
//! a validation split where no held-out files are given, mirrored copies,
//! and the teacher's scores blended in.

use std::collections::HashSet;
use std::time::Instant;

use crate::Args;
use crate::data::samples::{self, Samples};
use crate::data::{augment, sources, teacher};
use crate::train::config::Config;

type Error = Box<dyn std::error::Error>;

pub struct TrainingSet {
    pub train: Samples,
    /// One named set per validation file (or `split`).
    pub validation: Vec<(String, Samples)>,
}

impl TrainingSet {
    /// Validation samples over all sets.
    pub fn validation_total(&self) -> usize {
        self.validation.iter().map(|(_, v)| v.len()).sum()
    }
}

/// Reads the run's files and prepares its samples, reporting each step.
pub fn load(args: &Args, config: &Config) -> Result<TrainingSet, Error> {
    let started = Instant::now();
    let loaded = sources::load(&args.data, &args.validation, &config.settings)?;
    for report in &loaded.train_files {
        println!("training {report}");
    }
    for report in &loaded.validation_files {
        println!("validation {report}");
    }
    if let Some(first) = &loaded.first_rejection {
        println!("first rejected line: {first}");
    }
    let teacher_weights = teacher::Weights::new(&loaded.teacher_spans, args.teacher_weight);
    let (train, validation, teacher_weights) = if loaded.validation.is_empty() {
        let held = samples::validation_mask(&loaded.train, args.validation_permille);
        let (train, validation) = (loaded.train.select(&held, false), loaded.train.select(&held, true));
        (train, vec![("split".to_string(), validation)], teacher_weights.without(&held))
    } else {
        (loaded.train, loaded.validation, teacher_weights)
    };
    let (mut train, teacher_weights) = if args.mirror {
        let held: HashSet<u64> =
            validation.iter().flat_map(|(_, v)| (0..v.len()).map(|i| samples::key(&v.key_position(i)))).collect();
        let mirrored = augment::add_mirrors(train, &held);
        let report = mirrored.report;
        println!(
            "mirrors: {} added, {} already present or held out, {} samples with a castling right",
            report.added, report.present, report.castling
        );
        (mirrored.samples, teacher_weights.with_mirrors(mirrored.origins))
    } else {
        (train, teacher_weights)
    };
    if let Some((net, _)) = &config.teacher {
        let clock = Instant::now();
        let report = teacher::relabel(&mut train, net, &teacher_weights);
        let share = match teacher_weights.uniform() {
            Some(w) => format!("{w} × its evaluation + {} × the label", 1.0 - w),
            None => format!("its evaluation blended by each file's weight (default {})", args.teacher_weight),
        };
        println!(
            "teacher {}: {} training scores now {share}; mean |teacher − label| {:.1} cp ({:.1} s)",
            net.summary(),
            report.relabelled,
            report.mean_difference,
            clock.elapsed().as_secs_f64()
        );
    }
    // The weights hold an origin for each mirror (about 90 MB at 23 M
    // mirrors): freed here, before the feature cache sizes itself to the
    // memory left.
    drop(teacher_weights);
    let set = TrainingSet { train, validation };
    let validation_total = set.validation_total();
    if set.train.is_empty() || set.validation.iter().any(|(_, v)| v.is_empty()) {
        return Err(format!(
            "{} training and {validation_total} validation samples: both must be non-empty (change --validation-permille)",
            set.train.len(),
        )
        .into());
    }
    println!(
        "{} training samples, {validation_total} validation samples in {} set(s) ({:.1} s)",
        set.train.len(),
        set.validation.len(),
        started.elapsed().as_secs_f64()
    );
    Ok(set)
}
