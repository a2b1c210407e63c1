//! The process's CPU time for ring and skynet's `cpu_ns` (docs/contract.md):
//! `clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`, every thread's user + system
//! time in ns. std has no process CPU clock and the libc crate is only a
//! transitive dependency here, so the two C functions are declared directly
//! (glibc, which std links anyway; Linux's struct timespec on 64-bit targets).

/// `CLOCK_PROCESS_CPUTIME_ID` from `<linux/time.h>`.
const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

#[repr(C)]
struct Timespec {
    tv_sec: i64,
    tv_nsec: i64,
}

unsafe extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    fn clock_getres(clock: i32, ts: *mut Timespec) -> i32;
}

fn read(f: unsafe extern "C" fn(i32, *mut Timespec) -> i32) -> u64 {
    let mut ts = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid, writable timespec; the clock id is a Linux constant.
    if unsafe { f(CLOCK_PROCESS_CPUTIME_ID, &mut ts) } != 0 {
        crate::fail("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The process's CPU time so far, in ns.
pub fn process_cpu_ns() -> u64 {
    read(clock_gettime)
}

/// The resolution of that clock, in ns (1 on Linux).
pub fn cpu_tick_ns() -> u64 {
    read(clock_getres).max(1)
}
