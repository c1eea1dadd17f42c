//! Hostile inputs: whatever a contributor puts in the tree, the gate neither crashes, hangs,
//! writes outside the tree, runs code, nor lets text from the tree forge its report.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use assert_cmd::cargo::CommandCargoExt;

mod support;

const BUGGY: &str = "pub fn on_cancelled(&self, id: u64) {\n    self.send_error(id, -32800, \"Request cancelled\");\n}\n";

// The binary's exit status, stdout and stderr, run in `dir` with `args`.
use support::mcp_lint as lint;

fn assert_no_crash(code: i32, stderr: &str) {
    assert!((0..=2).contains(&code), "exit {code}: {stderr}");
    assert!(
        !stderr.contains("panicked")
            && !stderr.contains("overflow")
            && !stderr.contains("RUST_BACKTRACE"),
        "{stderr}"
    );
}

#[test]
fn deep_nesting_is_reported_not_crashed_on() {
    let dir = tempfile::tempdir().expect("temp dir");
    let n = 100_000;
    let cases = [
        (
            "parens.rs",
            format!(
                "fn f() {{ let x = {}1{}; }}\n",
                "(".repeat(n),
                ")".repeat(n)
            ),
        ),
        (
            "blocks.rs",
            format!("fn f() {}{}\n", "{".repeat(n), "}".repeat(n)),
        ),
        (
            "brackets.rs",
            format!("fn f() {{ let x = {}{}; }}\n", "[".repeat(n), "]".repeat(n)),
        ),
        (
            "types.rs",
            format!("type T = {}u8{};\n", "Vec<".repeat(n), ">".repeat(n)),
        ),
        (
            "closures.rs",
            format!("fn f() {{ let c = {}1; }}\n", "|| ".repeat(n)),
        ),
        (
            "unary.rs",
            format!("fn f() {{ let x = {}true; }}\n", "!".repeat(n)),
        ),
        (
            "macros.rs",
            format!("fn f() {{ {}{}; }}\n", "m!(".repeat(n), ")".repeat(n)),
        ),
        // Chains the parser (or the analysis) follows link by link (issue 14).
        (
            "fn_pointers.rs",
            format!("type T = {}u8;\n", "fn() -> ".repeat(n)),
        ),
        (
            "pointers.rs",
            format!("type T = {}u8;\n", "*const ".repeat(n)),
        ),
        (
            "impl_fn.rs",
            format!("fn f() -> {}u8 {{}}\n", "impl Fn() -> ".repeat(n)),
        ),
        (
            "returns.rs",
            format!("fn f() {{ {}1; }}\n", "return ".repeat(n)),
        ),
        (
            "breaks.rs",
            format!("fn f() {{ 'a: loop {{ {}1; }} }}\n", "break 'a ".repeat(n)),
        ),
        (
            "assignments.rs",
            format!("fn f() {{ {}1; }}\n", "x = ".repeat(n)),
        ),
        (
            "builder.rs",
            format!("fn f() {{ B::new(){}; }}\n", ".a()".repeat(n)),
        ),
        ("sums.rs", format!("fn f() {{ 1{}; }}\n", "+1".repeat(n))),
        ("calls.rs", format!("fn f() {{ y{}; }}\n", "()".repeat(n))),
        ("tries.rs", format!("fn f() {{ y{}; }}\n", "?".repeat(n))),
        (
            "casts.rs",
            format!("fn f() {{ y{}; }}\n", " as u8".repeat(n)),
        ),
        (
            "else_ifs.rs",
            format!("fn f() {{ if a {{}} {} }}\n", "else if a {} ".repeat(n)),
        ),
    ];
    for (name, text) in &cases {
        std::fs::write(dir.path().join(name), text).expect("write");
    }
    std::fs::write(dir.path().join("server.rs"), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[".", "--all-files", "--format", "concise", "--no-cache"],
    );
    assert_no_crash(code, &stderr);
    assert_eq!(code, 1);
    for (name, _) in &cases {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("{name}:1:1: error[MCP000]"))
                    && (l.contains("levels deep") || l.contains("chains"))),
            "{name}: {stdout}"
        );
    }
    assert!(
        stdout.contains("server.rs:2:5: error[MCP001]"),
        "the other files are still linted: {stdout}"
    );
}

#[test]
fn a_huge_file_is_reported_and_skipped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let line = "// on_cancelled padding padding padding padding padding padding padding padding\n";
    let huge = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    std::fs::write(dir.path().join("huge.rs"), huge).expect("write");
    let big = line.repeat(1536 * 1024 / line.len());
    std::fs::write(dir.path().join("big.rs"), big).expect("write");
    std::fs::write(dir.path().join("server.rs"), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--format", "concise", "--no-cache"]);
    assert_no_crash(code, &stderr);
    assert!(
        stdout.contains("huge.rs:1:1: error[MCP000]") && stdout.contains("MiB limit"),
        "{stdout}"
    );
    assert!(
        !stdout.contains("big.rs"),
        "1.5 MiB is under the limit: {stdout}"
    );
    assert!(stdout.contains("server.rs:2:5: error[MCP001]"), "{stdout}");
    // Past the ceiling, the help does not say to raise a limit that cannot be raised.
    let (_, human, _) = lint(dir.path(), &[".", "--no-cache"]);
    assert!(
        human.contains("this file is 50.0 MiB, larger than the 2 MiB limit")
            && human.contains("split it into modules")
            && !human.contains("raise `max-file-size-mib`"),
        "{human}"
    );
    // The limit can be lowered; raising it stops at the ceiling.
    std::fs::write(dir.path().join("mcp-lint.toml"), "max-file-size-mib = 1\n").expect("write");
    let (_, stdout, _) = lint(dir.path(), &[".", "--format", "concise", "--no-cache"]);
    assert!(stdout.contains("big.rs:1:1: error[MCP000]"), "{stdout}");
    let (_, human, _) = lint(dir.path(), &[".", "--no-cache"]);
    assert!(
        human.contains("this file is 1.5 MiB, larger than the 1 MiB limit")
            && human.contains("raise `max-file-size-mib` in the configuration (to at most 2)"),
        "{human}"
    );
    std::fs::write(dir.path().join("mcp-lint.toml"), "max-file-size-mib = 64\n").expect("write");
    let (_, stdout, _) = lint(dir.path(), &[".", "--format", "concise", "--no-cache"]);
    assert!(stdout.contains("huge.rs:1:1: error[MCP000]"), "{stdout}");
}

