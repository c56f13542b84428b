//! The process's allocator, chosen once from the command line before the first allocation: mimalloc for the commands
//! that run long or on many threads (`serve`, `issue --batch`: under the server's load glibc malloc was a tenth of
//! the CPU), the C library's for every one-shot command. mimalloc's set-up (its arena, the first fresh pages) cost a
//! `kuatia issue` process 0.45–0.85 ms of its ~6 ms of CPU; glibc's heap starts with the process.
//!
//! The choice never changes once made, so every block is freed by the allocator that gave it. It is made by
//! [`decide`], which glibc runs among the `.init_array` functions with `(argc, argv, envp)` — before `main` and before
//! any Rust allocation (the standard library reads its own `argv` the same way). Anywhere that hook does not run
//! (another C library, another OS), the first allocation settles on mimalloc, as before this module.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

const UNDECIDED: u8 = 0;
const SYSTEM: u8 = 1;
const MIMALLOC: u8 = 2;

static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// The allocator of the process: mimalloc or the system's, as [`decide`] chose.
pub struct Chosen;

impl Chosen {
    /// `true` when this process allocates with mimalloc (settling on it if nothing was chosen yet).
    pub fn mimalloc(&self) -> bool {
        // A plain load on every allocation once decided: a compare-exchange, even a failing one, takes the cache line
        // exclusively, and every thread of the server would contend for it.
        match CHOICE.load(Ordering::Acquire) {
            UNDECIDED => match CHOICE.compare_exchange(
                UNDECIDED,
                MIMALLOC,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => true,
                Err(chosen) => chosen == MIMALLOC,
            },
            chosen => chosen == MIMALLOC,
        }
    }
}

/// Whether a command line (without the program name) is one that runs long or on many threads: `serve`, or any
/// command given `--batch`.
pub fn wants_mimalloc<'a>(mut args: impl Iterator<Item = &'a [u8]>) -> bool {
    match args.next() {
        None => false,
        // `archive` runs long too, and glibc's heap grew with every document of it (transient PDF and XML buffers
        // around the few bytes each member keeps: docs/benchmarks.md, "Monthly archive").
        Some(b"serve" | b"archive") => true,
        Some(first) => std::iter::once(first)
            .chain(args)
            .any(|a| a == b"--batch" || a.starts_with(b"--batch=")),
    }
}

// SAFETY: every call goes to one of two allocators that uphold `GlobalAlloc`'s contract, and always to the same one
// (`CHOICE` is set once and never changes), so a block is reallocated and freed by the allocator that gave it.
unsafe impl GlobalAlloc for Chosen {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if self.mimalloc() {
            mimalloc::MiMalloc.alloc(layout)
        } else {
            System.alloc(layout)
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if self.mimalloc() {
            mimalloc::MiMalloc.alloc_zeroed(layout)
        } else {
            System.alloc_zeroed(layout)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if self.mimalloc() {
            mimalloc::MiMalloc.dealloc(ptr, layout)
        } else {
            System.dealloc(ptr, layout)
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if self.mimalloc() {
            mimalloc::MiMalloc.realloc(ptr, layout, new_size)
        } else {
            System.realloc(ptr, layout, new_size)
        }
    }
}

/// Makes the choice from `argv` (glibc passes `argc, argv, envp` to `.init_array` functions). Allocates nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
extern "C" fn decide(
    argc: std::ffi::c_int,
    argv: *const *const std::ffi::c_char,
    _envp: *const *const std::ffi::c_char,
) {
    if argv.is_null() || argc < 1 {
        return;
    }
    let count = usize::try_from(argc).unwrap_or(0);
    // SAFETY: glibc passes the process's argv: `argc` valid pointers to NUL-terminated strings that live as long as
    // the process; they are only read.
    let args = (1..count).map(|i| unsafe {
        let arg = *argv.add(i);
        if arg.is_null() {
            &[][..]
        } else {
            std::ffi::CStr::from_ptr(arg).to_bytes()
        }
    });
    let choice = if wants_mimalloc(args) {
        MIMALLOC
    } else {
        SYSTEM
    };
    // An allocation that came first has settled it already: that choice stays.
    let _ = CHOICE.compare_exchange(UNDECIDED, choice, Ordering::AcqRel, Ordering::Acquire);
}

/// Registers [`decide`] with the C library's start-up (the same section the standard library uses for `argv`).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[used]
#[link_section = ".init_array.00098"]
static DECIDE: extern "C" fn(
    std::ffi::c_int,
    *const *const std::ffi::c_char,
    *const *const std::ffi::c_char,
) = decide;

#[cfg(test)]
mod tests {
    use super::*;

    fn wants(line: &str) -> bool {
        wants_mimalloc(line.split_whitespace().map(str::as_bytes))
    }

    #[test]
    fn long_running_commands_get_mimalloc_one_shot_ones_the_system_allocator() {
        assert!(wants("serve"));
        assert!(wants("serve --addr 127.0.0.1:0 --data d"));
        assert!(wants("issue --batch lote.jsonl --out d -j 2"));
        assert!(wants("issue --batch=lote.jsonl"));
        assert!(!wants("issue examples/factura.json --out d"));
        assert!(!wants("verify doc.xml"));
        assert!(wants("archive --month 2026-11 --out a.zip"));
        assert!(!wants(""));
        // Only the first argument names the command: a file called `serve` is not the server.
        assert!(!wants("issue serve"));
        assert!(!wants("issue --batchy x"));
    }

    #[test]
    fn this_test_process_settled_on_one_allocator() {
        // The test harness's argv (`kuatia-…` and filters) is not `serve` nor `--batch`, but whichever was chosen,
        // the choice is stable across calls.
        let first = Chosen.mimalloc();
        assert_eq!(Chosen.mimalloc(), first);
        let v: Vec<u8> = vec![7; 1 << 16];
        assert_eq!(v.iter().map(|&b| usize::from(b)).sum::<usize>(), 7 << 16);
    }
}
