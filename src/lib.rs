//! cargo mcp-lint: a static analyser for Rust MCP (Model Context Protocol) server code.
//!
//! The engine ([`engine`]) reads and parses each file once and keeps per-file facts
//! ([`analysis::facts`]); the facts of a crate are joined into a call graph with per-function
//! summaries ([`analysis::crate_graph`]); the rules ([`rules`]) read those and report
//! [`diagnostic::Diagnostic`]s, which the output formats ([`output`]) print.

pub mod analysis;
pub mod baseline;
pub mod bounded;
pub mod cache;
pub mod changed;
pub mod cli;
pub mod config;
pub mod diagnostic;
pub mod discovery;
pub mod edits;
pub mod engine;
pub mod escape;
pub mod features;
pub mod fingerprint;
pub mod fix;
pub mod lexical;
pub mod output;
pub mod policy;
pub mod prefilter;
pub mod programs;
pub mod protocol;
pub mod replay;
pub mod report;
pub mod result;
pub mod rules;
pub mod sdk;
pub mod settings;
pub mod source;
pub mod statistics;
pub mod suppression;
pub mod timings;
pub mod tree;
pub mod unit;
pub mod unit_results;
