//! No finding depends on words in comments or in string literals that the program never reads.
//!
//! Every fixture under `tests/fixtures/` (every rule's, files and directories alike) is linted
//! three times with all rules, as `tests/fixtures.rs` lints it (one unit, its own
//! `mcp-lint.toml`), with the changed texts handed to the engine as an overlay (nothing is
//! written to disk):
//!
//! - (a) as it is;
//! - (b) with every comment blanked (line, block and doc comments: `//`, `/* */`, `///`, `//!`,
//!   `/** */`), each character replaced by a space and line breaks kept, so every line and column
//!   stays where it was; suppression comments (`// mcp-lint: ..`) are directives, not words, and
//!   stay;
//! - (c) with decoys that change nothing the program does and move no line or column: a comment
//!   holding words of MCP code at the end of each line that ends in code (most lines of function
//!   bodies) and in place of each blank line, and, after the last line, comments, doc comments
//!   (`///`, `/** */`, and `///initialize`-like lines whose whole text is a method name) and
//!   private constants and statics that nothing reads, holding the words as strings (one string of
//!   them all, a raw-string JSON-RPC request, a list of single-word strings, one static per word).
//!
//! The findings (file, line, column, code) of (b) and (c) must be those of (a). Not decoys, by
//! design: a string literal that code compares a method with (`"ping" =>`, `method == "ping"`) or
//! sends (`json!({"jsonrpc": "2.0", ..})`), which is behaviour, and `//!` lines, which can only
//! open a file (they would move its lines; (b) blanks those the fixtures hold).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cargo_mcp_lint::config::{self, Settings};
use cargo_mcp_lint::engine::{self, Overlay};
use cargo_mcp_lint::fix;
use cargo_mcp_lint::lexical::{self, Region};

mod support;

/// Words of code that serves MCP, over stdio or not: what a check that reads words would take
/// for the program.
const TRIGGER_WORDS: &[&str] = &[
    "StdioTransport::new()",
    "stdio()",
    "serve(stdio())",
    "std::io::stdin().lines()",
    "read_line",
    "println!(\"hi\")",
    "tracing_subscriber::fmt().init()",
    "\"jsonrpc\": \"2.0\"",
    "initialize",
    "tools/list",
    "notifications/cancelled",
    "notifications/initialized",
    "ping",
    "\"id\": null",
    "-32601",
    "McpError::internal_error(\"cancelled\", None)",
    "rmcp::",
    "ServerHandler",
    "is_cancelled()",
    "cancelled().await",
];

/// Single words, each a whole string literal (or a whole doc comment line): a check that
/// compares a literal's value with a method name sees them as such.
const WHOLE_LITERALS: &[&str] = &[
    "jsonrpc",
    "2.0",
    "initialize",
    "initialized",
    "tools/list",
    "tools/call",
    "ping",
    "notifications/cancelled",
    "notifications/initialized",
    "notifications/progress",
    "id",
    "method",
];

/// A JSON-RPC request, in a raw string that nothing reads.
const RAW_MESSAGE: &str = r#"{"jsonrpc":"2.0","method":"initialize","id":1}"#;

/// The text with every comment blanked (each character a space, newlines kept) but the
/// suppression comments.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (region, range) in lexical::regions(text) {
        let piece = &text[range];
        let blank = match region {
            Region::LineComment => !piece.contains("mcp-lint:"),
            Region::BlockComment => true,
            Region::Code | Region::Literal => false,
        };
        if blank {
            out.extend(piece.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        } else {
            out.push_str(piece);
        }
    }
    out
}

/// The `n`th comment put on a line: a line comment or a block comment, holding one word (a
/// blank line gets them all).
fn decoy_comment(n: usize, blank: bool) -> String {
    let word = TRIGGER_WORDS[n % TRIGGER_WORDS.len()];
    match (blank, n % 2) {
        (true, _) => format!("// {word} {}", TRIGGER_WORDS.join(" ")),
        (false, 0) => format!(" // {word}"),
        (false, _) => format!(" /* {word} */"),
    }
}

/// The lines whose line break lies in code (not in a literal or a block comment) and that hold
/// no line comment: where a comment can go at the end, or, on a blank line, in place of the
/// blanks, without moving anything. Each as (start, end without the line break, blank).
fn lines_ending_in_code(text: &str) -> Vec<(usize, usize, bool)> {
    let mut breaks_in_code = BTreeSet::new();
    let mut comment_ends = BTreeSet::new();
    for (region, range) in lexical::regions(text) {
        match region {
            Region::Code => breaks_in_code.extend(
                text[range.clone()]
                    .match_indices('\n')
                    .map(|(at, _)| range.start + at),
            ),
            Region::LineComment => {
                comment_ends.insert(range.end);
            }
            Region::BlockComment | Region::Literal => {}
        }
    }
    let mut lines = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let end = start + body.len();
        let line_break = start + line.len() - 1;
        let in_code = line.ends_with('\n') && breaks_in_code.contains(&line_break);
        if in_code && !comment_ends.contains(&end) && !comment_ends.contains(&line_break) {
            lines.push((start, end, body.trim().is_empty()));
        }
        start += line.len();
    }
    lines
}

