//! `judge practice`: local contest practice (problems from competitive-companion, a web page
//! with live verdicts, virtual contests, a history).

pub mod page;
pub mod statement;
