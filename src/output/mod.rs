//! Output formats, one per file, behind one trait.

pub mod concise;
pub mod human;
pub mod json;

use std::io;

use codespan_reporting::term::termcolor::WriteColor;

use crate::engine::LintResult;

/// Writes a run's result in one format.
pub trait Emitter {
    fn emit(&self, result: &LintResult, out: &mut dyn WriteColor) -> io::Result<()>;
}

/// The formats `--format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style snippets with labels, notes and help.
    Human,
    /// One line per diagnostic: `path:line:col: CODE [name] message`.
    Concise,
    /// One JSON object (the stable contract documented in the README).
    Json,
}

impl Format {
    pub fn emitter(self) -> Box<dyn Emitter> {
        match self {
            Format::Human => Box::new(human::Human),
            Format::Concise => Box::new(concise::Concise),
            Format::Json => Box::new(json::Json),
        }
    }
}
