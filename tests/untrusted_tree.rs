//! The second round of attacks on a gate over untrusted pull requests (issue 30): each test is
//! one attack that broke a promise of `docs/security.md`, and checks that it no longer does.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

mod support;

use support::mcp_lint as lint;

const BUGGY: &str = "pub fn on_cancelled(&self, id: u64) {\n    self.send_error(id, -32800, \"Request cancelled\");\n}\n";

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, text).expect("write");
}

fn package(dir: &Path, name: &str, lib: &str) {
    write(
        &dir.join("Cargo.toml"),
        &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
    );
    write(&dir.join("src/lib.rs"), lib);
}

/// Every file below `dir`, links not followed.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// A shell script at `path` that leaves `marker` behind when it runs.
#[cfg(unix)]
fn trap(path: &Path, marker: &Path) {
    use std::os::unix::fs::PermissionsExt;
    write(
        path,
        &format!("#!/bin/sh\ntouch '{}'\nexit 1\n", marker.display()),
    );
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// `--output-file reports/mcp-lint.sarif` where the tree commits `reports` as a link to a
/// directory outside: the report is never created there (every component is checked, not only
/// the last).
#[cfg(unix)]
#[test]
fn the_output_file_is_never_written_through_a_linked_directory() {
    let outside = tempfile::tempdir().expect("temp dir");
    let dir = tempfile::tempdir().expect("temp dir");
    write(&dir.path().join("lib.rs"), BUGGY);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("reports")).expect("link");
    for target in ["reports/mcp-lint.sarif", "reports/../reports/x.sarif"] {
        let (code, _, stderr) = lint(
            dir.path(),
            &["lib.rs", "--format", "sarif", "--output-file", target],
        );
        assert_eq!(code, 2, "{target}: {stderr}");
        assert!(stderr.contains("symbolic link"), "{stderr}");
        assert!(walk(outside.path()).is_empty(), "{target}: written outside");
    }
    // A real directory is fine.
    std::fs::create_dir(dir.path().join("out")).expect("mkdir");
    let (code, _, stderr) = lint(
        dir.path(),
        &[
            "lib.rs",
            "--format",
            "sarif",
            "--output-file",
            "out/r.sarif",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(dir.path().join("out/r.sarif").is_file());
}

/// `--write-baseline NAME` where the tree commits NAME as a link: the link's target (existing or
/// not) is never written; `--baseline` never reads through a link or from a special file.
#[cfg(unix)]
#[test]
fn baselines_are_never_written_or_read_through_a_link() {
    let outside = tempfile::tempdir().expect("temp dir");
    let victim = outside.path().join("victim.json");
    write(&victim, "precious\n");
    let dangling = outside.path().join("new.json");
    for (name, target) in [("existing.json", &victim), ("dangling.json", &dangling)] {
        let dir = tempfile::tempdir().expect("temp dir");
        write(&dir.path().join("lib.rs"), BUGGY);
        std::os::unix::fs::symlink(target, dir.path().join(name)).expect("link");
        let (code, _, stderr) = lint(dir.path(), &["lib.rs", "--write-baseline", name]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(stderr.contains("symbolic link"), "{stderr}");
        assert_eq!(
            std::fs::read_to_string(&victim).expect("read"),
            "precious\n"
        );
        assert!(!dangling.exists(), "{name}: a file was created outside");
        // In a linked directory too.
        std::os::unix::fs::symlink(outside.path(), dir.path().join("base")).expect("link");
        let (code, _, stderr) = lint(dir.path(), &["lib.rs", "--write-baseline", "base/b.json"]);
        assert_eq!(code, 2, "{stderr}");
        assert!(!outside.path().join("b.json").exists());
    }
    // Reading: a link to a device, a FIFO or a file outside is refused at once.
    let dir = tempfile::tempdir().expect("temp dir");
    write(&dir.path().join("lib.rs"), BUGGY);
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.json")).expect("link");
    std::os::unix::fs::symlink(&victim, dir.path().join("out.json")).expect("link");
    let fifo = dir.path().join("fifo.json");
    let made = Command::new("mkfifo").arg(&fifo).status();
    for name in ["zero.json", "out.json", "fifo.json"] {
        if name == "fifo.json" && !made.as_ref().is_ok_and(|s| s.success()) {
            continue;
        }
        let (code, _, stderr) = lint(dir.path(), &["lib.rs", "--baseline", name]);
        assert_eq!(code, 2, "{name}: {stderr}");
        assert!(!stderr.contains("precious"), "{stderr}");
    }
}

/// A crate root that is a link to `/dev/zero` or `/dev/stdin`, or a FIFO, in cargo mode and in
/// path mode: never read without end, never waited on (stdin is a pipe nobody writes to or
/// closes).
#[cfg(unix)]
#[test]
fn special_files_in_the_tree_are_never_read() {
    use std::io::Read;
    for target in ["/dev/zero", "/dev/stdin", "fifo"] {
        for args in [
            &["mcp-lint", "--no-cache"][..],
            &["mcp-lint", "--no-cache", "src"][..],
        ] {
            let dir = tempfile::tempdir().expect("temp dir");
            write(
                &dir.path().join("Cargo.toml"),
                "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            );
            std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
            let root = dir.path().join("src/lib.rs");
            if target == "fifo" {
                let made = Command::new("mkfifo").arg(&root).status();
                if !made.is_ok_and(|s| s.success()) {
                    continue;
                }
            } else {
                std::os::unix::fs::symlink(target, &root).expect("link");
            }
            write(&dir.path().join("src/main.rs"), BUGGY);
            let mut child = Command::cargo_bin("cargo-mcp-lint")
                .expect("binary")
                .current_dir(dir.path())
                .args(args)
                .env_remove("GITHUB_ACTIONS")
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("runs");
            let _stdin = child.stdin.take();
            let started = std::time::Instant::now();
            let status = loop {
                if let Some(status) = child.try_wait().expect("wait") {
                    break Some(status);
                }
                if started.elapsed() > std::time::Duration::from_secs(30) {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            };
            let mut stderr = String::new();
            if let Some(mut pipe) = child.stderr.take() {
                let _ = pipe.read_to_string(&mut stderr);
            }
            let status = status.unwrap_or_else(|| panic!("{target} {args:?}: hung: {stderr}"));
            assert_eq!(status.code(), Some(1), "{target} {args:?}: {stderr}");
        }
    }
}

/// A tree that ships `tools/bin/cargo` and `tools/bin/git`, linted from a member directory with
/// that `tools/bin` on `PATH`: neither runs, in a plain run, `--fix` or `--changed-since`; and
/// the programs the tool runs do not find them on the `PATH` they are given either.
#[cfg(unix)]
#[test]
fn programs_on_path_inside_the_repository_never_run() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    support::git(root, &["init", "-q", "."]);
    write(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/server\"]\nresolver = \"2\"\n",
    );
    package(&root.join("crates/server"), "server", BUGGY);
    let marker = root.join("program-ran");
    for program in ["cargo", "git", "rustc"] {
        trap(&root.join("tools/bin").join(program), &marker);
    }
    support::git(root, &["add", "-A"]);
    support::git(root, &["commit", "-q", "-m", "tree"]);
    let path = format!(
        "{}:{}",
        root.join("tools/bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let member = root.join("crates/server");
    for args in [
        &["--no-cache"][..],
        &["--no-cache", "--changed-since", "HEAD"][..],
        &["--no-cache", "--fix"][..],
        &["--no-cache", "--fix", "."][..],
    ] {
        let output = Command::cargo_bin("cargo-mcp-lint")
            .expect("binary")
            .current_dir(&member)
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
        support::git(root, &["checkout", "-q", "--", "."]);
    }
}

/// A nested repository (`vendor/lib/.git`, as an archive delivers it) whose configuration
/// defines a clean filter that its `.gitattributes` applies to `*.rs`: `--fix vendor/lib` and
/// `--changed-since` never run it (git runs only at the top of the real work tree, and never
/// looks into nested repositories).
#[cfg(unix)]
#[test]
fn a_nested_repository_never_makes_git_run_its_filters() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let marker = root.join("filter-ran");
    support::git(root, &["init", "-q", "."]);
    write(&root.join("README.md"), "top\n");
    support::git(root, &["add", "-A"]);
    support::git(root, &["commit", "-q", "-m", "top"]);
    for committed in [false, true] {
        let lib = root.join("vendor/lib");
        let _ = std::fs::remove_dir_all(root.join("vendor"));
        std::fs::create_dir_all(&lib).expect("mkdir");
        support::git(&lib, &["init", "-q", "."]);
        write(&lib.join("src/lib.rs"), BUGGY);
        write(&lib.join(".gitattributes"), "*.rs filter=evil diff=evil\n");
        support::git(&lib, &["add", "-A"]);
        support::git(&lib, &["commit", "-q", "-m", "lib"]);
        let hook = format!("touch '{}'; cat", marker.display());
        for key in [
            "filter.evil.clean",
            "filter.evil.smudge",
            "diff.evil.textconv",
        ] {
            support::git(&lib, &["config", key, &hook]);
        }
        support::git(&lib, &["config", "filter.evil.process", &hook]);
        support::git(&lib, &["config", "core.fsmonitor", &hook]);
        // Change the file, keeping its size, so that git must hash it again (through the
        // filter) to know whether it changed.
        std::thread::sleep(std::time::Duration::from_millis(1100));
        write(
            &lib.join("src/lib.rs"),
            &BUGGY.replace("Request cancelled", "Request Cancelled"),
        );
        if committed {
            // The nested repository as a gitlink of the outer one.
            support::git(root, &["add", "vendor/lib"]);
            support::git(root, &["commit", "-q", "-m", "vendor"]);
        }
        // Check that the trap works when git does run there (without refreshing the index).
        let probe = Command::new("git")
            .current_dir(&lib)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .args(["status", "--porcelain"])
            .output();
        assert!(probe.is_ok());
        assert!(marker.exists(), "the trap works with git itself");
        std::fs::remove_file(&marker).expect("rm");
        for args in [
            &["--fix", "--no-cache", "vendor/lib"][..],
            &["--fix", "--no-cache", "--allow-no-vcs", "vendor/lib"][..],
            &["--no-cache", "--changed-since", "HEAD", "vendor/lib"][..],
            &["--no-cache", "--changed-since", "HEAD", "."][..],
            &["--no-cache", "--diff", "vendor/lib"][..],
        ] {
            let (code, stdout, stderr) = lint(root, args);
            assert!(
                !marker.exists(),
                "committed={committed} {args:?}: the nested repository's filter ran ({code}): {stdout}{stderr}"
            );
        }
    }
}

/// The Action writes its SARIF report under the runner's temporary directory, never inside the
/// tree (where a committed `mcp-lint.sarif` directory or file would be uploaded in its place),
/// and uploads only that file.
#[test]
fn the_action_writes_its_report_outside_the_tree() {
    let action = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("action.yml"))
        .expect("action.yml");
    let lint_step = action
        .split("- name:")
        .find(|step| step.contains("id: lint"))
        .expect("the lint step");
    assert!(
        lint_step.contains("--output-file \"$REPORT\""),
        "{lint_step}"
    );
    assert!(
        action.contains("RUNNER_TEMP"),
        "the report lives in the runner's temporary directory"
    );
    let upload = action
        .split("- name:")
        .find(|step| step.contains("codeql-action/upload-sarif"))
        .expect("the upload step");
    assert!(
        upload.contains("sarif_file: ${{ steps.lint.outputs.report }}"),
        "{upload}"
    );
    assert!(
        !upload.contains("inputs.working-directory"),
        "never a path inside the tree: {upload}"
    );
}

/// A member's `Cargo.toml` (or a path dependency's) that is a link to a file outside the tree
/// (`~/.git-credentials`, a cloud credentials file): no line of that file reaches the output,
/// neither through cargo's error snippet nor through the tool's own report.
#[cfg(unix)]
#[test]
fn a_manifest_linked_out_of_the_tree_is_never_shown() {
    let outside = tempfile::tempdir().expect("temp dir");
    let secret = outside.path().join("credentials");
    write(
        &secret,
        "[default]\naws_access_key_id = AKIAEXAMPLEKEY\naws_secret_access_key = s3cr3tV4lue\n",
    );
    for member_link in [true, false] {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        write(
            &root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"server\", \"m\"]\nresolver = \"2\"\n",
        );
        package(&root.join("server"), "server", BUGGY);
        std::fs::create_dir_all(root.join("m/src")).expect("mkdir");
        write(&root.join("m/src/lib.rs"), "pub fn x() {}\n");
        if member_link {
            std::os::unix::fs::symlink(&secret, root.join("m/Cargo.toml")).expect("link");
        } else {
            write(
                &root.join("m/Cargo.toml"),
                "[package]\nname = \"m\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[dependencies]\nd = { path = \"../d\" }\n",
            );
            std::fs::create_dir_all(root.join("d/src")).expect("mkdir");
            std::os::unix::fs::symlink(&secret, root.join("d/Cargo.toml")).expect("link");
        }
        for args in [
            &["--workspace", "--no-cache"][..],
            &["--workspace", "--no-cache", "--format", "json"][..],
        ] {
            let (code, stdout, stderr) = lint(root, args);
            for leaked in ["AKIAEXAMPLEKEY", "s3cr3tV4lue", "aws_"] {
                assert!(
                    !stdout.contains(leaked) && !stderr.contains(leaked),
                    "member_link={member_link} {args:?}: {stdout}{stderr}"
                );
            }
            // The rest of the workspace is still linted.
            assert_eq!(code, 1, "{stdout}{stderr}");
            assert!(
                stdout.contains("MCP001") || stdout.contains("cancel-sends-response"),
                "{stdout}"
            );
        }
    }
}
