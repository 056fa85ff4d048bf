//! judge: a local online judge. See ARCHITECTURE.md for the pipeline.

pub mod checker;
pub mod sandbox;
