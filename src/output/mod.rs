//! Output formats, one per file, behind one trait.

pub mod cargo_json;
pub mod concise;
pub mod emitter;
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
pub use emitter::{single_line_safe, terminal_safe, Emitter};

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

/// What kind of reader a format's output has, which decides its last escaping step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Read by people, and by a CI runner that takes some lines for commands.
    People,
    /// GitHub workflow commands: each field escaped as the command syntax requires.
    Annotations,
    Json,
    Xml,
}

/// The channel of a format.
pub fn channel(format: Format) -> Channel {
    match format {
        Format::Human | Format::Concise => Channel::People,
        Format::Github => Channel::Annotations,
        Format::Junit => Channel::Xml,
        Format::Json | Format::JsonLines | Format::Sarif | Format::Gitlab => Channel::Json,
    }
}

/// Write the report with `emitter` to `out`, through its channel's last escaping step: the
/// formats for people line by line through [`crate::escape::Guard`]; the machine formats with
/// every `##[` escaped as their syntax allows ([`crate::escape::machine_output`]); GitHub
/// annotations as they are (each field escaped as the command syntax requires). Every report
/// the tool prints or writes goes through here.
pub fn emit(
    emitter: &dyn Emitter,
    kind: Channel,
    report: &Report<'_>,
    out: &mut dyn WriteColor,
) -> io::Result<()> {
    match kind {
        Channel::People => {
            let mut guard = crate::escape::Guard::new(out);
            emitter.emit(report, &mut guard)?;
            guard.finish()
        }
        Channel::Annotations => emitter.emit(report, out),
        Channel::Json | Channel::Xml => {
            let mut buffer = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
            emitter.emit(report, &mut buffer)?;
            let bytes = crate::escape::machine_output(buffer.into_inner(), kind == Channel::Xml);
            out.write_all(&bytes)
        }
    }
}

/// [`emit`] in `format`.
pub fn emit_format(
    format: Format,
    report: &Report<'_>,
    out: &mut dyn WriteColor,
) -> io::Result<()> {
    emit(&*format.emitter(), channel(format), report, out)
}
