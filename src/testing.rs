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
}
