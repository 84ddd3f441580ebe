//! The process's allocator: the system's, with every allocation of 4 KB or
//! more aligned to a 64-byte cache line.
//!
//! glibc hands out large blocks 16 bytes past a page boundary, so without
//! this every 256-byte row of the feature transformer (and of its gradient,
//! the accumulators and the hidden layer's weights) straddled five cache
//! lines instead of four, and every other 32-byte load of the AVX2 kernels
//! was split across two lines. Aligning the few large buffers here keeps
//! them plain `Vec<f32>`s everywhere else.

use std::alloc::{GlobalAlloc, Layout, System};

pub struct CacheLineAligned;

/// Blocks from this size up get a cache line's alignment; smaller ones
/// (strings, small vectors) keep the system's, and its speed.
const LARGE: usize = 4096;
const LINE: usize = 64;

fn adjusted(layout: Layout) -> Layout {
    if layout.size() >= LARGE && layout.align() < LINE {
        // A power of two no smaller than the old alignment, with a size
        // that did not overflow before: stays valid.
        Layout::from_size_align(layout.size(), LINE).unwrap_or(layout)
    } else {
        layout
    }
}

// SAFETY: every call is passed to the system allocator with the layout
// `adjusted` makes of the caller's; `adjusted` depends only on the layout,
// so a block is freed with the layout it was allocated with, and its
// alignment is never below the one asked for.
unsafe impl GlobalAlloc for CacheLineAligned {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's promises (non-zero size) hold for the adjusted layout.
        unsafe { System.alloc(adjusted(layout)) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as in `alloc`.
        unsafe { System.alloc_zeroed(adjusted(layout)) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` with this layout, so from the
        // system allocator with the adjusted one.
        unsafe { System.dealloc(ptr, adjusted(layout)) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let Ok(new) = Layout::from_size_align(new_size, layout.align()) else { return std::ptr::null_mut() };
        let (old_adjusted, new_adjusted) = (adjusted(layout), adjusted(new));
        if old_adjusted.align() == new_adjusted.align() {
            // SAFETY: `ptr` was allocated with `old_adjusted`; the block
            // returned fits `new_adjusted` (same alignment, the new size).
            return unsafe { System.realloc(ptr, old_adjusted, new_size) };
        }
        // Crossing the size bound changes the alignment: a new block, the
        // contents copied, the old one freed.
        // SAFETY: `new` has a non-zero size (the caller's promise); the copy
        // stays inside both blocks; `ptr` is freed with its own layout.
        unsafe {
            let fresh = self.alloc(new);
            if !fresh.is_null() {
                std::ptr::copy_nonoverlapping(ptr, fresh, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            fresh
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn large_vectors_start_on_a_cache_line() {
        for n in [1024usize, 5000, 1 << 20, 3_000_001] {
            let v = vec![0.0f32; n];
            assert_eq!(v.as_ptr() as usize % super::LINE, 0, "{n} floats");
            let mut w: Vec<f32> = Vec::with_capacity(7);
            w.extend(std::iter::repeat_n(1.0, n));
            assert_eq!(w.as_ptr() as usize % super::LINE, 0, "{n} floats grown from 7");
            assert!(w.iter().all(|&x| x == 1.0));
        }
    }
}
