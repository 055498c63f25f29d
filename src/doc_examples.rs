//! The Rust code blocks of README.md and docs/*.md, compiled and run as doc tests by
//! `cargo test`, so that what the documentation shows cannot drift from the library. A code
//! block without a language is Rust to rustdoc: diagrams are fenced as `text`.
//! `tests/integration/docs.rs` checks that every file in docs/ is listed here.

#[doc = include_str!("../README.md")]
pub struct Readme;

#[doc = include_str!("../docs/RULES.md")]
pub struct Rules;

#[doc = include_str!("../docs/PROTOCOL.md")]
pub struct Protocol;

#[doc = include_str!("../docs/LOG.md")]
pub struct Log;

#[doc = include_str!("../docs/NET.md")]
pub struct Net;

#[doc = include_str!("../docs/ANALYSIS.md")]
pub struct Analysis;
