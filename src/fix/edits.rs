//! The edit helpers, where the fixer has always found them: they live in [`crate::edits`], below
//! the rules, which build their fixes with them.

pub use crate::edits::{apply_edits, overlaps, removal_edit};
