//! `--format human`: rustc-style snippets through codespan-reporting.

use std::io;
use std::ops::Range;

use codespan_reporting::diagnostic::{Diagnostic as Rendered, Label, Severity as ReportSeverity};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::termcolor::{Color, ColorSpec, WriteColor};
use codespan_reporting::term::{self};

use super::emitter::Emitter;
use crate::diagnostic::{Applicability, Diagnostic, Fix, Severity};
use crate::edits::apply_edits;
use crate::report::Report;
use crate::result::LintResult;
use crate::source::{ByteSpan, SourceMap};

pub struct Human;

/// Lines longer than this many bytes are shown only in a window around what a diagnostic points
/// at, as rustc and ruff elide them: a one-line file of a megabyte with a thousand findings would
/// otherwise be printed a thousand times.
const LONG_LINE: usize = 400;

/// The bytes shown on each side of what a diagnostic points at in a long line.
const WINDOW_CONTEXT: usize = 80;

/// The run's sources as codespan-reporting sees them, for one diagnostic: the long lines it
/// points into are cut to a window around its spans.
struct SourceFiles<'a> {
    sources: &'a SourceMap,
    /// (file, line index) to the window of the line shown.
    windows: std::collections::HashMap<(usize, usize), Range<usize>>,
}

impl<'a> SourceFiles<'a> {
    fn new(sources: &'a SourceMap) -> Self {
        SourceFiles {
            sources,
            windows: std::collections::HashMap::new(),
        }
    }

    /// The files for showing `d`, with a window for every long line its spans start on (and,
    /// for a span over several lines, end on); the diagnostic's ranges are clipped to the
    /// windows.
    fn for_diagnostic(sources: &'a SourceMap, d: &mut Rendered<usize>) -> Self {
        let mut files = SourceFiles::new(sources);
        for label in &mut d.labels {
            let Some(source) = sources.get(label.file_id) else {
                continue;
            };
            let (start, end) = (label.range.start, label.range.end);
            let first = source.line_index(start);
            if let Some((window, line_end)) = files.window(label.file_id, first, start, true) {
                let start = start.clamp(window.start, window.end);
                let end = if end <= line_end {
                    end.clamp(start, window.end)
                } else {
                    end
                };
                label.range = start..end;
            }
            // The last line of a label over several lines: windowed around where it ends.
            let last = source.line_index(label.range.end);
            if last != first {
                let end = label.range.end;
                if let Some((window, _)) = files.window(label.file_id, last, end, false) {
                    label.range.end = end.clamp(window.start, window.end);
                }
            }
        }
        files
    }

    /// The window shown of line `line` of file `id` when it is long (made around `at`: after it
    /// when `after`, else before it, the first time the line is asked for), and where the
    /// line ends; `None` for a line short enough to show whole.
    fn window(
        &mut self,
        id: usize,
        line: usize,
        at: usize,
        after: bool,
    ) -> Option<(Range<usize>, usize)> {
        let source = self.sources.get(id)?;
        let starts = source.line_starts();
        let line_start = starts[line];
        let line_end = starts.get(line + 1).copied().unwrap_or(source.text().len());
        if line_end - line_start <= LONG_LINE {
            return None;
        }
        let (before, beyond) = if after {
            (WINDOW_CONTEXT, WINDOW_CONTEXT + LONG_LINE / 2)
        } else {
            (WINDOW_CONTEXT + LONG_LINE / 2, WINDOW_CONTEXT)
        };
        let window = self
            .windows
            .entry((id, line))
            .or_insert_with(|| {
                let from = source.clamp_offset(at.saturating_sub(before).max(line_start));
                let to = source.clamp_offset(at.saturating_add(beyond).min(line_end));
                from..to
            })
            .clone();
        Some((window, line_end))
    }
}

