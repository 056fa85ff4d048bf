//! Integration tests: the `judge` binary driven as a user would, every hostile run contained.

mod alone;
mod api_fuzz;
mod attacks;
mod browser;
mod cache;
mod chaos;
mod checkers;
mod cli;
mod clics;
mod conventions;
mod crosscheck;
mod formats;
mod harness;
mod interactive;
mod java;
mod jobs;
mod judge0;
mod jury;
mod messages;
mod netns;
mod package_errors;
mod packages;
mod pair;
mod practice;
mod practice_history;
mod rejudge;
mod run;
mod sandbox;
mod scoring;
mod serve;
mod serve_judging;
mod serve_packages;
mod serve_sqlite;
mod service;
mod service_queue;
mod setter;
mod unpriv;
mod verify;
mod view;

/// How many tests run at once unless `RUST_TEST_THREADS` or `--test-threads` says otherwise:
/// more than the CPUs, since most of these tests wait (on wall-time limits, servers, browsers,
/// databases) more than they compute. Those that measure time or need the CPUs free run alone
/// ([`harness::alone`]).
const TEST_THREADS: &str = "4";

/// Sets `RUST_TEST_THREADS` to [`TEST_THREADS`] when the environment does not set it, before
/// `main` (libtest reads it there; a `--test-threads` argument still wins).
extern "C" fn default_test_threads() {
    if std::env::var_os("RUST_TEST_THREADS").is_none() {
        // SAFETY: this runs from .init_array, before main, while the process has one thread:
        // nothing reads the environment at the same time.
        unsafe { std::env::set_var("RUST_TEST_THREADS", TEST_THREADS) };
    }
}

// SAFETY: a function of the right type (no arguments, nothing returned) in .init_array, where
// the C runtime calls it once before main.
#[used]
#[link_section = ".init_array"]
static DEFAULT_TEST_THREADS: extern "C" fn() = default_test_threads;
