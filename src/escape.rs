//! Text from the linted tree (file names, string literals quoted in messages, configuration keys,
//! source lines) shown to a person: on a terminal, in a CI log that reads workflow commands at the
//! start of a line (`::error ..`, `::stop-commands::`), or in a patch. Each function here is the
//! one escaping step of one kind of place; none lets such text start a line, move the cursor,
//! recolour, or reorder what is shown (bidirectional controls).

use std::borrow::Cow;
use std::io;

use codespan_reporting::term::termcolor::{ColorSpec, WriteColor};

/// Whether `c` reorders, separates or hides text invisibly: the bidirectional embeddings,
/// overrides and isolates, the directional marks, the Unicode line and paragraph separators, and
/// every other character Unicode says to draw as nothing (zero-width spaces and joiners, the word
/// joiner, the byte order mark, soft hyphens, fillers, variation selectors, tags): two names that
/// differ only by one of them would look alike.
fn invisible_control(c: char) -> bool {
    matches!(
        c,
        '\u{00ad}'
            | '\u{034f}'
            | '\u{061c}'
            | '\u{115f}'..='\u{1160}'
            | '\u{17b4}'..='\u{17b5}'
            | '\u{180b}'..='\u{180f}'
            | '\u{200b}'..='\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2060}'..='\u{206f}'
            | '\u{3164}'
            | '\u{fe00}'..='\u{fe0f}'
            | '\u{feff}'
            | '\u{ffa0}'
            | '\u{fff0}'..='\u{fff8}'
            | '\u{1bca0}'..='\u{1bca3}'
            | '\u{1d173}'..='\u{1d17a}'
            | '\u{e0000}'..='\u{e0fff}'
    )
}

/// Whether `c` must never reach a terminal or a log as it is.
fn unsafe_char(c: char) -> bool {
    c.is_control() || invisible_control(c)
}

/// Text that must stay on one line (a message, a label, a path, a key): every line break, tab,
/// control and invisible control written as its escape (`\n`, `\r`, `\t`, `\u{202e}`).
///
/// A `##[`, which the Actions runner reads anywhere in a line as a legacy workflow command
/// (`##[error]`, `##[stop-commands]`), is written `#\u{23}[`.
pub fn inline(text: &str) -> Cow<'_, str> {
    if !text.chars().any(unsafe_char) && !text.contains(LEGACY_COMMAND) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (i, c) in text.char_indices() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            '#' if legacy_command_at(text, i) => out.push_str("\\u{23}"),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// What the Actions runner takes for a legacy workflow command, anywhere in a line.
const LEGACY_COMMAND: &str = "##[";

/// Whether the `#` at byte `i` of `text` is the second of a `##[`.
fn legacy_command_at(text: &str, i: usize) -> bool {
    i > 0 && text.as_bytes().get(i - 1) == Some(&b'#') && text.as_bytes().get(i + 1) == Some(&b'[')
}