#[test]
fn odd_bytes_and_line_endings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::fs::write(
        d.join("not_utf8.rs"),
        b"fn on_cancelled() { let s = \"\xff\xfe\"; }\n",
    )
    .expect("write");
    std::fs::write(d.join("nul.rs"), "fn on_cancelled() { let a = 1;\0 }\n").expect("write");
    let binary: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    std::fs::write(d.join("binary.rs"), binary).expect("write");
    std::fs::write(d.join("empty.rs"), "").expect("write");
    std::fs::write(d.join("bom_only.rs"), "\u{feff}").expect("write");
    std::fs::write(d.join("mixed.rs"), "// mixed\r\nfn x() {}\n\r\npub fn on_cancelled(&self, id: u64) {\r\n    self.send_error(id, -32800, \"x\");\n}\r\n").expect("write");
    let long = format!(
        "fn on_cancelled() {{ let s = \"{}\"; }}\n",
        "x".repeat(1024 * 1024)
    );
    std::fs::write(d.join("long_line.rs"), long).expect("write");
    let (code, stdout, stderr) = lint(d, &[".", "--format", "concise", "--no-cache"]);
    assert_no_crash(code, &stderr);
    assert!(
        stdout.contains("not_utf8.rs:1:") && stdout.contains("not valid UTF-8"),
        "{stdout}"
    );
    assert!(
        stdout.contains("binary.rs:1:") && stdout.contains("MCP000"),
        "{stdout}"
    );
    assert!(
        stdout.contains("nul.rs:1:") && stdout.contains("MCP000"),
        "{stdout}"
    );
    assert!(
        stdout.contains("mixed.rs:5:5: error[MCP001]"),
        "lines count across CRLF and LF: {stdout}"
    );
    for quiet in ["empty.rs", "bom_only.rs", "long_line.rs"] {
        assert!(!stdout.contains(quiet), "{quiet}: {stdout}");
    }
}

#[cfg(unix)]
#[test]
fn links_dirs_and_odd_names() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::os::unix::fs::symlink(d.join("loop_b.rs"), d.join("loop_a.rs")).expect("link");
    std::os::unix::fs::symlink(d.join("loop_a.rs"), d.join("loop_b.rs")).expect("link");
    std::fs::create_dir_all(d.join("dir.rs")).expect("mkdir");
    std::fs::write(d.join("dir.rs/inner.rs"), BUGGY).expect("write");
    let odd = std::ffi::OsStr::from_bytes(b"odd\xffname.rs");
    std::fs::write(d.join(odd), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(d, &[".", "--format", "concise", "--no-cache"]);
    assert_no_crash(code, &stderr);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("dir.rs/inner.rs:2:5: error[MCP001]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("odd\\xffname.rs:2:5: error[MCP001]"),
        "{stdout}"
    );
    // Naming a link loop is a clear error.
    let (code, _, stderr) = lint(d, &["loop_a.rs"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: cannot read `loop_a.rs`"),
        "{stderr}"
    );
}

#[test]
fn a_file_deleted_between_discovery_and_reading() {
    use cargo_mcp_lint::discovery::path_mode;
    use cargo_mcp_lint::engine;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("gone.rs"), BUGGY).expect("write");
    std::fs::write(dir.path().join("server.rs"), BUGGY).expect("write");
    let units = path_mode::discover(&[dir.path().to_path_buf()]).expect("discover");
    std::fs::remove_file(dir.path().join("gone.rs")).expect("remove");
    let result = engine::lint(&units, dir.path());
    let messages: Vec<String> = result
        .diagnostics
        .iter()
        .map(|d| {
            format!(
                "{} {} {}",
                result
                    .sources
                    .get(d.file)
                    .map(|s| s.display_path.clone())
                    .unwrap_or_default(),
                d.code,
                d.message
            )
        })
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m.starts_with("gone.rs MCP000 could not read this file")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.starts_with("server.rs MCP001")),
        "{messages:?}"
    );
}

