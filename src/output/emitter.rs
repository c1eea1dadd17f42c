//! What every format is: an [`Emitter`] of a run's report; and the escaping of the tree's text
//! that the formats share.

use std::io;

use codespan_reporting::term::termcolor::WriteColor;

use crate::report::Report;

/// Source text for a terminal: see [`crate::escape::source_text`] (byte offsets stay valid).
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    crate::escape::source_text(text)
}

/// Text that must stay on one line (a path, a message): see [`crate::escape::inline`].
pub fn single_line_safe(text: &str) -> String {
    crate::escape::inline(text).into_owned()
}

/// Writes a run's result in one format.
pub trait Emitter {
    fn emit(&self, report: &Report<'_>, out: &mut dyn WriteColor) -> io::Result<()>;
}