/// A message of several lines that this tool wrote, holding text from the tree: each line is
/// made [`inline`]-safe, the line breaks between them kept.
///
/// No line starts, after its leading blanks, with `::` (a workflow command): its first `:` is
/// written `\u{3a}`.
pub fn lines(text: &str) -> String {
    text.split('\n')
        .map(|line| guard_line(&inline(line)).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The last escaping step of every line a channel for people prints (the human and concise
/// reports, `--diff`, `--show-settings`, stderr), whoever wrote the text in it: controls (but
/// tabs, and a carriage return that ends the line) and invisible characters as their escapes, the
/// second `#` of a `##[` as `\u{23}`, and the first `:` of a line that starts, after its blanks,
/// with `::` as `\u{3a}`. `line` holds no line break.
pub fn guard_line(line: &str) -> Cow<'_, str> {
    let body = line.strip_suffix('\r').unwrap_or(line);
    let command = body.trim_start().starts_with("::");
    let risky = |(i, c): (usize, char)| {
        (unsafe_char(c) && c != '\t') || (c == '#' && legacy_command_at(body, i))
    };
    if !command && !body.char_indices().any(risky) {
        return Cow::Borrowed(line);
    }
    let first_colon = command.then(|| body.len() - body.trim_start().len());
    let mut out = String::with_capacity(line.len() + 8);
    for (i, c) in body.char_indices() {
        if Some(i) == first_colon {
            out.push_str("\\u{3a}");
        } else if c == '#' && legacy_command_at(body, i) {
            out.push_str("\\u{23}");
        } else if unsafe_char(c) && c != '\t' {
            out.push_str(&format!("\\u{{{:x}}}", c as u32));
        } else {
            out.push(c);
        }
    }
    if body.len() < line.len() {
        out.push('\r');
    }
    Cow::Owned(out)
}

/// A piece of a line held by a [`Guard`]: text, or a colour change between texts.
enum Piece {
    Text(Vec<u8>),
    Color(ColorSpec),
    Reset,
}

/// A channel for people (the human and concise reports, `--diff`, `--show-settings`) with its
/// last escaping step: every line passes through [`guard_line`] before it reaches the stream;
/// colour changes pass as they are, around the text. A line is held until it ends (or the guard
/// is finished), so the whole line is judged, whatever pieces it was written in.
pub struct Guard<'w> {
    inner: &'w mut dyn WriteColor,
    line: Vec<Piece>,
}

impl<'w> Guard<'w> {
    pub fn new(inner: &'w mut dyn WriteColor) -> Self {
        Guard {
            inner,
            line: Vec::new(),
        }
    }

    /// Write out the line held (if any) and flush the stream.
    pub fn finish(mut self) -> io::Result<()> {
        self.end_line(false)?;
        self.inner.flush()
    }

    fn end_line(&mut self, newline: bool) -> io::Result<()> {
        let pieces = std::mem::take(&mut self.line);
        let mut joined = Vec::new();
        for piece in &pieces {
            if let Piece::Text(bytes) = piece {
                joined.extend_from_slice(bytes);
            }
        }
        let text = String::from_utf8_lossy(&joined);
        let guarded = guard_line(&text);
        if matches!(guarded, Cow::Borrowed(_)) && std::str::from_utf8(&joined).is_ok() {
            // Unchanged: the pieces go out as they came.
            for piece in pieces {
                match piece {
                    Piece::Text(bytes) => self.inner.write_all(&bytes)?,
                    Piece::Color(spec) => self.inner.set_color(&spec)?,
                    Piece::Reset => self.inner.reset()?,
                }
            }
        } else {
            // Escaped: the text goes out whole, with the line's colour changes dropped but a
            // reset at its end (an escape can move text across them).
            self.inner.write_all(guarded.as_bytes())?;
            if pieces.iter().any(|p| !matches!(p, Piece::Text(_))) {
                self.inner.reset()?;
            }
        }
        if newline {
            self.inner.write_all(b"\n")?;
        }
        Ok(())
    }
}

impl io::Write for Guard<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut rest = buf;
        while let Some(end) = rest.iter().position(|b| *b == b'\n') {
            self.push_text(&rest[..end]);
            self.end_line(true)?;
            rest = &rest[end + 1..];
        }
        self.push_text(rest);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        // A line is written once it ends: a partial line is held.
        self.inner.flush()
    }
}

impl Guard<'_> {
    fn push_text(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        match self.line.last_mut() {
            Some(Piece::Text(text)) => text.extend_from_slice(bytes),
            _ => self.line.push(Piece::Text(bytes.to_vec())),
        }
    }
}

impl WriteColor for Guard<'_> {
    fn supports_color(&self) -> bool {
        self.inner.supports_color()
    }

    fn set_color(&mut self, spec: &ColorSpec) -> io::Result<()> {
        self.line.push(Piece::Color(spec.clone()));
        Ok(())
    }

    fn reset(&mut self) -> io::Result<()> {
        self.line.push(Piece::Reset);
        Ok(())
    }
}

impl Drop for Guard<'_> {
    fn drop(&mut self) {
        if !self.line.is_empty() {
            let _ = self.end_line(false);
        }
    }
}

/// A machine format's output (JSON or XML) with every `##[` written so that its parsed value is
/// the same and the runner cannot take it for a command when the output is printed in a log:
/// `#\u0023[` in JSON (where `##[` can only stand inside a string), `#&#35;[` in XML.
pub fn machine_output(bytes: Vec<u8>, xml: bool) -> Vec<u8> {
    let needle = LEGACY_COMMAND.as_bytes();
    if !bytes.windows(needle.len()).any(|w| w == needle) {
        return bytes;
    }
    let second: &[u8] = if xml { b"&#35;" } else { b"\\u0023" };
    let mut out = Vec::with_capacity(bytes.len() + 16);
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'#' && i > 0 && bytes[i - 1] == b'#' && bytes.get(i + 1) == Some(&b'[') {
            out.extend_from_slice(second);
        } else {
            out.push(b);
        }
    }
    out
}

/// Source text shown in snippets: every control (but tab and line breaks) and invisible control
/// replaced by a visible stand-in of the same byte length, so that byte offsets into the text stay
/// valid. A carriage return that does not end a line is replaced too.
pub fn source_text(text: &str) -> Cow<'_, str> {
    let risky = |(i, c): (usize, char)| {
        (unsafe_char(c) && !matches!(c, '\t' | '\n' | '\r'))
            || (c == '\r' && text.as_bytes().get(i + 1) != Some(&b'\n'))
    };
    if !text.char_indices().any(risky) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if !risky((i, c)) {
            out.push(c);
            continue;
        }
        // Stand-ins of one, two, three and four bytes.
        out.push(match c.len_utf8() {
            1 => '?',
            2 => '\u{bf}',
            3 => '\u{fffd}',
            _ => '\u{1d5b7}',
        });
    }
    Cow::Owned(out)
}

