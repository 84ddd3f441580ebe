//! The CPU level the binary was compiled for, and the start-up check that a
//! binary built for more than its CPU has (`-C target-cpu=x86-64-v3` lets
//! the compiler use AVX2 anywhere, not only in the kernels that test for
//! it): one line naming the level and which build to take instead, rather
//! than an illegal instruction mid-game.
//!
//! The check runs first in `main`. Compiled for v3, even a 16-byte copy is a
//! VEX (AVX) instruction, so the check is integer code only: `cpuid` and
//! `xgetbv` read into integers, compared with a mask fixed at compile time,
//! and on failure a static message written by the system's own `write` (the C
//! library's, or Windows'), never through formatting code.

/// `x86-64` (the baseline: the SIMD kernels are chosen at run time),
/// `x86-64-v3` (AVX2, BMI2, FMA… everywhere) or `x86-64-v4` (AVX-512 too).
pub const LEVEL: &str = env!("TESSERA_CPU_LEVEL");

/// The CPU features this build's code may use without testing for them,
/// comma-separated, lower case (rustc's names).
pub const REQUIRED: &str = env!("TESSERA_CPU_NEEDS");

/// The features the check knows, with their bit in a mask.
const KNOWN: [&str; 13] = [
    "avx", "avx2", "bmi1", "bmi2", "fma", "lzcnt", "movbe", "popcnt", "avx512f", "avx512bw", "avx512cd", "avx512dq",
    "avx512vl",
];

/// The mask of [`REQUIRED`], worked out by the compiler.
const REQUIRED_MASK: u32 = mask_of(REQUIRED);

const fn mask_of(list: &str) -> u32 {
    let bytes = list.as_bytes();
    let mut mask = 0;
    let mut start = 0;
    while start < bytes.len() {
        let mut end = start;
        while end < bytes.len() && bytes[end] != b',' {
            end += 1;
        }
        let mut k = 0;
        let mut found = false;
        while k < KNOWN.len() {
            let name = KNOWN[k].as_bytes();
            if name.len() == end - start {
                let mut i = 0;
                while i < name.len() && name[i] == bytes[start + i] {
                    i += 1;
                }
                if i == name.len() {
                    mask |= 1 << k;
                    found = true;
                }
            }
            k += 1;
        }
        // A feature build.rs requires and this list does not know would go
        // unchecked: refuse to compile instead.
        assert!(found, "a required CPU feature the start-up check does not know");
        start = end + 1;
    }
    mask
}

/// The known features this CPU (and its operating system, for the AVX
/// register state) offers, as a mask of [`KNOWN`].
#[cfg(target_arch = "x86_64")]
#[inline(never)]
fn present() -> u32 {
    use std::arch::x86_64::__cpuid_count;
    let bit = |word: u32, n: u32| (word >> n) & 1;
    // cpuid exists on every x86-64 CPU (a safe intrinsic there); leaves
    // beyond the maximum the CPU reports are not read.
    let (max, max_ext) = (__cpuid_count(0, 0).eax, __cpuid_count(0x8000_0000, 0).eax);
    let l1 = __cpuid_count(1, 0);
    let l7_ebx = if max >= 7 { __cpuid_count(7, 0).ebx } else { 0 };
    let ext_ecx = if max_ext >= 0x8000_0001 { __cpuid_count(0x8000_0001, 0).ecx } else { 0 };
    // The OS must save the AVX (and AVX-512) registers: XCR0 via xgetbv,
    // which exists where cpuid says OSXSAVE.
    let xcr0 = if bit(l1.ecx, 27) == 1 {
        let (lo, _hi): (u32, u32);
        // SAFETY: xgetbv with ecx = 0 is defined where OSXSAVE is set.
        unsafe { std::arch::asm!("xgetbv", in("ecx") 0, out("eax") lo, out("edx") _hi, options(nomem, nostack)) };
        lo
    } else {
        0
    };
    let avx_state = u32::from(xcr0 & 0x6 == 0x6);
    let avx512_state = u32::from(xcr0 & 0xE6 == 0xE6);
    let avx = bit(l1.ecx, 28) & avx_state;
    let avx512 = |n| bit(l7_ebx, n) & avx512_state & avx;
    avx | (bit(l7_ebx, 5) & avx) << 1
        | bit(l7_ebx, 3) << 2
        | bit(l7_ebx, 8) << 3
        | (bit(l1.ecx, 12) & avx) << 4
        | bit(ext_ecx, 5) << 5
        | bit(l1.ecx, 22) << 6
        | bit(l1.ecx, 23) << 7
        | avx512(16) << 8
        | avx512(30) << 9
        | avx512(28) << 10
        | avx512(17) << 11
        | avx512(31) << 12
}

#[cfg(not(target_arch = "x86_64"))]
fn present() -> u32 {
    REQUIRED_MASK
}