/// A file's text is let go once analysed and read again to show its findings: a file that
/// changed in between is never shown with the new bytes under the old spans.
#[test]
fn a_file_changed_while_linted_gives_way_to_one_finding_saying_so() {
    use cargo_mcp_lint::engine::{self, LintUnit};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("lib.rs");
    std::fs::write(&root, format!("mod later;\n{BUGGY}")).expect("write");
    std::fs::write(dir.path().join("later.rs"), "fn quiet() {}\n").expect("write");
    let unit = LintUnit {
        follow_modules: true,
        ..support::unit("changed", vec![support::root_file(&root)])
    };
    let lint = |change: bool| {
        // The root is read first; its module after: the root changes before that second read.
        let reads = AtomicUsize::new(0);
        let on_file = || {
            if reads.fetch_add(1, Ordering::SeqCst) == 1 && change {
                std::fs::write(
                    &root,
                    format!("mod later;\n{}", BUGGY.replace("self", "that")),
                )
                .expect("rewrite");
            }
        };
        let result = engine::lint_observed(
            std::slice::from_ref(&unit),
            dir.path(),
            &Default::default(),
            &Default::default(),
            &on_file,
        );
        std::fs::write(&root, format!("mod later;\n{BUGGY}")).expect("restore");
        result
            .diagnostics
            .iter()
            .map(|d| format!("{} {}", d.code, d.message))
            .collect::<Vec<_>>()
    };
    let unchanged = lint(false);
    assert!(
        unchanged.iter().all(|m| m.starts_with("MCP001")),
        "{unchanged:?}"
    );
    assert!(!unchanged.is_empty());
    assert_eq!(
        lint(true),
        ["MCP000 this file changed while it was being linted, so its findings cannot be shown"]
    );
}

/// Units are linted a group at a time (those that share files); a file two groups reach (a
/// module one unit's tree declares, listed by another unit) is one source with its findings
/// once, shown from its text.
#[test]
fn a_file_two_groups_reach_is_one_source_with_its_findings_once() {
    use cargo_mcp_lint::engine::{self, LintUnit, UnitFile};
    let dir = tempfile::tempdir().expect("temp dir");
    let file = |name: &str| UnitFile {
        path: dir.path().join(name).as_path().into(),
        module: Default::default(),
        owns_directory: true,
    };
    std::fs::write(dir.path().join("shared.rs"), BUGGY).expect("write");
    std::fs::write(dir.path().join("a.rs"), "fn a() {}\n").expect("write");
    std::fs::write(
        dir.path().join("b.rs"),
        "#[path = \"shared.rs\"]\nmod shared;\n",
    )
    .expect("write");
    let units = vec![
        LintUnit {
            name: "a".into(),
            files: vec![file("a.rs"), file("shared.rs")],
            ..Default::default()
        },
        LintUnit {
            name: "b".into(),
            files: vec![file("b.rs")],
            follow_modules: true,
            ..Default::default()
        },
    ];
    let result = engine::lint(&units, dir.path());
    let shown: Vec<(String, &str)> = result
        .diagnostics
        .iter()
        .map(|d| {
            let source = result.sources.get(d.file).expect("a source");
            let line = source.line_column(d.span.start).line;
            (format!("{}:{line}", source.display_path), d.code)
        })
        .collect();
    assert_eq!(shown, [("shared.rs:2".to_string(), "MCP001")]);
    assert_eq!(result.files_linted(), 3);
}

/// Only the texts of the files whose findings are shown are in memory when a run ends.
#[test]
fn a_runs_texts_are_let_go_but_for_its_findings() {
    use cargo_mcp_lint::discovery::path_mode;
    use cargo_mcp_lint::engine;
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("server.rs"), BUGGY).expect("write");
    std::fs::write(dir.path().join("quiet.rs"), "fn cancelled() -> u8 { 1 }\n").expect("write");
    let units = path_mode::discover(&[dir.path().to_path_buf()]).expect("discover");
    let result = engine::lint(&units, dir.path());
    let resident: Vec<(String, bool)> = result
        .sources
        .iter()
        .map(|(_, s)| (s.display_path.clone(), s.is_resident()))
        .collect();
    assert!(
        resident.contains(&("quiet.rs".to_string(), false)),
        "{resident:?}"
    );
    assert!(
        resident.contains(&("server.rs".to_string(), true)),
        "{resident:?}"
    );
    assert_eq!(result.diagnostics.len(), 1);
}

#[test]
fn fifty_thousand_small_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    for i in 0..50_000 {
        let sub = dir.path().join(format!("d{}", i / 1000));
        if i % 1000 == 0 {
            std::fs::create_dir_all(&sub).expect("mkdir");
        }
        std::fs::write(sub.join(format!("f{i}.rs")), "fn f() {}\n").expect("write");
    }
    std::fs::write(dir.path().join("server.rs"), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--format", "json", "--no-cache"]);
    assert_no_crash(code, &stderr);
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(json["summary"]["files"], 50_001);
    assert_eq!(json["summary"]["diagnostics"], 1);
}