/// A path in a patch header, quoted as git quotes it when it holds anything but plain printable
/// ASCII: in double quotes, with `"`, `\` and control bytes escaped and other bytes in octal, so
/// that no name can end the header line or be read as another.
pub fn patch_path(path: &str) -> Cow<'_, str> {
    let plain = |b: u8| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\';
    if path.bytes().all(plain) {
        return Cow::Borrowed(path);
    }
    let mut out = String::from("\"");
    for b in path.bytes() {
        match b {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b if plain(b) => out.push(b as char),
            b => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out.push('"');
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_text_holds_no_line_break_control_or_bidi() {
        let hostile = "a\nb\r\n::error::x\t\u{1b}[2J\u{202e}cba\u{85}\u{2028}";
        let shown = inline(hostile);
        assert_eq!(
            shown,
            "a\\nb\\r\\n::error::x\\t\\u{1b}[2J\\u{202e}cba\\u{85}\\u{2028}"
        );
        assert!(!shown.chars().any(unsafe_char));
        assert!(matches!(inline("plain `x` é"), Cow::Borrowed(_)));
    }

    #[test]
    fn guarded_lines_start_no_command() {
        assert_eq!(guard_line("  ::error::x"), "  \\u{3a}:error::x");
        assert_eq!(guard_line("a ::error::x"), "a ::error::x");
        assert_eq!(guard_line("x ##[error]y"), "x #\\u{23}[error]y");
        assert_eq!(guard_line("a\u{200b}b\r"), "a\\u{200b}b\r");
        assert_eq!(guard_line("\t::x"), "\t\\u{3a}:x");
        assert!(matches!(guard_line("plain # [x] ::"), Cow::Borrowed(_)));
        assert_eq!(inline("a##[b\u{feff}"), "a#\\u{23}[b\\u{feff}");
    }

    #[test]
    fn a_guard_judges_whole_lines_and_keeps_colours() {
        use codespan_reporting::term::termcolor::{Ansi, NoColor};
        use std::io::Write;
        let mut plain = NoColor::new(Vec::new());
        {
            let mut guard = Guard::new(&mut plain);
            write!(guard, " :").expect("write");
            write!(guard, ":stop-commands::x\nok #").expect("write");
            write!(guard, "#[error]\nlast").expect("write");
            guard.finish().expect("finish");
        }
        assert_eq!(
            String::from_utf8(plain.into_inner()).expect("utf-8"),
            " \\u{3a}:stop-commands::x\nok #\\u{23}[error]\nlast"
        );
        let mut coloured = Ansi::new(Vec::new());
        {
            let mut guard = Guard::new(&mut coloured);
            guard
                .set_color(ColorSpec::new().set_bold(true))
                .expect("colour");
            write!(guard, "error").expect("write");
            guard.reset().expect("reset");
            writeln!(guard, ": fine").expect("write");
        }
        let shown = String::from_utf8(coloured.into_inner()).expect("utf-8");
        assert!(
            shown.contains("\u{1b}[0m\u{1b}[1m") || shown.contains("\u{1b}[1m"),
            "{shown:?}"
        );
        assert!(shown.ends_with(": fine\n"), "{shown:?}");
    }

    #[test]
    fn machine_output_keeps_its_value() {
        let json = serde_json::to_vec(&serde_json::json!({"m": "a ##[error] b"})).expect("json");
        let out = machine_output(json, false);
        assert!(!out.windows(3).any(|w| w == b"##["));
        let back: serde_json::Value = serde_json::from_slice(&out).expect("json");
        assert_eq!(back["m"], "a ##[error] b");
        assert_eq!(
            machine_output(b"<a x=\"##[\"/>".to_vec(), true),
            b"<a x=\"#&#35;[\"/>"
        );
    }

    #[test]
    fn lines_keep_only_the_breaks_between_them() {
        assert_eq!(lines("one \u{202e}\ntwo\r"), "one \\u{202e}\ntwo\\r");
    }

    #[test]
    fn source_text_keeps_byte_offsets() {
        let text = "let s = \"\u{202e}\u{1b}\u{85}\u{61c}\";\r\nx\ry\n";
        let shown = source_text(text);
        assert_eq!(shown.len(), text.len());
        assert!(shown.ends_with("\r\nx?y\n"), "{shown:?}");
        assert!(!shown.chars().any(|c| invisible_control(c) || c == '\u{1b}'));
    }

    #[test]
    fn patch_paths_are_quoted_as_git_quotes_them() {
        assert_eq!(patch_path("src/main.rs"), "src/main.rs");
        assert_eq!(patch_path("a\nb/c \"d\".rs"), "\"a\\nb/c \\\"d\\\".rs\"");
        assert_eq!(patch_path("é.rs"), "\"\\303\\251.rs\"");
    }
}
