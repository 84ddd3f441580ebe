//! Helpers shared by the tests: the library's unit tests, `tests/`, and the
//! tools' tests (one generator, so the same seed means the same games everywhere).

/// xorshift64: deterministic random games for the tests, without a
/// dependency. The same seed gives the same games on every machine.
pub struct XorShift(pub u64);

impl XorShift {
    /// Advances the state and returns it.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in 0..n (n > 0); the slight bias of the modulo does not
    /// matter to a test.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() >> 11) as usize % n
    }
}

/// A test that cannot run here says so through this, instead of returning
/// early with a line nobody reads: the reason goes to stderr and, where
/// `make test` asks for it (`TESSERA_SKIP_LOG`, a file), into the ledger it
/// prints at the end, named by the test. `resource` names what is missing
/// (`shared-data`, `stockfish`, `avx2`, `avx512`, `release-build`); where the
/// environment says that resource is expected (`TESSERA_EXPECT`, a comma list,
/// set by CI for what it installs), the test fails instead of skipping.
///
/// `#[ignore]` is fixed when the test is compiled; whether a CPU feature or
/// a file is here is only known when it runs, so the decision is made here.
pub fn skip(resource: &str, why: &str) {
    let test = std::thread::current().name().unwrap_or("a test").to_string();
    let expected = std::env::var("TESSERA_EXPECT").unwrap_or_default();
    if expected.split(',').any(|r| r.trim() == resource) {
        panic!("{test}: {why}, but TESSERA_EXPECT says {resource} is here");
    }
    eprintln!("skipping {test}: {why}");
    if let Ok(path) = std::env::var("TESSERA_SKIP_LOG") {
        use std::io::Write;
        // Appends are atomic for lines this short, so parallel tests do not mix lines.
        if let Ok(mut log) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
            let _ = writeln!(log, "{test} [{resource}] {why}");
        }
    }
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    /// Run by `a_skip_is_logged_or_fails_where_expected` in a child process
    /// (the environment is the child's own); a no-op in the normal run.
    #[test]
    fn skip_in_a_child() {
        if std::env::var_os("TESSERA_SKIP_SELFTEST").is_some() {
            super::skip("widget", "no widget on this machine");
        }
    }

    fn child(expect: &str, log: &std::path::Path) -> std::process::Output {
        Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "testing::tests::skip_in_a_child", "--nocapture", "--test-threads", "1"])
            .env("TESSERA_SKIP_SELFTEST", "1")
            .env("TESSERA_EXPECT", expect)
            .env("TESSERA_SKIP_LOG", log)
            .output()
            .unwrap()
    }

    #[test]
    fn a_skip_is_logged_or_fails_where_expected() {
        let dir_tmp = tempfile::tempdir().unwrap();
        let dir = dir_tmp.path().to_path_buf();
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("skips.txt");
        let _ = std::fs::remove_file(&log);

        let out = child("stockfish", &log);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text, "testing::tests::skip_in_a_child [widget] no widget on this machine\n");

        let out = child("stockfish,widget", &log);
        assert!(!out.status.success());
        let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        assert!(said.contains("TESSERA_EXPECT says widget is here"), "{said}");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), text, "a failure is not logged as a skip");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