fn package(dir: &Path, lib: &str) {
    std::fs::write(
        dir.join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .expect("write");
    std::fs::create_dir_all(dir.join("src")).expect("mkdir");
    std::fs::write(dir.join("src/lib.rs"), lib).expect("write");
}

#[test]
fn module_cycles_and_missing_modules() {
    let dir = tempfile::tempdir().expect("temp dir");
    package(
        dir.path(),
        "mod a;\nmod missing;\n#[path = \"lib.rs\"]\nmod again;\n",
    );
    std::fs::write(
        dir.path().join("src/a.rs"),
        format!("#[path = \"../src/a.rs\"]\nmod itself;\n{BUGGY}"),
    )
    .expect("write");
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir.path())
        .args(["--format", "concise", "--no-cache"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let waited = wait_with_timeout(output, Duration::from_secs(60));
    let (code, stdout, stderr) = waited.expect("no hang");
    assert_no_crash(code, &stderr);
    assert_eq!(
        stdout.lines().filter(|l| l.contains("MCP001")).count(),
        1,
        "{stdout}"
    );
}

fn wait_with_timeout(
    mut child: std::process::Child,
    limit: Duration,
) -> Option<(i32, String, String)> {
    let start = std::time::Instant::now();
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            let output = child.wait_with_output().ok()?;
            return Some((
                output.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&output.stdout).into_owned(),
                String::from_utf8_lossy(&output.stderr).into_owned(),
            ));
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn build_scripts_and_proc_macros_never_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    package(dir.path(), BUGGY);
    let marker = dir.path().join("build-script-ran");
    std::fs::write(
        dir.path().join("build.rs"),
        format!(
            "fn main() {{ std::fs::write({:?}, \"ran\").unwrap(); }}\n",
            marker
        ),
    )
    .expect("write");
    let (code, _, stderr) = lint(dir.path(), &["--no-cache"]);
    assert_eq!(code, 1, "{stderr}");
    let (_, _, _) = lint(dir.path(), &["--fix", "--allow-no-vcs", "--no-cache"]);
    assert!(!marker.exists(), "the build script must never run");
}

#[cfg(unix)]
#[test]
fn fix_never_writes_through_a_link_outside_the_root() {
    let outside = tempfile::tempdir().expect("temp dir");
    let target = outside.path().join("victim.rs");
    std::fs::write(&target, BUGGY).expect("write");
    let dir = tempfile::tempdir().expect("temp dir");
    package(dir.path(), "mod linked;\n");
    std::os::unix::fs::symlink(&target, dir.path().join("src/linked.rs")).expect("link");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[
            "--fix",
            "--allow-no-vcs",
            "--no-cache",
            "--format",
            "concise",
        ],
    );
    // The linked file is not even read: a diagnostic names it, and nothing is fixed.
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("outside the linted directories"),
        "{stdout}"
    );
    assert!(!stdout.contains("send_error"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&target).expect("read"),
        BUGGY,
        "untouched"
    );
    // The same through a path argument that is a link out of the tree.
    std::fs::create_dir_all(dir.path().join("more")).expect("mkdir");
    std::os::unix::fs::symlink(outside.path(), dir.path().join("more/out")).expect("link");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &["more/out", "--fix", "--allow-no-vcs", "--no-cache"],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("outside the linted directories"),
        "{stdout}"
    );
    assert_eq!(std::fs::read_to_string(&target).expect("read"), BUGGY);
}

/// `#[path]` can name any file of the machine (issue 14): a file outside the linted directories,
/// or one that is not a regular file, is a diagnostic that names it and shows none of it.
#[cfg(unix)]
#[test]
fn a_module_path_outside_the_tree_is_never_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let outside = tempfile::tempdir().expect("temp dir");
    let secret = outside.path().join("secret.rs");
    std::fs::write(&secret, "fn hunter2() { println!(\"hunter2\"); }\n").expect("write");
    package(
        dir.path(),
        &format!(
            "#[path = \"/proc/self/environ\"]\nmod environ;\n#[path = \"/proc/self/pagemap\"]\nmod pagemap;\n#[path = {:?}]\nmod secret;\n",
            secret
        ),
    );
    for args in [&["--no-cache"][..], &["--no-cache", "src"][..]] {
        let output = Command::cargo_bin("cargo-mcp-lint")
            .expect("binary")
            .current_dir(dir.path())
            .args(args)
            .env("MCP_LINT_TEST_SECRET", "hunter2")
            .env_remove("GITHUB_ACTIONS")
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stdout.contains("hunter2"), "{stdout}");
        assert!(!stderr.contains("hunter2"), "{stderr}");
        // Both modes follow the module tree: each module file is named, none is read.
        assert_eq!(output.status.code(), Some(1), "{stdout}{stderr}");
        assert_eq!(
            stdout.matches("outside the linted directories").count(),
            3,
            "{args:?}: {stdout}"
        );
    }
}

/// `--fix` never replaces a read-only file, nor (run as root) another user's file, whose owner a
/// rename would change; the temporary files of a killed run are removed by the next one.
#[cfg(unix)]
#[test]
fn fix_keeps_read_only_and_other_users_files() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().expect("temp dir");
    let read_only = dir.path().join("read_only.rs");
    std::fs::write(&read_only, BUGGY).expect("write");
    std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--fix", "--allow-no-vcs", "--no-cache"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("read-only"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&read_only).expect("read"), BUGGY);
    std::fs::remove_file(&read_only).expect("remove");

    let theirs = dir.path().join("theirs.rs");
    std::fs::write(&theirs, BUGGY).expect("write");
    let own_uid = std::fs::metadata(&theirs).expect("stat").uid();
    if std::os::unix::fs::chown(&theirs, Some(own_uid + 4242), None).is_ok() {
        let (code, stdout, stderr) =
            lint(dir.path(), &[".", "--fix", "--allow-no-vcs", "--no-cache"]);
        assert_eq!(code, 2, "{stdout}{stderr}");
        assert!(stderr.contains("another user"), "{stderr}");
        let metadata = std::fs::metadata(&theirs).expect("stat");
        assert_eq!(metadata.uid(), own_uid + 4242, "the owner is kept");
        assert_eq!(std::fs::read_to_string(&theirs).expect("read"), BUGGY);
    }
    std::fs::remove_file(&theirs).expect("remove");

    // A dead run's temporary file (a process id that is not running) goes; a foreign file named
    // alike but not as the tool names them stays.
    let server = dir.path().join("server.rs");
    std::fs::write(&server, BUGGY).expect("write");
    let stale = dir.path().join(".mcp-lint-fix-999999999-abc123");
    let foreign = dir.path().join(".mcp-lint-fix-notes");
    std::fs::write(&stale, "half").expect("write");
    std::fs::write(&foreign, "mine").expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--fix", "--allow-no-vcs", "--no-cache"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(!stale.exists(), "the stale temporary file is removed");
    assert!(foreign.exists(), "a file the tool did not name is kept");
}