/// What is appended after a file's last line: comments, doc comments and unused items that
/// hold the words.
fn appendix() -> String {
    let all = TRIGGER_WORDS.join(" ");
    let mut out = String::from("\n");
    out += &format!("// {all}\n/* {all} */\n");
    out += &format!("/// {all}\n/** {all} */\n");
    for word in WHOLE_LITERALS {
        out += &format!("///{word}\n");
    }
    out += "#[allow(dead_code)]\nstruct Decoy;\n";
    out += &format!(
        "#[allow(dead_code)]\nconst DECOY_TEXT: &str = {all:?};\n\
         #[allow(dead_code)]\nconst DECOY_RAW: &str = r#\"{RAW_MESSAGE}\"#;\n\
         #[allow(dead_code)]\nconst DECOY_WORDS: &[&str] = &{WHOLE_LITERALS:?};\n"
    );
    for (n, word) in WHOLE_LITERALS.iter().enumerate() {
        out += &format!("#[allow(dead_code)]\nstatic DECOY_{n}: &str = {word:?};\n");
    }
    out
}

/// The text with decoys: a comment at the end of each line that ends in code, in place of the
/// blanks of each blank line, and the appendix after the last line. No line or column of code
/// moves.
fn with_decoys(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut at = 0;
    for (n, (start, end, blank)) in lines_ending_in_code(text).into_iter().enumerate() {
        let from = if blank { start } else { end };
        out.push_str(&text[at..from]);
        out.push_str(&decoy_comment(n, blank));
        at = end;
    }
    out.push_str(&text[at..]);
    out.push_str(&appendix());
    out
}

/// A fixture: a file, or a directory linted as one crate.
struct Fixture {
    path: PathBuf,
    files: Vec<PathBuf>,
    settings: Settings,
}

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn is_fixed_file(path: &Path) -> bool {
    path.to_string_lossy().ends_with(".fixed.rs")
}

fn rust_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut out = Vec::new();
    for entry in std::fs::read_dir(path).expect("fixture directory is readable") {
        let path = entry.expect("fixture entry is readable").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") && !is_fixed_file(&path) {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every fixture of every rule (`tests/fixtures/<rule>/<fixture>`), as `tests/fixtures.rs`
/// finds them.
fn all_fixtures() -> Vec<Fixture> {
    let mut paths = Vec::new();
    for rule in std::fs::read_dir(fixtures_root()).expect("the fixtures root is readable") {
        let rule = rule.expect("readable entry").path();
        if !rule.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&rule).expect("a rule's fixtures are readable") {
            let path = entry.expect("readable entry").path();
            let rust = path.extension().is_some_and(|e| e == "rs") && !is_fixed_file(&path);
            if path.is_dir() || rust {
                paths.push(path);
            }
        }
    }
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let config = path.join("mcp-lint.toml");
            let settings = if path.is_dir() && config.is_file() {
                config::load(&path, Some(&config)).expect("the fixture's configuration loads")
            } else {
                Settings::default()
            };
            Fixture {
                files: rust_files(&path),
                path,
                settings,
            }
        })
        .collect()
}

/// A finding as compared: file (relative to the fixtures root), line, column, code.
type Finding = (String, usize, usize, String);

/// The findings of a fixture linted with `change` applied to each of its (UTF-8) files, and
/// their messages.
fn findings(fixture: &Fixture, change: Option<fn(&str) -> String>) -> (BTreeSet<Finding>, String) {
    let mut overlay = Overlay::new();
    if let Some(change) = change {
        for file in &fixture.files {
            let bytes = std::fs::read(file).expect("fixture is readable");
            // A file that is not UTF-8 (MCP000's) is linted as it is.
            if let Ok(text) = String::from_utf8(bytes) {
                overlay.insert(file.clone(), change(&text));
            }
        }
    }
    let unit = support::unit(
        "fixture",
        fixture
            .files
            .iter()
            .map(|p| support::unit_file(p))
            .collect(),
    );
    let result = engine::lint_with(&[unit], Path::new("/"), &overlay, &fixture.settings);
    let root = fixtures_root();
    let mut found = BTreeSet::new();
    let mut messages = String::new();
    for d in &result.diagnostics {
        let source = result.sources.get(d.file).expect("diagnostic file exists");
        let at = source.line_column(d.span.start);
        let file = source
            .path
            .strip_prefix(&root)
            .unwrap_or(&source.path)
            .to_string_lossy()
            .replace('\\', "/");
        messages += &format!(
            "      {file}:{}:{}: {} {}\n",
            at.line, at.column, d.code, d.message
        );
        found.insert((file, at.line, at.column, d.code.to_string()));
    }
    (found, messages)
}

