//! Every output channel of the binary keeps its grammar whatever text the linted tree holds
//! (issue 30): arbitrary strings put into a file name, a string literal, a comment beside a
//! fixable send, a configuration value and a workspace member's directory name reach the human
//! and concise reports, `--diff`, `--show-settings`, GitHub annotations and stderr, and none of
//! them prints a line a CI runner takes for a command (one that starts, after its blanks, with
//! `::`, or any `##[`), a raw control, or an invisible character. Only `--format github` (and the
//! annotations printed under GitHub Actions) start lines with `::`, one per finding.

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use proptest::prelude::*;

mod support;

fn hostile_piece() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "a",
        "b",
        " ",
        ".",
        "-",
        "\n",
        "\r",
        "\t",
        "\u{7}",
        "\u{1b}[2J",
        "\u{85}",
        "\u{202e}",
        "\u{2066}",
        "\u{200b}",
        "\u{2060}",
        "\u{feff}",
        "\u{e0041}",
        "%",
        ",",
        ":",
        "'",
        "<",
        "&",
        "[",
        "]",
        "#",
        "é",
        "::",
        "##[",
        "::error file=x.rs,line=1::Forged",
        "##[error]Forged",
        "##[stop-commands]x",
        "\n::stop-commands::t\n",
        "\n  ::warning::w",
    ])
}

fn hostile_text() -> impl Strategy<Value = String> {
    prop::collection::vec(hostile_piece(), 1..8).prop_map(|p| p.concat())
}

/// A name the file system takes: no `/`, no NUL, not `.` or `..`, not too long.
fn file_name(text: &str) -> String {
    let name: String = text
        .chars()
        .filter(|c| *c != '/' && *c != '\0')
        .take(40)
        .collect();
    if name.is_empty() || name == "." || name == ".." {
        format!("x{name}")
    } else {
        name
    }
}

/// A Rust string literal's body holding `text` (quotes and backslashes escaped, the rest raw).
fn literal(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A block comment holding `text` on lines of its own, as it is (each of its lines starts a line
/// of the file), and a line comment holding it.
fn comment(text: &str) -> String {
    let line: String = text.chars().filter(|c| !matches!(c, '\n' | '\r')).collect();
    format!("/*\n{}\n*/\n    // {line}\n", text.replace("*/", "* /"))
}

fn is_invisible(c: char) -> bool {
    matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200b}'..='\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{2060}'..='\u{2064}' | '\u{feff}' | '\u{e0000}'..='\u{e0fff}')
}

/// One channel's text: no raw control but line breaks and tabs (and the carriage return of a
/// CRLF), nothing invisible, no `##[`, and no line that starts with `::` unless `annotations`
/// allows it, and then only an annotation this tool writes.
fn check(channel: &str, text: &str, annotations: bool) -> Result<(), TestCaseError> {
    for line in text.lines() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        for c in line.chars() {
            prop_assert!(
                c == '\t' || !(c.is_control() || is_invisible(c)),
                "{channel}: {c:?} in {line:?}"
            );
        }
        prop_assert!(!line.contains("##["), "{channel}: {line:?}");
        if line.trim_start().starts_with("::") {
            prop_assert!(
                annotations
                    && ["::error file=", "::warning file=", "::notice file="]
                        .iter()
                        .any(|p| line.starts_with(p)),
                "{channel}: {line:?}"
            );
        }
    }
    Ok(())
}

fn run(dir: &Path, args: &[&str], github: bool) -> (String, String) {
    let mut command = Command::cargo_bin("cargo-mcp-lint").expect("binary");
    command.current_dir(dir).args(args).env_remove("CARGO");
    if github {
        command.env("GITHUB_ACTIONS", "true");
    } else {
        command.env_remove("GITHUB_ACTIONS");
    }
    let output = command.output().expect("runs");
    let code = output.status.code();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(
        matches!(code, Some(0..=2)) && !stderr.contains("panicked"),
        "{args:?}: {code:?} {stderr}"
    );
    (String::from_utf8_lossy(&output.stdout).into_owned(), stderr)
}

