//! judge: a local online judge. See ARCHITECTURE.md for the pipeline:
//! package → build → sandbox → checker → verdict → report.

pub mod build;
pub mod checker;
pub mod cli;
pub mod engine;
pub mod event;
pub mod executor;
pub mod interactive;
pub mod interrupt;
pub mod jobs;
pub mod lang;
pub mod leftovers;
pub mod package;
pub mod practice;
pub mod report;
pub mod sandbox;
pub mod score;
pub mod setter;
pub mod verdict;