#[cfg(unix)]
#[test]
fn source_text_cannot_forge_annotations_or_terminal_escapes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let name = std::ffi::OsStr::from_bytes(b"evil\n::error file=forged.rs,line=1::owned\x1b[2J.rs");
    let text = "pub fn on_cancelled(&self, id: u64) {\n    self.send_error(id, -32800, \"\u{1b}[31mred\u{1b}]0;title\u{7}\");\n}\n";
    std::fs::write(dir.path().join(name), text).expect("write");
    let (code, stdout, _) = lint(dir.path(), &[".", "--format", "github", "--no-cache"]);
    assert_eq!(code, 1);
    let commands: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(commands.len(), 1, "one annotation, no forged one: {stdout}");
    assert!(
        !stdout
            .lines()
            .any(|l| l.starts_with("::error file=forged.rs")),
        "{stdout}"
    );
    for format in ["human", "concise"] {
        let (_, stdout, _) = lint(
            dir.path(),
            &[".", "--format", format, "--color", "never", "--no-cache"],
        );
        assert!(
            !stdout.contains('\u{1b}') && !stdout.contains('\u{7}'),
            "{format}: no control characters reach the terminal: {stdout:?}"
        );
        assert!(stdout.contains("MCP001"), "{format}: {stdout}");
    }
}

#[test]
fn errors_a_user_can_cause_are_one_clear_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    for args in [
        vec!["--format", "nope"],
        vec!["does-not-exist.rs"],
        vec!["--manifest-path", "nowhere/Cargo.toml"],
        vec!["--config", "missing.toml", "."],
        vec!["--baseline", "missing.json", "."],
        vec!["-D", "MCP404", "."],
    ] {
        let (code, _, stderr) = lint(dir.path(), &args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains("error"), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("panicked") && !stderr.contains("backtrace"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn killing_a_fix_run_leaves_every_file_whole() {
    let dir = tempfile::tempdir().expect("temp dir");
    let count = 400;
    let original = |i: usize| format!("// file {i}\n{BUGGY}\n// tail {i}\n");
    let fixed = |i: usize| {
        format!("// file {i}\npub fn on_cancelled(&self, _id: u64) {{}}\n\n// tail {i}\n")
    };
    let paths: Vec<PathBuf> = (0..count)
        .map(|i| dir.path().join(format!("f{i}.rs")))
        .collect();
    for delay_ms in [5u64, 15, 30, 60, 120] {
        for (i, path) in paths.iter().enumerate() {
            std::fs::write(path, original(i)).expect("write");
        }
        let mut child = Command::cargo_bin("cargo-mcp-lint")
            .expect("binary")
            .current_dir(dir.path())
            .args([".", "--fix", "--allow-no-vcs", "--no-cache", "-q"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("runs");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        for (i, path) in paths.iter().enumerate() {
            let now = std::fs::read_to_string(path).expect("read");
            assert!(
                now == original(i) || now == fixed(i),
                "killed after {delay_ms} ms: f{i}.rs is torn: {now:?}"
            );
        }
    }
    // Run to completion: every file fixed, no temporary file left.
    let (code, _, stderr) = lint(dir.path(), &[".", "--fix", "--allow-no-vcs", "--no-cache"]);
    assert_eq!(code, 0, "{stderr}");
    for (i, path) in paths.iter().enumerate() {
        assert_eq!(std::fs::read_to_string(path).expect("read"), fixed(i));
    }
    let leftovers = std::fs::read_dir(dir.path())
        .expect("read dir")
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(".mcp-lint-fix-")
        })
        .count();
    assert_eq!(
        leftovers, 0,
        "a killed run's temporary files are removed by the next run"
    );
}

/// The tree's configuration cannot make a run read without bound (issue 14): it raises the file
/// size limit at most to the ceiling, and a configuration file past 1 MiB is an error, not a
/// read of it all.
#[test]
fn the_trees_configuration_cannot_lift_the_size_limits() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("mcp-lint.toml"),
        "max-file-size-mib = 100000\n",
    )
    .expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &["--show-settings"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("max-file-size-mib = 2"), "{stdout}");

    let huge = tempfile::tempdir().expect("temp dir");
    let mut config = String::from("exclude = [\n");
    while config.len() <= 1024 * 1024 {
        config.push_str("  \"generated/**/*.rs\",\n");
    }
    config.push_str("]\n");
    std::fs::write(huge.path().join("mcp-lint.toml"), config).expect("write");
    std::fs::write(huge.path().join("lib.rs"), BUGGY).expect("write");
    let (code, _, stderr) = lint(huge.path(), &["lib.rs"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("larger than 1024 KiB"), "{stderr}");
    assert_no_crash(code, &stderr);
}

/// `--output-file` never writes through a symbolic link the tree committed under the report's
/// name (issue 14): the run fails with a clear error and the link's target is untouched; a
/// regular file there is replaced.
#[cfg(unix)]
#[test]
fn the_output_file_is_never_written_through_a_link() {
    let outside = tempfile::tempdir().expect("temp dir");
    let victim = outside.path().join("victim.txt");
    std::fs::write(&victim, "precious\n").expect("write");
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("lib.rs"), BUGGY).expect("write");
    std::os::unix::fs::symlink(&victim, dir.path().join("mcp-lint.sarif")).expect("link");
    let (code, _, stderr) = lint(
        dir.path(),
        &[
            "lib.rs",
            "--format",
            "sarif",
            "--output-file",
            "mcp-lint.sarif",
        ],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("read"),
        "precious\n"
    );

    let plain = tempfile::tempdir().expect("temp dir");
    std::fs::write(plain.path().join("lib.rs"), BUGGY).expect("write");
    std::fs::write(plain.path().join("report.sarif"), "old").expect("write");
    let (code, _, stderr) = lint(
        plain.path(),
        &[
            "lib.rs",
            "--format",
            "sarif",
            "--output-file",
            "report.sarif",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    let report = std::fs::read_to_string(plain.path().join("report.sarif")).expect("read");
    assert!(report.contains("\"version\": \"2.1.0\""), "{report}");
    let leftovers = std::fs::read_dir(plain.path())
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .count();
    assert_eq!(leftovers, 0);
}

/// A `rust-toolchain.toml` can name a toolchain by path; the `cargo` the tool runs must never be
/// one the tree chose. `CARGO` is removed so that `cargo` is found on `PATH` (rustup's proxy, when
/// rustup is installed), as when the binary is called directly, the way the Action calls it.
#[cfg(unix)]
#[test]
fn a_toolchain_file_in_the_tree_never_chooses_the_cargo_that_runs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    package(dir.path(), BUGGY);
    let marker = dir.path().join("toolchain-ran");
    let bin = dir.path().join("tc/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    for program in ["cargo", "rustc"] {
        let script = bin.join(program);
        std::fs::write(
            &script,
            format!("#!/bin/sh\ntouch '{}'\nexit 1\n", marker.display()),
        )
        .expect("write");
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    }
    std::fs::write(
        dir.path().join("rust-toolchain.toml"),
        format!("[toolchain]\npath = {:?}\n", dir.path().join("tc")),
    )
    .expect("write");
    std::fs::create_dir_all(dir.path().join(".cargo")).expect("mkdir");
    std::fs::write(
        dir.path().join(".cargo/config.toml"),
        "[alias]\nmetadata = [\"run\"]\n[build]\nrustc-wrapper = \"tc/bin/rustc\"\n",
    )
    .expect("write");
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir.path())
        .args(["mcp-lint", "--no-cache", "--format", "concise"])
        .env_remove("CARGO")
        .env_remove("RUSTUP_TOOLCHAIN")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!marker.exists(), "the tree's toolchain ran: {stderr}");
    assert_eq!(output.status.code(), Some(1), "{stderr}");
}

