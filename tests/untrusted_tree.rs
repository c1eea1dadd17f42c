//! The second round of attacks on a gate over untrusted pull requests (issue 30): each test is
//! one attack that broke a promise of `docs/security.md`, and checks that it no longer does.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

mod support;

use support::mcp_lint as lint;

const BUGGY: &str = "pub fn on_cancelled(&self, id: u64) {\n    self.send_error(id, -32800, \"Request cancelled\");\n}\n";

use support::write;

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
    let action = support::action();
    let lint_step = support::action_step("id: lint");
    assert!(
        lint_step.contains("--output-file \"$REPORT\""),
        "{lint_step}"
    );
    assert!(
        action.contains("RUNNER_TEMP"),
        "the report lives in the runner's temporary directory"
    );
    let upload = support::action_step("codeql-action/upload-sarif");
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

/// The cancel hook in `cancel.rs` (no MCP word in it), helpers that only pass the request on in
/// files of their own (no send word, names std also uses), and the send in `transport.rs`: the
/// default run finds what `--all-files` finds, in cargo mode and path mode, whatever the chain's
/// length and names.
#[test]
fn no_file_a_findings_chain_passes_through_is_skipped() {
    for (depth, name) in [(1, "finish"), (2, "finish"), (3, "put_c"), (4, "run_it")] {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        write(
            &root.join("Cargo.toml"),
            "[package]\nname = \"pf\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        );
        let mut lib = String::from(
            "mod cancel;\nmod transport;\npub struct Server { pub out: transport::Transport }\n",
        );
        for hop in 0..depth {
            lib.push_str(&format!("mod hop{hop};\n"));
            let next = if hop + 1 == depth {
                "server.out.emit_error(id, \"Request cancelled\");".to_string()
            } else {
                format!("crate::hop{}::{name}(server, id);", hop + 1)
            };
            write(
                &root.join(format!("src/hop{hop}.rs")),
                &format!("use crate::Server;\npub fn {name}(server: &Server, id: u64) {{\n    {next}\n}}\n"),
            );
        }
        write(&root.join("src/lib.rs"), &lib);
        write(
            &root.join("src/cancel.rs"),
            &format!("use crate::Server;\nimpl Server {{\n    pub fn on_cancelled(&self, id: u64) {{\n        crate::hop0::{name}(self, id);\n    }}\n}}\n"),
        );
        write(
            &root.join("src/transport.rs"),
            "pub struct Transport;\nimpl Transport {\n    pub fn emit_error(&self, id: u64, message: &str) {\n        let body = serde_json::json!({\"jsonrpc\": \"2.0\", \"id\": id, \"error\": {\"code\": -32800, \"message\": message}});\n        self.write_line(&body.to_string());\n    }\n    fn write_line(&self, line: &str) {\n        use std::io::Write;\n        let _ = writeln!(std::io::stdout(), \"{line}\");\n    }\n}\n",
        );
        for mode in [
            &["mcp-lint", "--no-cache", "--format", "concise"][..],
            &["--no-cache", "--format", "concise", "src"][..],
        ] {
            let (code, filtered, stderr) = lint(root, mode);
            let mut every_args = mode.to_vec();
            every_args.push("--all-files");
            let (_, every, _) = lint(root, &every_args);
            assert!(every.contains("MCP001"), "depth {depth}: {every}");
            assert_eq!(filtered, every, "depth {depth} {name} {mode:?}: {stderr}");
            assert_eq!(code, 1);
        }
    }
}

/// What test code is, is decided by `cfg(test)` and the target's kind, never by a directory's
/// name: product modules in directories named `tests` or `benches` are judged (cargo mode and
/// path mode); a module loaded only by `#[cfg(test)] mod x;`, or code under `cfg(all(test, ..))`,
/// is not; code under `cfg(not(test))` is.
#[test]
fn test_code_is_what_cfg_test_and_target_kinds_say() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    write(
        &root.join("Cargo.toml"),
        "[package]\nname = \"tc\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(
        &root.join("src/lib.rs"),
        "pub mod server;\npub mod tests;\n#[path = \"../benches/shared.rs\"]\npub mod shared;\n#[cfg(test)]\nmod mocks;\n#[cfg(not(test))]\npub mod live;\n",
    );
    write(&root.join("src/server/mod.rs"), "pub mod tests;\n");
    write(&root.join("src/server/tests/mod.rs"), BUGGY);
    write(&root.join("src/tests.rs"), BUGGY);
    write(&root.join("benches/shared.rs"), BUGGY);
    write(&root.join("src/mocks.rs"), BUGGY);
    write(&root.join("src/live.rs"), BUGGY);
    for (args, products) in [
        (
            &["mcp-lint", "--no-cache", "--format", "concise"][..],
            &[
                "src/server/tests/mod.rs",
                "src/tests.rs",
                "benches/shared.rs",
                "src/live.rs",
            ][..],
        ),
        // Path mode places a file under `benches/` by where it lies (a bench's support file),
        // not by the `#[path]` that loads it: only cargo mode follows that.
        (
            &["--no-cache", "--format", "concise", "src"][..],
            &["src/server/tests/mod.rs", "src/tests.rs", "src/live.rs"][..],
        ),
    ] {
        let (_, stdout, stderr) = lint(root, args);
        for product in products {
            assert!(
                stdout
                    .lines()
                    .any(|l| l.contains(product) && l.contains("MCP001")),
                "{args:?}: {product} is product code: {stdout}{stderr}"
            );
        }
        assert!(
            !stdout.contains("src/mocks.rs"),
            "{args:?}: test code: {stdout}"
        );
    }
}

