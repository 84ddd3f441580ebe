//! The exchange-format crates (sfbinpack, viriformat) assume well-formed
//! input: some damage makes them panic instead of returning an error. Their
//! calls run inside [`quietly`], which turns such a panic into an error, with
//! the panic's message kept and nothing printed: a damaged file is a user's
//! mistake, not a bug to report.

use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;

thread_local! {
    static GUARDED: Cell<bool> = const { Cell::new(false) };
    static MESSAGE: Cell<Option<String>> = const { Cell::new(None) };
}

/// Wraps the process's panic hook once: inside [`quietly`] a panic's message
/// is kept for the error instead of printed; elsewhere the hook is unchanged.
fn install_hook() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) {
                let text = info
                    .payload()
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| info.payload().downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "malformed data".into());
                MESSAGE.with(|m| m.set(Some(text)));
            } else {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic inside it becomes `Err` with the panic's message.
pub fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    install_hook();
    let was = GUARDED.with(|g| g.replace(true));
    let outcome = catch_unwind(AssertUnwindSafe(f));
    GUARDED.with(|g| g.set(was));
    outcome.map_err(|_| MESSAGE.with(Cell::take).unwrap_or_else(|| "malformed data".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message() {
        assert_eq!(quietly(|| 3), Ok(3));
        let err = quietly(|| -> u8 { panic!("chunk {} is cut short", 7) }).unwrap_err();
        assert_eq!(err, "chunk 7 is cut short");
        assert_eq!(quietly(|| 4), Ok(4), "the guard is left as it was");
    }
}