/// The fixture's name, relative to the fixtures root.
fn name(fixture: &Fixture) -> String {
    fixture
        .path
        .strip_prefix(fixtures_root())
        .unwrap_or(&fixture.path)
        .display()
        .to_string()
}

/// How a change (b or c) changed a fixture's findings, if it did.
fn compare(
    fixture: &Fixture,
    (original, original_messages): &(BTreeSet<Finding>, String),
    (what, change): Change,
) -> Option<String> {
    let (changed, changed_messages) = findings(fixture, Some(change));
    if *original == changed {
        return None;
    }
    let mut report = format!("{} with {what}:\n", name(fixture));
    for lost in original.difference(&changed) {
        report += &format!("  lost   {lost:?}\n");
    }
    for gained in changed.difference(original) {
        report += &format!("  gained {gained:?}\n");
    }
    report += &format!("    original:\n{original_messages}    changed:\n{changed_messages}");
    Some(report)
}

/// A change of a fixture's text, by name.
type Change = (&'static str, fn(&str) -> String);

const CHANGES: [Change; 2] = [
    ("comments blanked", without_comments),
    ("decoys", with_decoys),
];

#[test]
fn no_finding_depends_on_comments_or_unread_string_literals() {
    let fixtures = all_fixtures();
    assert!(fixtures.len() > 100, "{} fixtures", fixtures.len());
    let mut failures = Vec::new();
    for fixture in &fixtures {
        let original = findings(fixture, None);
        failures.extend(
            CHANGES
                .iter()
                .filter_map(|change| compare(fixture, &original, *change)),
        );
    }
    assert!(
        failures.is_empty(),
        "{} differences:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The changes are what they claim: they keep every line and column of the code, keep the
/// suppressions, parse wherever the original does, and reach the fixtures (comments to blank,
/// lines of function bodies to put comments on).
#[test]
fn the_changes_keep_the_code_and_reach_every_fixture() {
    let mut blanked_files = 0;
    // Lines given a comment, and those of them in a block (a function's body, mostly).
    let mut filled_lines = 0;
    let mut filled_in_bodies = 0;
    let mut problems = Vec::new();
    for fixture in all_fixtures() {
        for file in &fixture.files {
            let Ok(text) = std::fs::read_to_string(file) else {
                continue;
            };
            let shown = file.display();
            let blanked = without_comments(&text);
            let decoyed = with_decoys(&text);
            blanked_files += usize::from(blanked != text);
            let bodies = function_bodies(&text);
            let decoyed_lines: Vec<usize> = lines_ending_in_code(&text)
                .iter()
                .map(|(start, _, _)| text[..*start].matches('\n').count() + 1)
                .collect();
            filled_lines += decoyed_lines.len();
            filled_in_bodies += decoyed_lines
                .iter()
                .filter(|line| bodies.iter().any(|(a, b)| a <= *line && *line < b))
                .count();
            let lines = |t: &str| t.lines().map(|l| l.chars().count()).collect::<Vec<_>>();
            if lines(&blanked) != lines(&text) {
                problems.push(format!("{shown}: blanking the comments moved a line"));
            }
            if text.contains("mcp-lint:") && !blanked.contains("mcp-lint:") {
                problems.push(format!("{shown}: a suppression comment was blanked"));
            }
            let kept = text
                .lines()
                .zip(decoyed.lines())
                .all(|(a, b)| b.starts_with(a) || a.trim().is_empty());
            if !kept {
                problems.push(format!("{shown}: the decoys changed a line of code"));
            }
            if fix::parses(&text) && !(fix::parses(&blanked) && fix::parses(&decoyed)) {
                problems.push(format!("{shown}: a changed text does not parse"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(blanked_files > 100, "{blanked_files} files had comments");
    assert!(filled_lines > 2000, "{filled_lines} lines given a comment");
    assert!(
        filled_in_bodies > 1000,
        "{filled_in_bodies} lines of function bodies given a comment"
    );
}

/// The lines (1-based) where a text's blocks (functions' bodies and the blocks in them) open and
/// close.
fn function_bodies(text: &str) -> Vec<(usize, usize)> {
    use syn::visit::Visit;
    struct Bodies(Vec<(usize, usize)>);
    impl<'ast> Visit<'ast> for Bodies {
        fn visit_block(&mut self, block: &'ast syn::Block) {
            let braces = &block.brace_token.span;
            self.0
                .push((braces.open().start().line, braces.close().start().line));
            syn::visit::visit_block(self, block);
        }
    }
    let mut bodies = Bodies(Vec::new());
    if let Ok(file) = syn::parse_file(text) {
        bodies.visit_file(&file);
    }
    bodies.0
}
