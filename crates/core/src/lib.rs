//! The judge's core: languages, builds, problem packages, checkers, scoring, the engine that
//! judges one submission on one problem, interactive relaying, parallel jobs and the setter
//! tools. See `AGENTS.md` beside this crate for what it owns and must never import.

pub mod build;
pub mod checker;
pub mod engine;
pub mod executor;
pub mod jobs;
pub mod judging;
pub mod lang;
pub mod package;
pub mod score;
pub mod setter;
pub mod text;
pub mod verdict;
