//! The README's examples are true: the first console example's output is what the binary
//! prints, the "Try it on a copy" session ends as the text says, and every install line builds
//! with `--locked`.

use std::path::Path;

mod support;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md is readable")
}

/// The fenced `console` blocks of the README.
fn console_blocks(text: &str) -> Vec<Vec<&str>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```console") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), line) => block.push(line),
            (None, _) => {}
        }
    }
    blocks
}

fn run(dir: &Path, args: &[&str]) -> (i32, String, String) {
    support::mcp_lint(dir, args)
}

#[test]
fn the_first_example_prints_what_the_readme_shows() {
    let text = readme();
    let blocks = console_blocks(&text);
    let first = blocks.first().expect("a console example");
    let command = first[0]
        .strip_prefix("$ cargo run --release -- ")
        .expect("the first example runs the tool");
    let args: Vec<&str> = command.split_whitespace().collect();
    let (code, stdout, stderr) = run(Path::new(env!("CARGO_MANIFEST_DIR")), &args);
    assert_eq!(code, 1, "{stderr}");
    // Each shown line is printed, in order (`...` stands for lines left out).
    let mut rest = stdout.as_str();
    for shown in first[1..].iter().filter(|l| l.trim() != "...") {
        let at = rest.find(shown).unwrap_or_else(|| {
            panic!("README line {shown:?} is not in the output, in order:\n{stdout}")
        });
        rest = &rest[at + shown.len()..];
    }
}

#[test]
fn trying_the_fixes_on_a_copy_ends_as_the_readme_says() {
    let text = readme();
    assert!(
        text.contains("One finding is left: the send through the helper `ack_stale_request`"),
        "the README's account of the session changed: update this test"
    );
    let copy = tempfile::tempdir().expect("temp dir");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/seed-server");
    for part in ["Cargo.toml", "Cargo.lock"] {
        std::fs::copy(example.join(part), copy.path().join(part)).expect("copy");
    }
    support::copy_tree(&example.join("src"), &copy.path().join("src"));
    let dir = copy.path().to_str().expect("utf-8 path");
    let (code, _, stderr) = run(
        copy.path(),
        &["mcp-lint", "--preview", "--diff", dir, "--no-cache"],
    );
    assert_eq!(code, 1, "--diff shows changes: {stderr}");
    let (_, _, stderr) = run(
        copy.path(),
        &[
            "mcp-lint",
            "--preview",
            "--fix",
            "--allow-no-vcs",
            dir,
            "--no-cache",
        ],
    );
    assert!(stderr.contains("Applied 4 fixes; 1 left."), "{stderr}");
    let (code, stdout, stderr) = run(copy.path(), &[dir, "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    let left: Vec<&str> = stdout.lines().filter(|l| l.contains("[MCP")).collect();
    assert_eq!(left.len(), 1, "{stdout}");
    assert!(
        left[0].contains("`ack_stale_request` sends a response"),
        "{stdout}"
    );
    let main = std::fs::read_to_string(copy.path().join("src/main.rs")).expect("read");
    assert!(
        main.contains("\"ping\" => self.answer(id, json!({})),"),
        "{main}"
    );
}

#[test]
fn every_install_line_is_locked() {
    let text = readme();
    let installs: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("cargo install "))
        .collect();
    assert!(!installs.is_empty());
    for line in installs {
        assert!(line.contains("--locked"), "{line}");
    }
}
