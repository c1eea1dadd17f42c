//! `--statistics`: the count of findings per rule, with how many carry a fix `--fix` (or
//! `--unsafe-fixes`) would apply.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::diagnostic::Applicability;
use crate::result::LintResult;

/// One rule's line: its findings, and how many of them carry a safe or an unsafe fix.
#[derive(Debug, Default, serde::Serialize)]
pub struct RuleCount {
    pub code: &'static str,
    pub name: &'static str,
    pub count: usize,
    pub safe_fixes: usize,
    pub unsafe_fixes: usize,
}

/// The findings per rule, in code order.
pub fn counts(result: &LintResult) -> Vec<RuleCount> {
    let mut counts: BTreeMap<(&'static str, &'static str), RuleCount> = BTreeMap::new();
    for d in &result.diagnostics {
        let entry = counts.entry((d.code, d.name)).or_insert_with(|| RuleCount {
            code: d.code,
            name: d.name,
            ..RuleCount::default()
        });
        entry.count += 1;
        match d.fix.as_ref().map(|f| f.applicability) {
            Some(Applicability::Safe) => entry.safe_fixes += 1,
            Some(Applicability::Unsafe) => entry.unsafe_fixes += 1,
            _ => {}
        }
    }
    counts.into_values().collect()
}

/// Write the table of findings per rule, and the total.
pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let counts = counts(result);
    writeln!(
        out,
        "{:>5}  {:<7} {:<26} {:>5} {:>7}",
        "Count", "Code", "Name", "Safe", "Unsafe"
    )?;
    for c in &counts {
        writeln!(
            out,
            "{:>5}  {:<7} {:<26} {:>5} {:>7}",
            c.count, c.code, c.name, c.safe_fixes, c.unsafe_fixes
        )?;
    }
    let total: usize = counts.iter().map(|c| c.count).sum();
    let safe: usize = counts.iter().map(|c| c.safe_fixes).sum();
    writeln!(out, "{total:>5}  total; {safe} fixable with --fix")
}

/// `--statistics --format json`: the same counts as a JSON array, one object per rule (`code`,
/// `name`, `count`, `safe_fixes`, `unsafe_fixes`).
pub fn write_json(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &counts(result)).map_err(io::Error::other)?;
    writeln!(out)
}