impl<'a> Files<'a> for SourceFiles<'a> {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, FilesError> {
        self.sources
            .get(id)
            .map(|f| f.display_path.as_str())
            .ok_or(FilesError::FileMissing)
    }

    fn source(&'a self, id: usize) -> Result<&'a str, FilesError> {
        self.sources
            .get(id)
            .map(|f| f.text())
            .ok_or(FilesError::FileMissing)
    }

    fn line_index(&'a self, id: usize, byte_index: usize) -> Result<usize, FilesError> {
        let file = self.sources.get(id).ok_or(FilesError::FileMissing)?;
        Ok(file.line_index(byte_index))
    }

    fn line_range(&'a self, id: usize, line_index: usize) -> Result<Range<usize>, FilesError> {
        if let Some(window) = self.windows.get(&(id, line_index)) {
            return Ok(window.clone());
        }
        let file = self.sources.get(id).ok_or(FilesError::FileMissing)?;
        let starts = file.line_starts();
        let start = *starts.get(line_index).ok_or(FilesError::LineTooLarge {
            given: line_index,
            max: starts.len().saturating_sub(1),
        })?;
        let end = starts
            .get(line_index + 1)
            .copied()
            .unwrap_or(file.text().len());
        Ok(start..end)
    }

    /// The column in the whole line, whatever window of it is shown.
    fn column_number(
        &'a self,
        id: usize,
        _line_index: usize,
        byte_index: usize,
    ) -> Result<usize, FilesError> {
        let file = self.sources.get(id).ok_or(FilesError::FileMissing)?;
        Ok(file.line_column(byte_index).column)
    }
}

fn range(sources: &SourceMap, file: usize, span: ByteSpan) -> Range<usize> {
    match sources.get(file) {
        Some(source) => {
            let start = source.clamp_offset(span.start);
            start..source.clamp_offset(span.end).max(start)
        }
        None => 0..0,
    }
}

fn rendered(sources: &SourceMap, d: &Diagnostic) -> Rendered<usize> {
    let severity = match d.severity {
        Severity::Error => ReportSeverity::Error,
        Severity::Warning => ReportSeverity::Warning,
        Severity::Note => ReportSeverity::Note,
    };
    let mut labels = vec![Label::primary(d.file, range(sources, d.file, d.span))];
    labels.extend(d.labels.iter().map(|l| {
        Label::secondary(l.file, range(sources, l.file, l.span)).with_message(&l.message)
    }));
    let mut notes: Vec<String> = d.notes.iter().map(|n| format!("note: {n}")).collect();
    if let Some(help) = &d.help {
        notes.push(format!("help: {help}"));
    }
    // An internal error is not a rule one could turn off.
    // A rule in preview runs only in preview mode: it is not on by default.
    if !crate::rules::internal_error::is_internal_error(d) {
        let preview = crate::rules::find(d.code).is_some_and(|rule| rule.meta().is_preview());
        notes.push(match preview {
            true => format!(
                "`{}` ({}) is in preview: it runs with `--preview`",
                d.code, d.name
            ),
            false => format!("`{}` ({}) is on by default", d.code, d.name),
        });
    }
    Rendered::new(severity)
        .with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes)
}

/// The sources and diagnostics made safe to show: source text with same-length stand-ins for
/// controls, every message, label, note, help and path on one line with its controls escaped.
fn safe_copy(result: &LintResult) -> Option<LintResult> {
    let changes = |text: &str| matches!(crate::escape::inline(text), std::borrow::Cow::Owned(_));
    let risky = result.sources.iter().any(|(_, s)| {
        matches!(
            super::emitter::terminal_safe(s.text()),
            std::borrow::Cow::Owned(_)
        ) || changes(&s.display_path)
    }) || result.diagnostics.iter().any(|d| {
        changes(&d.message)
            || d.labels.iter().any(|l| changes(&l.message))
            || d.notes.iter().any(|n| changes(n))
            || d.help.as_deref().is_some_and(changes)
    });
    if !risky {
        return None;
    }
    let one_line = |text: &str| crate::escape::inline(text).into_owned();
    let mut sources = SourceMap::default();
    for (_, s) in result.sources.iter() {
        sources.add(crate::source::SourceFile::new(
            s.path.clone(),
            one_line(&s.display_path),
            super::emitter::terminal_safe(s.text()).into_owned(),
        ));
    }
    let diagnostics = result
        .diagnostics
        .iter()
        .map(|d| {
            let mut d = d.clone();
            d.message = one_line(&d.message);
            for label in &mut d.labels {
                label.message = one_line(&label.message);
            }
            d.notes = d.notes.iter().map(|n| one_line(n)).collect();
            d.help = d.help.as_deref().map(one_line);
            d
        })
        .collect();
    Some(LintResult {
        sources,
        diagnostics,
    })
}