/// The tree of one case: a package whose member directory, file name, a method literal, a comment
/// beside a fixable send and a vocabulary word of its configuration hold the case's texts.
fn tree(dir: &Path, name: &str, method: &str, remark: &str, word: &str) {
    let write = |path: &Path, text: &str| {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    let member = dir.join("crates").join(file_name(name));
    write(
        &dir.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n",
    );
    write(
        &member.join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    let source = format!(
        "pub struct S {{\n    out: std::sync::mpsc::Sender<String>,\n}}\nimpl S {{\n    fn send_error(&self, id: u64, c: i64, m: &str) {{\n        let _ = self.out.send(format!(\"{{id}} {{c}} {{m}}\"));\n    }}\n    pub fn method(&self) -> &'static str {{\n        \"{}\"\n    }}\n    pub fn on_cancelled(&self, id: u64) {{\n{}        self.send_error(id, -32800, \"Request cancelled\");\n{}    }}\n}}\n",
        literal(method),
        comment(remark),
        comment(remark),
    );
    write(
        &member.join("src/lib.rs"),
        "mod server;\npub use server::*;\n",
    );
    write(&member.join("src/server.rs"), &source);
    write(&member.join(format!("src/{}.rs", file_name(name))), &source);
    let word = toml::Value::String(word.to_string()).to_string();
    write(
        &dir.join("mcp-lint.toml"),
        &format!("[vocabulary]\nsink-calls = [{word}]\n"),
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn no_channel_prints_what_the_tree_forges(
        name in hostile_text(),
        method in hostile_text(),
        remark in hostile_text(),
        word in hostile_text(),
    ) {
        let dir = tempfile::tempdir().expect("temp dir");
        tree(dir.path(), &name, &method, &remark, &word);
        let member = format!("crates/{}", file_name(&name));
        let runs: [(&str, Vec<&str>, bool); 6] = [
            ("human (GitHub Actions)", vec!["--no-cache", "."], true),
            ("concise", vec!["--no-cache", "--format", "concise", "."], false),
            ("diff", vec!["--no-cache", "--diff", "--unsafe-fixes", "."], false),
            ("show-settings", vec!["--show-settings"], false),
            ("cargo mode", vec!["mcp-lint", "--no-cache", "--workspace"], false),
            ("github", vec!["--no-cache", "--format", "github", member.as_str()], false),
        ];
        for (channel, args, github) in runs {
            let (stdout, stderr) = run(dir.path(), &args, github);
            let annotations = github || channel == "github";
            check(&format!("{channel} stdout"), &stdout, annotations)?;
            check(&format!("{channel} stderr"), &stderr, false)?;
        }
    }
}

/// The attacks of the issue, each as it was written there, reach no channel.
#[test]
fn the_issues_forgeries_reach_no_channel() {
    let dir = tempfile::tempdir().expect("temp dir");
    tree(
        dir.path(),
        "::error file=auth.rs,line=1::X",
        "notifications/##[error file=src/auth.rs;line=1]Forged",
        "\n::error file=src/auth.rs,line=1::Forged\n",
        "a\n::error::forged",
    );
    for (args, github) in [
        (&["--no-cache", "."][..], true),
        (&["--no-cache", "--format", "concise", "."][..], false),
        (&["--no-cache", "--diff", "--unsafe-fixes", "."][..], false),
        (&["--show-settings"][..], false),
    ] {
        let (stdout, stderr) = run(dir.path(), args, github);
        for (channel, text) in [("stdout", &stdout), ("stderr", &stderr)] {
            for line in text.lines() {
                assert!(!line.contains("##["), "{args:?} {channel}: {line:?}");
                assert!(
                    !line.trim_start().starts_with("::")
                        || (github && line.starts_with("::error file=")),
                    "{args:?} {channel}: {line:?}"
                );
            }
        }
        if args.contains(&"--diff") {
            assert!(stdout.contains("\\u{3a}:error"), "{stdout}");
        }
    }
}

/// Zero-width characters in a file name are shown as their escapes in every format for people.
#[test]
fn zero_width_characters_in_names_are_shown_escaped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let name = "a\u{200b}b\u{feff}c\u{2060}.rs";
    std::fs::write(
        dir.path().join(name),
        "pub fn on_cancelled(&self, id: u64) {\n    self.send_error(id, -32800, \"Request cancelled\");\n}\n",
    )
    .expect("write");
    for format in ["human", "concise", "github"] {
        let (stdout, _) = run(dir.path(), &["--no-cache", "--format", format, "."], false);
        assert!(
            stdout.contains("a\\u{200b}b\\u{feff}c\\u{2060}.rs"),
            "{format}: {stdout}"
        );
    }
    let _ = support::host;
}