/// A bare repository committed into the tree, whose configuration names a file-system monitor
/// command, beside a file `--fix` changes: git must never run the command.
#[cfg(unix)]
#[test]
fn a_bare_repository_in_the_tree_never_makes_git_run_a_command() {
    let dir = tempfile::tempdir().expect("temp dir");
    let marker = dir.path().join("monitor-ran");
    let git = |args: &[&str]| support::git(dir.path(), args);
    git(&["init", "-q", "."]);
    let evil = dir.path().join("evil");
    std::fs::create_dir_all(evil.join("objects")).expect("mkdir");
    std::fs::create_dir_all(evil.join("refs/heads")).expect("mkdir");
    std::fs::write(evil.join("objects/.keep"), "").expect("write");
    std::fs::write(evil.join("refs/heads/.keep"), "").expect("write");
    std::fs::write(evil.join("HEAD"), "ref: refs/heads/main\n").expect("write");
    std::fs::write(
        evil.join("config"),
        format!(
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = \"touch '{}'; false\"\n[safe]\n\tbareRepository = all\n",
            marker.display()
        ),
    )
    .expect("write");
    std::fs::write(evil.join("server.rs"), BUGGY).expect("write");
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "tree"]);
    let (code, stdout, stderr) = lint(dir.path(), &["--fix", "--no-cache", "."]);
    assert!(!marker.exists(), "git ran the tree's command: {stderr}");
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        !std::fs::read_to_string(evil.join("server.rs"))
            .expect("read")
            .contains("send_error"),
        "the file of the real repository is fixed"
    );
}

/// The Action calls the binary directly: `cargo mcp-lint` would run whatever the tree's
/// `.cargo/config.toml` aliases `mcp-lint` to, and the install step never runs inside the tree.
#[test]
fn the_action_never_runs_cargo_inside_the_tree() {
    let action = support::action();
    assert!(
        !action.contains("cargo mcp-lint $"),
        "the Action must not run `cargo mcp-lint`"
    );
    assert!(
        action.contains("\"$ROOT/bin/cargo-mcp-lint\" mcp-lint"),
        "called by its absolute path: {action}"
    );
    let install = support::action_step("cargo install");
    assert!(
        install.contains("working-directory: ${{ github.action_path }}"),
        "the install step runs outside the tree: {install}"
    );
    // A second run does not build it: the install is cached by version, lockfile and sources.
    assert!(
        install.contains("if: steps.cache.outputs.cache-hit != 'true'"),
        "{install}"
    );
    let key = support::action_step("id: key");
    for part in ["Cargo.toml", "Cargo.lock", "src", "$version"] {
        assert!(key.contains(part), "the key covers {part}: {key}");
    }
    assert!(action.contains("uses: actions/cache@v4"), "{action}");
}

