//! Integration tests: the `judge` binary driven as a user would, every hostile run contained.

mod attacks;
mod browser;
mod cache;
mod checkers;
mod cli;
mod conventions;
mod crosscheck;
mod formats;
mod harness;
mod interactive;
mod java;
mod jobs;
mod messages;
mod package_errors;
mod packages;
mod pair;
mod practice;
mod run;
mod sandbox;
mod scoring;
mod service;
mod service_queue;
mod setter;
mod unpriv;
mod verify;
mod view;
