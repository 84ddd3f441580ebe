//! Helpers shared by the library's unit tests.

/// xorshift64: deterministic random games for the tests, without a
/// dependency. The same seed gives the same games on every machine.
pub struct XorShift(pub u64);

impl XorShift {
    /// Advances the state and returns it.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