/// A `target` (or `target/mcp-lint`) committed as a link out of the tree turns the cache off: it
/// is never written through.
#[cfg(unix)]
#[test]
fn the_cache_is_never_written_through_a_link() {
    for linked in ["target", "target/mcp-lint"] {
        let dir = tempfile::tempdir().expect("temp dir");
        let outside = tempfile::tempdir().expect("temp dir");
        package(dir.path(), BUGGY);
        let link = dir.path().join(linked);
        std::fs::create_dir_all(link.parent().expect("parent")).expect("mkdir");
        std::os::unix::fs::symlink(outside.path(), &link).expect("link");
        let (code, stdout, stderr) = lint(dir.path(), &[]);
        assert_eq!(code, 1, "{stdout}{stderr}");
        let written: Vec<_> = walk(outside.path());
        assert!(written.is_empty(), "{linked}: {written:?}");
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// Text from the tree that reaches a report (a method name quoted in a message, a suppression's
/// rule name, a configuration key, a file name, a string in a snippet) never starts a line of its
/// own nor carries a bidirectional control, in the human report, the annotations, stderr, or a
/// patch (issue 14).
#[cfg(unix)]
#[test]
fn tree_text_never_forges_a_line_in_any_report() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("temp dir");
    let forged = "\n::error file=forged.rs,line=1::owned\n::stop-commands::tok\n";
    let server = format!(
        "use serde_json::{{json, Value}};\n\
         pub fn handle(method: &str, id: Value) -> Option<Value> {{\n\
         \x20   match method {{\n\
         \x20       \"initialize\" => Some(json!({{\"jsonrpc\": \"2.0\", \"id\": id, \"result\": {{}}}})),\n\
         \x20       \"ping\" => Some(json!({{\"jsonrpc\": \"2.0\", \"id\": id, \"result\": {{}}}})),\n\
         \x20       \"notifications/initialized{forged}\" => Some(json!({{\"jsonrpc\": \"2.0\", \"id\": id, \"result\": {{}}}})),\n\
         \x20       _ => None,\n\
         \x20   }}\n\
         }}\n\
         // mcp-lint: allow(MCP0\r::error::x\u{202e})\n\
         pub fn on_cancelled(&self, id: u64) {{\n\
         \x20   self.send_error(id, -32800, \"\u{202e}dellecnac\");\n\
         }}\n"
    );
    let sub = dir.path().join(std::ffi::OsStr::from_bytes(
        "a\n+++ b/evil.rs\n::error::x\u{202e}".as_bytes(),
    ));
    std::fs::create_dir_all(&sub).expect("mkdir");
    std::fs::write(sub.join("server.rs"), &server).expect("write");
    // Machine formats carry the text exactly (their own escaping keeps their grammar); what a
    // person reads carries no bidirectional control.
    let check = |what: &str, text: &str, annotations: usize| {
        let commands: Vec<&str> = text.lines().filter(|l| l.starts_with("::")).collect();
        assert!(
            commands
                .iter()
                .all(|c| c.starts_with("::error file=a\\n+++")
                    || c.starts_with("::warning file=a\\n+++")),
            "{what}: forged lines: {text}"
        );
        if annotations > 0 {
            assert_eq!(commands.len(), annotations, "{what}: {text}");
        }
        if matches!(what, "human" | "concise" | "github" | "configuration") {
            assert!(!text.contains('\u{202e}'), "{what}: a bidi control: {text}");
        }
        assert!(!text.contains("stop-commands::tok\n"), "{what}: {text}");
    };
    for format in [
        "human", "concise", "github", "json", "sarif", "junit", "gitlab",
    ] {
        let output = Command::cargo_bin("cargo-mcp-lint")
            .expect("binary")
            .current_dir(dir.path())
            // `--preview`: the notification arm that quotes the forged method is a preview
            // shape of MCP003.
            .args([
                ".",
                "--no-cache",
                "--preview",
                "--color",
                "never",
                "--format",
                format,
            ])
            .env("GITHUB_ACTIONS", "true")
            .output()
            .expect("runs");
        let stdout = String::from_utf8_lossy(&output.stdout);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{format}: {stdout}{stderr}");
        let annotations = if format == "github" { 3 } else { 0 };
        if format == "concise" {
            assert!(stdout.contains("MCP901"), "{stdout}");
        }
        check(format, &stdout, annotations);
        check(format, &stderr, 0);
    }
    // --diff: one header pair for the one file, its name quoted as git quotes it.
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir.path())
        .args([".", "--no-cache", "--diff"])
        .output()
        .expect("runs");
    let diff = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        diff.lines().filter(|l| l.starts_with("+++ ")).count(),
        1,
        "{diff}"
    );
    assert_eq!(
        diff.lines().filter(|l| l.starts_with("--- ")).count(),
        1,
        "{diff}"
    );
    assert!(
        diff.contains("--- \"a/a\\n+++ b/evil.rs\\n::error::x\\342\\200\\256/server.rs\""),
        "{diff}"
    );
    // The configuration's own keys.
    std::fs::write(
        dir.path().join("mcp-lint.toml"),
        format!("{:?} = 1\n", forged.to_string() + "\u{202e}"),
    )
    .expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--no-cache"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    check("configuration", &stderr, 0);
    assert!(
        stderr.contains("::error file=forged.rs"),
        "the key is shown, escaped: {stderr}"
    );
}

