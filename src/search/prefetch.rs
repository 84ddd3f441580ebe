//! Starting a cache line's load before it is read: the search's tables are
//! larger than the caches and read at random, so it asks for an entry as
//! soon as it knows which one it will read.

/// Starts loading the cache line holding `value` (a hint only: nothing is
/// read, and where the architecture has no such hint nothing happens).
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch only hints the cache; the address is a live value.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(value as *const T as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}