/// The required features this CPU lacks, by name (for reports; the start-up
/// check itself is [`check`]).
pub fn missing() -> Vec<&'static str> {
    let lacking = REQUIRED_MASK & !present();
    KNOWN.iter().enumerate().filter(|(i, _)| lacking >> i & 1 == 1).map(|(_, n)| *n).collect()
}

/// The refusal, both lines: the GUI's (stdout) and the shell's (stderr).
const STDOUT_LINE: &str = concat!(
    "info string error: this Tessera binary is built for ",
    env!("TESSERA_CPU_LEVEL"),
    " (",
    env!("TESSERA_CPU_NEEDS"),
    ") and this CPU lacks some of it: take the x86-64 build (tessera-...-x86-64), which runs on any x86-64 CPU\n"
);
const STDERR_LINE: &str = concat!(
    "error: this Tessera binary is built for ",
    env!("TESSERA_CPU_LEVEL"),
    " (",
    env!("TESSERA_CPU_NEEDS"),
    ") and this CPU lacks some of it: take the x86-64 build (tessera-...-x86-64), which runs on any x86-64 CPU, \
     and still uses AVX2 or AVX-512 where the CPU has them\n"
);

/// Returns where the CPU has every feature this build needs; otherwise
/// prints the refusal and ends the process with status 3.
#[inline(never)]
// The baseline build requires nothing: its mask is zero, the test always false.
#[allow(clippy::bad_bit_mask)]
pub fn check() {
    if REQUIRED_MASK & !present() != 0 {
        refuse();
    }
}

#[cfg(unix)]
fn refuse() -> ! {
    // SAFETY: write(2) of static buffers, then _exit: the C library's code,
    // compiled for the baseline, and nothing of this build's runs between.
    unsafe {
        libc_write(1, STDOUT_LINE.as_ptr(), STDOUT_LINE.len());
        libc_write(2, STDERR_LINE.as_ptr(), STDERR_LINE.len());
        libc_exit(3)
    }
}

#[cfg(unix)]
unsafe extern "C" {
    #[link_name = "write"]
    fn libc_write(fd: i32, buf: *const u8, count: usize) -> isize;
    #[link_name = "_exit"]
    fn libc_exit(status: i32) -> !;
}

#[cfg(windows)]
fn refuse() -> ! {
    const STD_OUTPUT_HANDLE: u32 = -11i32 as u32;
    const STD_ERROR_HANDLE: u32 = -12i32 as u32;
    // SAFETY: kernel32's own functions on static buffers and a local count;
    // nothing of this build's runs between them.
    unsafe {
        let mut written = 0u32;
        let out = GetStdHandle(STD_OUTPUT_HANDLE);
        WriteFile(out, STDOUT_LINE.as_ptr(), STDOUT_LINE.len() as u32, &mut written, std::ptr::null_mut());
        let err = GetStdHandle(STD_ERROR_HANDLE);
        WriteFile(err, STDERR_LINE.as_ptr(), STDERR_LINE.len() as u32, &mut written, std::ptr::null_mut());
        ExitProcess(3)
    }
}

#[cfg(windows)]
#[link(name = "kernel32")]
unsafe extern "system" {
    fn GetStdHandle(which: u32) -> *mut core::ffi::c_void;
    fn WriteFile(
        handle: *mut core::ffi::c_void,
        buffer: *const u8,
        length: u32,
        written: *mut u32,
        overlapped: *mut core::ffi::c_void,
    ) -> i32;
    fn ExitProcess(code: u32) -> !;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_agrees_with_the_standard_library() {
        #[cfg(target_arch = "x86_64")]
        {
            let std_has = [
                std::arch::is_x86_feature_detected!("avx"),
                std::arch::is_x86_feature_detected!("avx2"),
                std::arch::is_x86_feature_detected!("bmi1"),
                std::arch::is_x86_feature_detected!("bmi2"),
                std::arch::is_x86_feature_detected!("fma"),
                std::arch::is_x86_feature_detected!("lzcnt"),
                std::arch::is_x86_feature_detected!("movbe"),
                std::arch::is_x86_feature_detected!("popcnt"),
                std::arch::is_x86_feature_detected!("avx512f"),
                std::arch::is_x86_feature_detected!("avx512bw"),
                std::arch::is_x86_feature_detected!("avx512cd"),
                std::arch::is_x86_feature_detected!("avx512dq"),
                std::arch::is_x86_feature_detected!("avx512vl"),
            ];
            let ours = present();
            for (i, name) in KNOWN.iter().enumerate() {
                assert_eq!(ours >> i & 1 == 1, std_has[i], "{name}");
            }
        }
        // The machine that builds and tests a binary can run it.
        assert!(missing().is_empty(), "{:?}", missing());
    }

    #[test]
    fn masks_name_the_features() {
        assert_eq!(mask_of(""), 0);
        assert_eq!(mask_of("avx,avx2"), 0b11);
        assert_eq!(mask_of("avx512vl"), 1 << 12);
        assert!(STDERR_LINE.contains(LEVEL) && STDERR_LINE.ends_with('\n'));
    }
}
