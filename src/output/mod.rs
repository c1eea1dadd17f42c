//! Output formats, one per file, behind one trait.

pub mod concise;
pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod json_lines;
pub mod junit;
pub mod sarif;

use std::io;

use codespan_reporting::term::termcolor::WriteColor;

pub use crate::report::{repository_root, Report};

/// Text for a terminal with every control character (but tab and line endings) replaced by a
/// visible one of the same byte length, so that text from the linted tree (source lines, file
/// names, messages that quote code) cannot move the cursor, recolour, or clear the screen.
/// Byte offsets into the text stay valid.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char =
        |c: char| (c.is_control() && !matches!(c, '\t' | '\n' | '\r')) || c == '\u{7f}';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    std::borrow::Cow::Owned(
        text.chars()
            .map(|c| {
                if !unsafe_char(c) {
                    c.to_string()
                } else if c.len_utf8() == 1 {
                    "?".to_string()
                } else {
                    // C1 controls take two bytes: a two-byte stand-in keeps offsets.
                    "\u{bf}".to_string()
                }
            })
            .collect(),
    )
}

/// [`terminal_safe`] for text that must stay on one line (a path, a message): line breaks and
/// tabs are replaced too.
pub fn single_line_safe(text: &str) -> String {
    terminal_safe(text)
        .chars()
        .map(|c| {
            if matches!(c, '\n' | '\r' | '\t') {
                ' '
            } else {
                c
            }
        })
        .collect()
}

/// Writes a run's result in one format.
pub trait Emitter {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()>;
}

/// The formats `--format` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// rustc-style snippets with labels, notes, help and suggested fixes.
    Human,
    /// One line per diagnostic: `path:line:col: CODE [name] message`.
    Concise,
    /// One JSON object (the stable contract documented in the README).
    Json,
    /// One JSON object per diagnostic, one per line.
    JsonLines,
    /// SARIF 2.1.0, as GitHub code scanning accepts it.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// GitLab Code Quality report.
    Gitlab,
    /// JUnit XML.
    Junit,
}

impl Format {
    pub fn emitter(self) -> Box<dyn Emitter> {
        match self {
            Format::Human => Box::new(human::Human),
            Format::Concise => Box::new(concise::Concise),
            Format::Json => Box::new(json::Json),
            Format::JsonLines => Box::new(json_lines::JsonLines),
            Format::Sarif => Box::new(sarif::Sarif),
            Format::Github => Box::new(github::Github),
            Format::Gitlab => Box::new(gitlab::Gitlab),
            Format::Junit => Box::new(junit::Junit),
        }
    }

    /// Formats meant for machines: no colour, nothing else on stdout.
    pub fn is_machine(self) -> bool {
        !matches!(self, Format::Human | Format::Concise | Format::Github)
    }
}
