//! The fixer end to end: fixed code still compiles, --diff writes nothing, the VCS guard,
//! line endings, BOM and permissions survive, and a file changed meanwhile is not written.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use tempfile::TempDir;

mod support;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            if entry.file_name() != "target" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

fn copy_of(relative: &str) -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join(relative),
        dir.path(),
    );
    dir
}

fn lint(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir)
        .args(args)
        .output()
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `cargo check` of a std-only crate: offline, from its own Cargo.lock.
fn cargo_check(dir: &Path, target_dir: &str) {
    let target = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join(target_dir);
    support::run_ok(
        support::cargo()
            .current_dir(dir)
            .args(["check", "--quiet", "--locked", "--offline", "--target-dir"])
            .arg(target),
    );
}

fn findings(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.contains("[MCP"))
        .map(|l| {
            let head = &l[..l.find("[MCP").unwrap_or(0)];
            head.rsplit_once(": ")
                .map_or("", |(place, _)| place)
                .to_string()
        })
        .collect()
}

#[test]
fn fixing_the_std_only_fixture_crate_keeps_it_compiling() {
    let copy = copy_of("tests/fixture-crates/cancel-server");
    let dir = copy.path();
    cargo_check(dir, "fixture-crate-check");
    let (code, stdout, stderr) = lint(dir, &["--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    // The code 0 is MCP006's, in preview since batches 120 and 121: three MCP001 by default.
    assert_eq!(findings(&stdout).len(), 3, "three MCP001: {stdout}");

    // Safe fixes: the seed bug and the dispatch-arm reply go; the send whose argument is a
    // method call (unsafe) stays.
    let (code, stdout, stderr) = lint(dir, &["--fix", "--allow-no-vcs", "--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(findings(&stdout), vec!["src/main.rs:34:29"], "{stdout}");
    assert!(stderr.contains("Applied 2 fixes"), "{stderr}");
    cargo_check(dir, "fixture-crate-check");
    let responder = std::fs::read_to_string(dir.join("src/responder.rs")).expect("read");
    assert!(!responder.contains("self.send_error(0, \"Request cancelled\");"));
    assert!(
        responder.contains("self.completed.store(true, Ordering::SeqCst);\n    }"),
        "{responder}"
    );

    // Unsafe fixes on request.
    let (code, stdout, stderr) = lint(
        dir,
        &[
            "--fix",
            "--unsafe-fixes",
            "--allow-no-vcs",
            "--format",
            "concise",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(findings(&stdout).is_empty(), "{stdout}");
    cargo_check(dir, "fixture-crate-check");
}

#[test]
fn fixing_the_example_removes_the_direct_sends_and_unsafe_fixes_remove_the_helper_call() {
    let copy = copy_of("examples/seed-server");
    let dir = copy.path();
    let (code, stdout, stderr) = lint(
        dir,
        &["--fix", "--allow-no-vcs", ".", "--format", "concise"],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    let left = findings(&stdout);
    assert_eq!(
        left,
        vec!["src/main.rs:85:25"],
        "only the helper-mediated send is left: {stdout}"
    );
    let main = std::fs::read_to_string(dir.join("src/main.rs")).expect("read");
    assert!(
        !main.contains("\"tool call cancelled\""),
        "the select! arm send is gone"
    );
    assert!(
        main.contains(
            "\"ping\" => self.answer(id, json!({})),\n            _ => self.answer_err(id, -32601"
        ),
        "ping is answered: {main}"
    );
    assert!(
        main.contains("eprintln!(\"seed-server {} ready on stdio\""),
        "the banner goes to stderr: {main}"
    );
    let responder = std::fs::read_to_string(dir.join("src/responder.rs")).expect("read");
    assert!(
        !responder.contains("self.send_error(0, \"Request cancelled\");"),
        "the seed bug is gone"
    );

    let (_, human, _) = lint(dir, &[".", "--color", "never"]);
    assert!(
        human.contains(
            "remove the call to `ack_stale_request` (unsafe fix: --fix --unsafe-fixes applies it)"
        ),
        "{human}"
    );
    cargo_check(dir, "seed-server-check");

    // The helper's only effect is the send: with unsafe fixes its call goes too. Nothing is left
    // (the error code 0 of MCP006 was the seed bug's send, removed by the first run).
    let (code, stdout, stderr) = lint(
        dir,
        &[
            "--fix",
            "--unsafe-fixes",
            "--allow-no-vcs",
            ".",
            "--format",
            "concise",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("Applied 1 fix"), "{stderr}");
    let main = std::fs::read_to_string(dir.join("src/main.rs")).expect("read");
    assert!(!main.contains("transport::ack_stale_request("), "{main}");
    assert!(
        main.contains(
            "eprintln!(\"seed-server: client cancelled request {request_id}: {reason}\");"
        ),
        "what the arm does besides the send stays: {main}"
    );
    cargo_check(dir, "seed-server-check");
}

#[test]
fn diff_prints_the_change_and_writes_nothing() {
    let copy = copy_of("examples/seed-server");
    let dir = copy.path();
    let before = std::fs::read(dir.join("src/responder.rs")).expect("read");
    let (code, stdout, stderr) = lint(dir, &["--diff", "."]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("--- a/src/responder.rs\n+++ b/src/responder.rs\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n-        self.send_error(0, \"Request cancelled\");\n"),
        "{stdout}"
    );
    assert!(stdout.contains("--- a/src/main.rs"), "{stdout}");
    assert_eq!(
        std::fs::read(dir.join("src/responder.rs")).expect("read"),
        before
    );

    // The same change as --fix makes.
    let (_, _, _) = lint(dir, &["--fix", "--allow-no-vcs", "."]);
    let after = std::fs::read_to_string(dir.join("src/responder.rs")).expect("read");
    let expected: String = String::from_utf8(before)
        .expect("utf-8")
        .replace("        self.send_error(0, \"Request cancelled\");\n", "");
    assert_eq!(after, expected);

    let (code, stdout, _) = lint(dir, &["--diff", "."]);
    assert_eq!(code, 0, "nothing left to change");
    assert!(stdout.is_empty(), "{stdout}");
}

#[test]
fn diff_headers_are_relative_to_the_repository_and_coloured_on_request() {
    // Outside a repository, an absolute path: one slash after `a`, as git writes it.
    let copy = copy_of("examples/seed-server");
    let dir = copy.path();
    let absolute = dir.join("src/responder.rs");
    let absolute = absolute.to_str().expect("utf-8 path");
    let elsewhere = tempfile::tempdir().expect("temp dir");
    let (code, stdout, stderr) = lint(elsewhere.path(), &["--diff", absolute]);
    assert_eq!(code, 1, "{stderr}");
    let shown = absolute.trim_start_matches('/');
    assert!(
        stdout.contains(&format!("--- a/{shown}\n+++ b/{shown}\n")),
        "{stdout}"
    );
    assert!(!stdout.contains("a//"), "{stdout}");

    // In a repository, from a subdirectory: relative to the repository's top.
    git(dir, &["init", "-q"]);
    let (_, stdout, _) = lint(&dir.join("src"), &["--diff", "responder.rs"]);
    assert!(
        stdout.contains("--- a/src/responder.rs\n+++ b/src/responder.rs\n"),
        "{stdout}"
    );

    // Coloured when asked: removed lines red, headers bold.
    let (_, stdout, _) = lint(dir, &["--diff", ".", "--color", "always"]);
    assert!(
        stdout.contains("\u{1b}[31m-        self.send_error"),
        "{stdout:?}"
    );
    assert!(
        stdout.contains("\u{1b}[1m--- a/src/responder.rs"),
        "{stdout:?}"
    );
}

const BUGGY: &str = "impl Responder {\n    fn cancel(&self) {\n        self.token.cancel();\n        self.send_error(0, \"Request cancelled\");\n    }\n}\n";

fn git(dir: &Path, args: &[&str]) {
    support::git(dir, args);
}

fn repo() -> TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("server.rs"), BUGGY).expect("write");
    std::fs::write(dir.path().join("clean.rs"), "fn ok() {}\n").expect("write");
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "init"]);
    dir
}

#[test]
fn vcs_guard_refuses_dirty_and_staged_files_and_trees_without_vcs() {
    // Clean: fixes go through; an untracked file that is not to be fixed does not count.
    let clean = repo();
    std::fs::write(clean.path().join("notes.rs"), "fn notes() {}\n").expect("write");
    let (code, _, stderr) = lint(clean.path(), &["--fix", "."]);
    assert_eq!(code, 0, "{stderr}");

    // Dirty: refused, with the file listed; nothing written.
    let dirty = repo();
    let changed = format!("// edited\n{BUGGY}");
    std::fs::write(dirty.path().join("server.rs"), &changed).expect("write");
    let (code, _, stderr) = lint(dirty.path(), &["--fix", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("server.rs (dirty)"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(dirty.path().join("server.rs")).expect("read"),
        changed
    );
    let (code, _, stderr) = lint(dirty.path(), &["--fix", "--allow-dirty", "."]);
    assert_eq!(code, 0, "{stderr}");

    // Staged: refused unless --allow-staged.
    let staged = repo();
    std::fs::write(staged.path().join("server.rs"), &changed).expect("write");
    git(staged.path(), &["add", "server.rs"]);
    let (code, _, stderr) = lint(staged.path(), &["--fix", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("server.rs (staged)"), "{stderr}");
    let (code, _, stderr) = lint(staged.path(), &["--fix", "--allow-staged", "."]);
    assert_eq!(code, 0, "{stderr}");

    // No VCS: refused unless --allow-no-vcs.
    let plain = tempfile::tempdir().expect("temp dir");
    std::fs::write(plain.path().join("server.rs"), BUGGY).expect("write");
    let (code, _, stderr) = lint(plain.path(), &["--fix", "."]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--allow-no-vcs"), "{stderr}");
    let (code, _, stderr) = lint(plain.path(), &["--fix", "--allow-no-vcs", "."]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn exit_non_zero_on_fix() {
    let plain = tempfile::tempdir().expect("temp dir");
    std::fs::write(plain.path().join("server.rs"), BUGGY).expect("write");
    let (code, _, _) = lint(
        plain.path(),
        &["--fix", "--allow-no-vcs", "--exit-non-zero-on-fix", "."],
    );
    assert_eq!(code, 1, "a fix was applied");
    let (code, _, _) = lint(
        plain.path(),
        &["--fix", "--allow-no-vcs", "--exit-non-zero-on-fix", "."],
    );
    assert_eq!(code, 0, "nothing to fix any more");
}

#[cfg(unix)]
#[test]
fn crlf_bom_and_permissions_survive() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let path: PathBuf = dir.path().join("server.rs");
    let text = format!("\u{feff}{}", BUGGY.replace('\n', "\r\n"));
    std::fs::write(&path, &text).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let (code, _, stderr) = lint(dir.path(), &["--fix", "--allow-no-vcs", "."]);
    assert_eq!(code, 0, "{stderr}");
    let fixed = std::fs::read_to_string(&path).expect("read");
    assert_eq!(
        fixed,
        "\u{feff}impl Responder {\r\n    fn cancel(&self) {\r\n        self.token.cancel();\r\n    }\r\n}\r\n"
    );
    let mode = std::fs::metadata(&path).expect("stat").permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .expect("read dir")
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".mcp-lint-fix-")
        })
        .collect();
    assert!(leftovers.is_empty(), "no temporary file is left behind");
}

#[test]
fn a_file_changed_on_disk_meanwhile_is_not_written() {
    use cargo_mcp_lint::discovery::path_mode;
    use cargo_mcp_lint::fix::{self, write, FixOptions};

    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("server.rs");
    std::fs::write(&path, BUGGY).expect("write");
    let units = path_mode::discover(&[dir.path().to_path_buf()]).expect("discover");
    let run = fix::fix(&units, dir.path(), FixOptions::default());
    assert_eq!(run.files.len(), 1);
    let planned = &run.files[0];

    // Someone edits the file between the lint and the write.
    let edited = format!("{BUGGY}// a concurrent edit\n");
    std::fs::write(&path, &edited).expect("write");
    let outcome = write::write_fixed(&planned.path, &planned.original, &planned.fixed, &[]);
    assert!(
        matches!(outcome, Err(write::WriteError::ChangedOnDisk)),
        "{outcome:?}"
    );
    assert_eq!(std::fs::read_to_string(&path).expect("read"), edited);

    // Unchanged: written.
    std::fs::write(&path, BUGGY).expect("write");
    write::write_fixed(&planned.path, &planned.original, &planned.fixed, &[]).expect("written");
    assert_eq!(std::fs::read_to_string(&path).expect("read"), planned.fixed);
}

/// `tracing_subscriber::fmt::init()` reads `RUST_LOG` (with the `env-filter` feature); the builder
/// that replaces it does not, so the replacement is an unsafe fix: applied only when asked for.
/// (MCP002 is in preview: docs/ecosystem.md, batches 38 to 43.)
#[test]
fn the_fmt_init_replacement_is_unsafe() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = "fn main() {\n    tracing_subscriber::fmt::init();\n    let transport = rmcp::transport::stdio();\n    serve(transport);\n}\n";
    std::fs::write(dir.path().join("main.rs"), text).expect("write");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[
            "main.rs",
            "--preview",
            "--fix",
            "--allow-no-vcs",
            "--no-cache",
        ],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("main.rs")).expect("read"),
        text
    );
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[
            "main.rs",
            "--preview",
            "--fix",
            "--unsafe-fixes",
            "--allow-no-vcs",
            "--no-cache",
        ],
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(std::fs::read_to_string(dir.path().join("main.rs"))
        .expect("read")
        .contains("tracing_subscriber::fmt().with_writer(std::io::stderr).init();"));
}

/// Fixes keep rustfmt's layout (issue 14): every fixture whose original rustfmt leaves as it is
/// has an expected fixed file rustfmt leaves as it is too (inserted calls laid out as rustfmt lays
/// chains out, emptied blocks closed up, the file's line endings kept). rustfmt is the one
/// `cargo fmt` runs in CI.
#[test]
fn fixed_fixtures_keep_rustfmt_layout() {
    let formatted = |path: &Path| {
        Command::new("rustfmt")
            .args(["--check", "--edition", "2021"])
            .arg(path)
            .output()
            .expect("rustfmt runs")
            .status
            .success()
    };
    let mut checked = 0;
    let mut stack = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.to_string_lossy().into_owned();
            let Some(original) = name.strip_suffix(".fixed.rs") else {
                continue;
            };
            let original = PathBuf::from(format!("{original}.rs"));
            if formatted(&original) {
                checked += 1;
                assert!(formatted(&path), "rustfmt would change {}", path.display());
            }
        }
    }
    assert!(
        checked >= 10,
        "only {checked} formatted fixtures with fixes"
    );
}

/// The `"ping"` arm MCP004 inserts ends its line as the file's lines end (issue 14): no bare LF
/// in a CRLF file.
#[test]
fn an_inserted_arm_follows_crlf_line_endings() {
    let fixture =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp004/envelope_arms.rs");
    let text = std::fs::read_to_string(fixture)
        .expect("fixture")
        .replace('\n', "\r\n");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("server.rs"), &text).expect("write");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[
            "server.rs",
            "--fix",
            "--allow-no-vcs",
            "--no-cache",
            "--preview",
        ],
    );
    assert!(code == 0 || code == 1, "{stdout}{stderr}");
    let fixed = std::fs::read_to_string(dir.path().join("server.rs")).expect("read");
    assert!(fixed.contains("\"ping\" =>"), "{fixed}");
    assert!(
        !fixed.replace("\r\n", "").contains('\n'),
        "a bare LF was inserted: {fixed:?}"
    );
}
