//! Ctrl-C as a request to finish cleanly: the first one lets the work in
//! hand finish and be saved, so a rerun goes on from there; a second one
//! quits at once (still safe: the progress file only ever names saved work).

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler; call once, from the binary.
pub fn install() -> Result<(), String> {
    ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            eprintln!("\nsecond interrupt: quitting now");
            std::process::exit(130);
        }
        eprintln!("\ninterrupt: finishing the work in hand (Ctrl-C again to quit at once)");
    })
    .map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))
}

/// Whether a stop was asked for.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