/// Each diagnostic as the human report shows it, without colour or suggestion: what cargo's
/// JSON messages carry as `rendered`.
pub fn render_each(result: &LintResult) -> Vec<String> {
    let safe = safe_copy(result);
    let result = safe.as_ref().unwrap_or(result);
    let config = term::Config::default();
    result
        .diagnostics
        .iter()
        .map(|d| {
            let mut shown = rendered(&result.sources, d);
            let files = SourceFiles::for_diagnostic(&result.sources, &mut shown);
            let mut out = codespan_reporting::term::termcolor::NoColor::new(Vec::new());
            match term::emit_to_write_style(&mut out, &config, &files, &shown) {
                Ok(()) => String::from_utf8_lossy(&out.into_inner()).into_owned(),
                Err(_) => String::new(),
            }
        })
        .collect()
}

impl Emitter for Human {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()> {
        let safe = safe_copy(report.result);
        let result = safe.as_ref().unwrap_or(report.result);
        let config = term::Config::default();
        for d in &result.diagnostics {
            let mut shown = rendered(&result.sources, d);
            let files = SourceFiles::for_diagnostic(&result.sources, &mut shown);
            term::emit_to_write_style(out, &config, &files, &shown).map_err(io::Error::other)?;
            if let Some(fix) = &d.fix {
                write_suggestion(out, &result.sources, fix)?;
            }
        }
        let count = |s: Severity| {
            result
                .diagnostics
                .iter()
                .filter(|d| d.severity == s)
                .count()
        };
        let checked = plural(result.files_linted(), "file", "files");
        if result.diagnostics.is_empty() {
            return writeln!(out, "No problems found in {checked}.");
        }
        let mut parts = Vec::new();
        for (severity, one, many) in [
            (Severity::Error, "error", "errors"),
            (Severity::Warning, "warning", "warnings"),
            (Severity::Note, "note", "notes"),
        ] {
            let n = count(severity);
            if n > 0 {
                parts.push(plural(n, one, many));
            }
        }
        let with_findings: std::collections::BTreeSet<_> =
            result.diagnostics.iter().map(|d| d.file).collect();
        writeln!(
            out,
            "Found {} in {} ({checked} checked).",
            parts.join(", "),
            plural(with_findings.len(), "file", "files"),
        )?;
        let fixable = |applicability: Applicability| {
            result
                .diagnostics
                .iter()
                .filter(|d| {
                    d.fix
                        .as_ref()
                        .is_some_and(|f| f.applicability == applicability)
                })
                .count()
        };
        let (safe, unsafe_) = (fixable(Applicability::Safe), fixable(Applicability::Unsafe));
        match (safe, unsafe_) {
            (0, 0) => {}
            (0, _) => writeln!(out, "{unsafe_} fixable with `--fix --unsafe-fixes`.")?,
            (_, 0) => writeln!(out, "[*] {safe} fixable with `--fix`.")?,
            _ => writeln!(
                out,
                "[*] {safe} fixable with `--fix` ({unsafe_} more with `--unsafe-fixes`)."
            )?,
        }
        let first = result.diagnostics.first().map_or("MCP001", |d| d.code);
        writeln!(
            out,
            "For more on a rule, run `cargo mcp-lint --explain {first}`."
        )
    }
}

/// `1 file`, `2 files`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A long line of a suggestion cut to a window around byte `around`, with `…` where it is cut.
fn long_line_window(line: &str, around: usize) -> std::borrow::Cow<'_, str> {
    if line.len() <= LONG_LINE {
        return std::borrow::Cow::Borrowed(line);
    }
    let boundary = |mut at: usize| {
        at = at.min(line.len());
        while !line.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let from = boundary(around.saturating_sub(WINDOW_CONTEXT));
    let to = boundary(from + LONG_LINE / 2 + WINDOW_CONTEXT);
    let mut shown = String::new();
    if from > 0 {
        shown.push('…');
    }
    shown.push_str(&line[from..to]);
    if to < line.len() {
        shown.push('…');
    }
    std::borrow::Cow::Owned(shown)
}

