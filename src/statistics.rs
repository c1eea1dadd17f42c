//! `--statistics`: the count of findings per rule, with how many carry a fix `--fix` (or
//! `--unsafe-fixes`) would apply.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::diagnostic::Applicability;
use crate::engine::LintResult;

/// Write the table of findings per rule, and the total.
pub fn write(out: &mut dyn Write, result: &LintResult) -> io::Result<()> {
    let mut counts: BTreeMap<(&str, &str), (usize, usize, usize)> = BTreeMap::new();
    for d in &result.diagnostics {
        let entry = counts.entry((d.code, d.name)).or_default();
        entry.0 += 1;
        match d.fix.as_ref().map(|f| f.applicability) {
            Some(Applicability::Safe) => entry.1 += 1,
            Some(Applicability::Unsafe) => entry.2 += 1,
            _ => {}
        }
    }
    writeln!(
        out,
        "{:>5}  {:<7} {:<25} {:>5} {:>7}",
        "Count", "Code", "Name", "Safe", "Unsafe"
    )?;
    for ((code, name), (count, safe, unsafe_)) in &counts {
        writeln!(
            out,
            "{count:>5}  {code:<7} {name:<25} {safe:>5} {unsafe_:>7}"
        )?;
    }
    let total: usize = counts.values().map(|c| c.0).sum();
    let safe: usize = counts.values().map(|c| c.1).sum();
    writeln!(out, "{total:>5}  total; {safe} fixable with --fix")
}
