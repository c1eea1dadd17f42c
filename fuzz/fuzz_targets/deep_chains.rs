//! Deep and long syntax from a grammar: each input picks, link by link, how an expression or a
//! type grows (nested in delimiters, or chained by method calls, fields, `?`, casts, operators,
//! assignments, `return`, `break`, closures, `else if`, fn pointers, raw pointers, `impl Fn`),
//! each link repeated up to thousands of times (up to 32 KB of text in all), so that a few bytes
//! describe the shapes that exhaust a parser's stack or an analysis's time. The run must end (libFuzzer's timeout), never
//! overflow the stack (an abort is a crash), and report either findings or the file as too deep
//! (MCP000), never an internal error (MCP999).
#![no_main]

use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::Settings;
use cargo_mcp_lint::engine::{lint_with, LintUnit, Overlay, UnitFile};
use libfuzzer_sys::fuzz_target;

/// The expression productions: text before and after the inner expression.
const EXPRS: &[(&str, &str)] = &[
    ("(", ")"),
    ("[", "]"),
    ("{ ", " }"),
    ("", ".a()"),
    ("", ".f"),
    ("", "?"),
    ("", " as u8"),
    ("x = ", ""),
    ("return ", ""),
    ("break 'a ", ""),
    ("!", ""),
    ("-", ""),
    ("&", ""),
    ("*", ""),
    ("", " + 1"),
    ("|| ", ""),
    ("if a { ", " } else { 1 }"),
    ("if a { 1 } else if b { ", " } else { 2 }"),
    ("", ".0"),
    ("", "()"),
    ("", "[0]"),
    ("m!(", ")"),
    ("", ".await"),
    ("json!({\"id\": ", "})"),
    ("self.send_error(", ", -32800, \"x\")"),
];

/// The type productions.
const TYPES: &[(&str, &str)] = &[
    ("fn() -> ", ""),
    ("*const ", ""),
    ("&'a ", ""),
    ("Vec<", ">"),
    ("(", ",)"),
    ("[", "; 1]"),
    ("Box<dyn Fn() -> ", ">"),
    ("Option<", ">"),
];

/// The most text one input grows. Every file the depth limits let through is smaller: each link
/// below adds at least one unit to the 2,048-unit chain measure or one of the 256 levels of
/// nesting, and no link is longer than 6 bytes a unit (`.await`) or 17 bytes a level of generic
/// nesting, so a file under the limits holds at most about 17 KB of links (the longest found by
/// search, one link repeated: 12 KB of `.await`). Past this a file is only ever too deep, and
/// growing it further costs time without reaching new code.
const MAX_TEXT: usize = 32 * 1024;

fn build(data: &[u8]) -> String {
    let Some((&kind, rest)) = data.split_first() else {
        return String::new();
    };
    let productions = if kind % 2 == 0 { EXPRS } else { TYPES };
    let mut before = String::new();
    // The closing parts, innermost last; joined in reverse at the end.
    let mut after: Vec<String> = Vec::new();
    let mut length = 0;
    for pair in rest.chunks(2) {
        let (before_part, after_part) = productions[pair[0] as usize % productions.len()];
        let wanted = pair
            .get(1)
            .map_or(1, |&b| 1 + (b as usize * b as usize) / 16);
        let link = (before_part.len() + after_part.len()).max(1);
        let times = wanted.min(MAX_TEXT.saturating_sub(length) / link);
        if times == 0 {
            break;
        }
        length += times * link;
        before.push_str(&before_part.repeat(times));
        after.push(after_part.repeat(times));
    }
    let after: String = after.iter().rev().map(String::as_str).collect();
    if kind % 2 == 0 {
        format!("impl S {{\n    pub fn on_cancelled(&self, id: u64) {{\n        'a: loop {{ let v = {before}1{after}; }}\n    }}\n}}\n")
    } else {
        format!("type T<'a> = {before}u8{after};\n")
    }
}

fuzz_target!(|data: &[u8]| {
    let text = build(data);
    let path = PathBuf::from("/fuzz/chains.rs");
    let mut overlay = Overlay::new();
    overlay.insert(path.clone(), text);
    let unit = LintUnit {
        name: "fuzz".into(),
        files: vec![UnitFile {
            path: std::sync::Arc::from(path.as_path()),
            module: std::sync::Arc::from([]),
            owns_directory: true,
        }],
        ..LintUnit::default()
    };
    let mut settings = Settings::default();
    settings.analyse_every_file = true;
    let result = lint_with(&[unit], Path::new("/"), &overlay, &settings);
    for d in &result.diagnostics {
        assert_ne!(d.code, "MCP999", "the analysis panicked: {}", d.message);
    }
});