/// Path mode lints what cargo compiles even where an ignore file, or a module directory named
/// `target`, hides it from the walk; and a directory it cannot walk (3,000 levels down) is said,
/// not skipped in silence (issue 14).
#[cfg(unix)]
#[test]
fn nothing_cargo_compiles_hides_from_path_mode() {
    let dir = tempfile::tempdir().expect("temp dir");
    package(dir.path(), "mod server;\nmod target;\n");
    std::fs::write(dir.path().join("src/server.rs"), BUGGY).expect("write");
    std::fs::create_dir_all(dir.path().join("src/target")).expect("mkdir");
    std::fs::write(dir.path().join("src/target/mod.rs"), BUGGY).expect("write");
    std::fs::write(dir.path().join(".ignore"), "src/server.rs\n").expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("src/server.rs:2:5: error[MCP001]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("src/target/mod.rs:2:5: error[MCP001]"),
        "{stdout}"
    );

    // 2,100 levels of `d/`: past what a path can hold (4,096 bytes), built in three parts
    // moved one into the other, since no single path reaches the bottom.
    let deep = tempfile::tempdir().expect("temp dir");
    let chain = "d/".repeat(700);
    let mut bottom = deep.path().join("d");
    std::fs::create_dir_all(deep.path().join(&chain)).expect("mkdir");
    bottom.push(&chain[2..]);
    for part in ["p", "q"] {
        let staged = deep.path().join(part);
        std::fs::create_dir_all(staged.join(&chain)).expect("mkdir");
        std::fs::write(staged.join(&chain).join("server.rs"), BUGGY).expect("write");
        std::fs::rename(staged.join("d"), bottom.join("d")).expect("move");
        std::fs::remove_dir(&staged).expect("rmdir");
        if part == "p" {
            bottom.push(&chain);
        }
    }
    let (code, stdout, stderr) = lint(deep.path(), &[".", "--no-cache"]);
    assert_no_crash(code, &stderr);
    assert!(
        stderr.contains("was not linted"),
        "the walk's error is reported: {stdout}{stderr}"
    );
}

/// A finding in a long line shows a window of it, not the whole line (issue 14): the report
/// grows with the findings, not with the findings times the line.
#[test]
fn a_long_line_is_shown_as_a_window() {
    let dir = tempfile::tempdir().expect("temp dir");
    let findings = 2_000;
    let line = format!(
        "fn main() {{ let t = rmcp::transport::stdio(); {} }}\n",
        "println!(\"a\"); ".repeat(findings)
    );
    std::fs::write(dir.path().join("main.rs"), &line).expect("write");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &["main.rs", "--preview", "--no-cache", "--color", "never"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(stdout.matches("error[MCP002]").count(), findings);
    assert!(
        stdout.len() < findings * 3_000,
        "{} bytes for {findings} findings in a line of {} bytes",
        stdout.len(),
        line.len()
    );
    // The column is the whole line's.
    assert!(stdout.contains("main.rs:1:47"), "{}", &stdout[..600]);
}

/// A configuration committed as a link out of its directory is not read: a parse error would
/// otherwise show the linked file's lines (issue 14).
#[cfg(unix)]
#[test]
fn a_linked_configuration_is_never_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let outside = tempfile::tempdir().expect("temp dir");
    let secret = outside.path().join("credentials");
    std::fs::write(&secret, "https://user:hunter2@example.com\n").expect("write");
    std::os::unix::fs::symlink(&secret, dir.path().join("mcp-lint.toml")).expect("link");
    std::fs::write(dir.path().join("a.rs"), "fn main() {}\n").expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &["a.rs", "--no-cache"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("outside its directory"), "{stderr}");
    assert!(
        !stderr.contains("hunter2") && !stdout.contains("hunter2"),
        "{stderr}"
    );
}

/// Inside a git work tree the roots are the work tree: a module a package includes from
/// elsewhere in the repository is read (and its finding reported); one outside it is not.
#[cfg(unix)]
#[test]
fn a_module_elsewhere_in_the_repository_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    support::git(dir.path(), &["init", "-q", "."]);
    let package_dir = dir.path().join("crates/server");
    std::fs::create_dir_all(&package_dir).expect("mkdir");
    package(
        &package_dir,
        "#[path = \"../../../shared/cancel.rs\"]\nmod cancel;\n",
    );
    std::fs::create_dir_all(dir.path().join("shared")).expect("mkdir");
    std::fs::write(dir.path().join("shared/cancel.rs"), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(&package_dir, &["--no-cache", "--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("cancel.rs:2:5: error[MCP001]"), "{stdout}");
    assert!(
        !stdout.contains("outside the linted directories"),
        "{stdout}"
    );
}

/// A file name that is not UTF-8 is shown by its bytes (`\xff`), not as a replacement character
/// that two names would share (issue 14).
#[cfg(unix)]
#[test]
fn names_that_are_not_utf8_are_shown_exactly() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("temp dir");
    for name in [&b"bad\xff.rs"[..], &b"bad\xfe.rs"[..]] {
        std::fs::write(dir.path().join(std::ffi::OsStr::from_bytes(name)), BUGGY).expect("write");
    }
    let (code, stdout, stderr) = lint(dir.path(), &[".", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("bad\\xff.rs:2:5: error[MCP001]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("bad\\xfe.rs:2:5: error[MCP001]"),
        "{stdout}"
    );
}

/// A `PATH` entry the tree can fill (`.`, or a directory inside it) never supplies the `git` or
/// `cargo` the tool runs (issue 14).
#[cfg(unix)]
#[test]
fn path_entries_inside_the_tree_never_supply_a_program() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("temp dir");
    package(dir.path(), BUGGY);
    let marker = dir.path().join("program-ran");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    for place in [dir.path(), bin.as_path()] {
        for program in ["git", "cargo"] {
            let script = place.join(program);
            std::fs::write(
                &script,
                format!("#!/bin/sh\ntouch '{}'\nexit 1\n", marker.display()),
            )
            .expect("write");
            std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755))
                .expect("chmod");
        }
    }
    let path = format!(
        ".:{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for args in [&["--no-cache"][..], &[".", "--fix", "--no-cache"][..]] {
        let output = Command::cargo_bin("cargo-mcp-lint")
            .expect("binary")
            .current_dir(dir.path())
            .args(args)
            .env("PATH", &path)
            .env_remove("CARGO")
            .env_remove("GITHUB_ACTIONS")
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !marker.exists(),
            "{args:?}: the tree's program ran: {stderr}"
        );
    }
}
