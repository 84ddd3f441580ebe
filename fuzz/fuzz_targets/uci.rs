//! UCI input: every line goes through the command parser, and the session
//! through the engine's line handler. Searches are kept short (`go` lines
//! run as `go nodes 2000`, the parsed form is still checked; `perft` as
//! `perft 2`) and the `Hash` and `Threads` options and `bench` are left alone:
//! a fuzzer asking for 64 GB of table, 256 threads or a minute's benchmark
//! per input tests the machine, not the engine.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tessera::uci::Engine;
use tessera::uci::command::{Command, parse};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut engine = Engine::default();
    for line in text.lines().take(64) {
        let lower = line.to_ascii_lowercase();
        if lower.contains("hash") || lower.contains("threads") || lower.contains("bench") {
            continue;
        }
        match parse(line) {
            Ok(Some(Command::Go(_))) => {
                engine.handle_line("go nodes 2000");
            }
            Ok(Some(Command::Perft { .. })) => {
                engine.handle_line("perft 2");
            }
            Ok(Some(Command::Quit)) => break,
            _ => {
                engine.handle_line(line);
            }
        }
    }
    engine.handle_line("stop");
    engine.handle_line("quit");
});
