//! Integration tests: the `judge` binary driven as a user would, every hostile run contained.

mod attacks;
mod checkers;
mod crosscheck;
mod harness;
mod package_errors;
mod run;
mod sandbox;
mod setter;
mod verify;