/// Show a fix the way rustc shows a suggestion: the lines it changes, removed and added.
fn write_suggestion(out: &mut dyn WriteColor, sources: &SourceMap, fix: &Fix) -> io::Result<()> {
    let kind = match fix.applicability {
        crate::diagnostic::Applicability::Safe => "safe fix",
        crate::diagnostic::Applicability::Unsafe => "unsafe fix: --fix --unsafe-fixes applies it",
        crate::diagnostic::Applicability::DisplayOnly => "suggestion, not applied automatically",
    };
    out.set_color(ColorSpec::new().set_bold(true).set_fg(Some(Color::Cyan)))?;
    write!(out, "help")?;
    out.reset()?;
    writeln!(out, ": {} ({kind})", crate::escape::inline(&fix.message))?;
    let mut files: Vec<usize> = fix.edits.iter().map(|e| e.file).collect();
    files.dedup();
    for file_id in files {
        let Some(source) = sources.get(file_id) else {
            continue;
        };
        let edits: Vec<_> = fix.edits.iter().filter(|e| e.file == file_id).collect();
        let (Some(first), Some(last)) = (edits.first(), edits.last()) else {
            continue;
        };
        let first_line = source.line_index(source.clamp_offset(first.span.start));
        let last_line = source
            .line_index(source.clamp_offset(last.span.end.saturating_sub(1).max(last.span.start)));
        let starts = source.line_starts();
        let chunk_start = starts[first_line];
        let chunk_end = starts
            .get(last_line + 1)
            .copied()
            .unwrap_or(source.text().len());
        // A long chunk (a line of a megabyte) is cut around the edits, so that showing a
        // suggestion costs what it shows, not the line (a thousand findings on one line would
        // otherwise diff the line a thousand times).
        let (chunk_start, chunk_end) = if chunk_end - chunk_start > 4 * LONG_LINE {
            let reach = WINDOW_CONTEXT + LONG_LINE;
            (
                source.clamp_offset(first.span.start.saturating_sub(reach).max(chunk_start)),
                source.clamp_offset(last.span.end.saturating_add(reach).min(chunk_end)),
            )
        } else {
            (chunk_start, chunk_end)
        };
        let old = &source.text()[chunk_start..chunk_end];
        let shifted: Vec<crate::diagnostic::Edit> = edits
            .iter()
            .map(|e| crate::diagnostic::Edit {
                file: e.file,
                span: ByteSpan::new(
                    e.span.start.saturating_sub(chunk_start),
                    e.span.end.saturating_sub(chunk_start).min(old.len()),
                ),
                replacement: e.replacement.clone(),
            })
            .collect();
        let new = apply_edits(old, &shifted.iter().collect::<Vec<_>>());
        // Where in the chunk's first line the first edit is: long lines are shown around it.
        let around = first.span.start.saturating_sub(chunk_start);
        let width = (last_line + 1).to_string().len();
        writeln!(
            out,
            "{:width$} --> {}",
            "",
            crate::escape::inline(&source.display_path)
        )?;
        writeln!(out, "{:width$} |", "")?;
        let diff = similar::TextDiff::from_lines(old, new.as_str());
        let (mut old_line, mut new_line) = (first_line + 1, first_line + 1);
        for change in diff.iter_all_changes() {
            let line = change.value().trim_end_matches(['\n', '\r']);
            let windowed = long_line_window(line, around);
            let text = crate::escape::source_text(&windowed);
            match change.tag() {
                similar::ChangeTag::Equal => {
                    writeln!(out, "{old_line:>width$} |   {text}")?;
                    old_line += 1;
                    new_line += 1;
                }
                similar::ChangeTag::Delete => {
                    out.set_color(ColorSpec::new().set_fg(Some(Color::Red)))?;
                    writeln!(out, "{old_line:>width$} | - {text}")?;
                    out.reset()?;
                    old_line += 1;
                }
                similar::ChangeTag::Insert => {
                    out.set_color(ColorSpec::new().set_fg(Some(Color::Green)))?;
                    writeln!(out, "{new_line:>width$} | + {text}")?;
                    out.reset()?;
                    new_line += 1;
                }
            }
        }
        writeln!(out, "{:width$} |", "")?;
    }
    writeln!(out)
}