/// `#[cfg_attr(all(), path = "real.rs")] mod m;` loads `real.rs` (whatever `m.rs` holds): every
/// file such an attribute may name is read, so a clean decoy never hides the compiled file.
#[test]
fn every_file_a_cfg_attr_path_may_name_is_read() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    package(
        root,
        "ca",
        "#[cfg_attr(all(), path = \"real.rs\")]\nmod m;\n",
    );
    write(&root.join("src/m.rs"), "pub fn clean() {}\n");
    write(&root.join("src/real.rs"), BUGGY);
    let (code, stdout, stderr) = lint(root, &["mcp-lint", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(stdout.contains("src/real.rs"), "{stdout}");
}

/// `--changed-since` cannot be passed by a change that only makes committed code count: a pull
/// request that switches a `#[path]` to an already committed buggy file, or that only changes
/// the lock file (an SDK version that decides a rule), the configuration or a toolchain file,
/// still reports what the full run reports.
#[test]
fn changed_since_sees_what_a_change_makes_count() {
    let full = |root: &Path| lint(root, &["mcp-lint", "--no-cache", "--format", "concise"]).1;
    let since = |root: &Path| {
        lint(
            root,
            &[
                "mcp-lint",
                "--no-cache",
                "--format",
                "concise",
                "--changed-since",
                "HEAD",
            ],
        )
        .1
    };
    // The `#[path]` switch.
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    support::git(root, &["init", "-q", "."]);
    package(root, "sw", "#[path = \"clean.rs\"]\nmod server;\n");
    write(&root.join("src/clean.rs"), "pub fn x() {}\n");
    write(&root.join("src/buggy.rs"), BUGGY);
    support::git(root, &["add", "-A"]);
    support::git(root, &["commit", "-q", "-m", "base"]);
    write(
        &root.join("src/lib.rs"),
        "#[path = \"buggy.rs\"]\nmod server;\n",
    );
    assert!(full(root).contains("src/buggy.rs"), "{}", full(root));
    assert_eq!(since(root), full(root));
    // Only the lock file, the configuration or the toolchain file changes.
    for (name, text) in [
        ("Cargo.lock", "version = 4\n"),
        ("mcp-lint.toml", "preview = false\n"),
        ("rust-toolchain.toml", "[toolchain]\nchannel = \"stable\"\n"),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        support::git(root, &["init", "-q", "."]);
        package(root, "lk", "mod server;\n");
        write(&root.join("src/server.rs"), BUGGY);
        support::git(root, &["add", "-A"]);
        support::git(root, &["commit", "-q", "-m", "base"]);
        write(&root.join(name), text);
        let full = full(root);
        assert!(full.contains("MCP001"), "{name}: {full}");
        assert_eq!(since(root), full, "{name}");
    }
}

/// Path mode: an ignore file listing `src/` (or a member's directory) does not hide the files
/// cargo compiles: each package's target roots are linted, and their module trees followed.
#[test]
fn ignore_files_never_hide_what_cargo_compiles() {
    for (ignore_file, listed) in [(".gitignore", "src/\n"), (".ignore", "crates/\n")] {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path();
        support::git(root, &["init", "-q", "."]);
        write(
            &root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n[package]\nname = \"top\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        );
        write(&root.join("src/lib.rs"), "mod server;\n");
        write(&root.join("src/server.rs"), BUGGY);
        package(&root.join("crates/member"), "member", "mod inner;\n");
        write(&root.join("crates/member/src/inner.rs"), BUGGY);
        write(&root.join(ignore_file), listed);
        let (code, stdout, stderr) = lint(root, &["--no-cache", "--format", "concise", "."]);
        assert_eq!(code, 1, "{ignore_file}: {stdout}{stderr}");
        for file in ["src/server.rs", "crates/member/src/inner.rs"] {
            assert!(stdout.contains(file), "{ignore_file}: {file}: {stdout}");
        }
    }
}

/// `include!("parts/send.rs");` among a module's items: the included file's items are read in
/// place (the same module), so a send there is found.
#[test]
fn an_included_file_is_read_in_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    package(
        root,
        "inc",
        "pub struct S {\n    out: std::sync::mpsc::Sender<String>,\n}\ninclude!(\"parts/send.rs\");\n",
    );
    write(
        &root.join("src/parts/send.rs"),
        "impl S {\n    fn send_error(&self, i: u64, c: i64, m: &str) { let _ = self.out.send(format!(\"{i} {c} {m}\")); }\n    pub fn on_cancelled(&self, id: u64) {\n        self.send_error(id, -32800, \"Request cancelled\");\n    }\n}\n",
    );
    let (code, stdout, stderr) = lint(root, &["mcp-lint", "--no-cache", "--format", "concise"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.contains("src/parts/send.rs:4:9: error[MCP001]"),
        "{stdout}"
    );
}
