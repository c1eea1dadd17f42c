//! Configuration files, command-line levels, baselines, rule docs listing, statistics and
//! --changed-since, end to end.

use std::path::Path;

mod support;

const BUGGY: &str = r#"pub fn dispatch(method: &str, id: u64, out: &Sender<Value>) {
    if method == "notifications/cancelled" {
        let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "cancelled"}}));
    }
}
"#;

const CUSTOM_SINK: &str = r#"pub fn on_cancel(&self, id: u64) {
    self.session.emit_answer(id, "cancelled");
}
"#;

// The binary's exit status, stdout and stderr, run in `dir` with `args`.
use support::mcp_lint as lint;

fn project(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/server.rs"), BUGGY).expect("write");
    std::fs::write(dir.path().join("src/custom.rs"), CUSTOM_SINK).expect("write");
    if let Some(config) = config {
        std::fs::write(dir.path().join("mcp-lint.toml"), config).expect("write");
    }
    dir
}

fn codes(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.contains("[MCP"))
        .map(|l| l.to_string())
        .collect()
}

#[test]
fn a_config_file_turns_a_rule_off_or_to_a_warning() {
    let dir = project(None);
    let (code, stdout, stderr) = lint(dir.path(), &["src", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(codes(&stdout).len(), 1, "{stdout}");

    let off = project(Some("[rules]\nMCP001 = \"allow\"\n"));
    let (code, stdout, stderr) = lint(off.path(), &["src", "--format", "concise"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(codes(&stdout).is_empty());

    let warn = project(Some("[rules]\ncancel-sends-response = \"warn\"\n"));
    let (code, stdout, _) = lint(warn.path(), &["src", "--format", "json"]);
    assert_eq!(code, 1, "warnings are still findings");
    let json: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(json["diagnostics"][0]["severity"], "warning");
}

#[test]
fn command_line_levels_override_the_config_in_order() {
    let dir = project(Some("[rules]\nMCP001 = \"allow\"\n"));
    let (code, _, stderr) = lint(dir.path(), &["src", "-D", "MCP001"]);
    assert_eq!(code, 1, "{stderr}");
    let (code, _, stderr) = lint(
        dir.path(),
        &["src", "-D", "all", "-A", "cancel-sends-response"],
    );
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &["src", "-A", "all", "-W", "MCP001", "--format", "json"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains("\"severity\": \"warning\""), "{stdout}");
    let (code, _, stderr) = lint(dir.path(), &["src", "-D", "MCP123"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown rule `MCP123`"), "{stderr}");
}

#[test]
fn a_custom_sink_name_produces_findings() {
    let dir = project(None);
    let (_, stdout, _) = lint(dir.path(), &["src", "--format", "concise"]);
    assert!(!stdout.contains("custom.rs"), "{stdout}");
    let taught = project(Some("[vocabulary]\nsink-calls = [\"emit_answer\"]\n"));
    let (code, stdout, stderr) = lint(taught.path(), &["src", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("src/custom.rs:2:5: error[MCP001]"),
        "{stdout}"
    );
}

#[test]
fn excludes_and_per_path_overrides() {
    let dir = project(Some(
        "exclude = [\"src/custom.rs\"]\n\n[[overrides]]\npaths = [\"src/server.rs\"]\nrules = { MCP001 = \"allow\" }\n\n[vocabulary]\nsink-calls = [\"emit_answer\"]\n",
    ));
    let (code, stdout, stderr) = lint(dir.path(), &["src", "--format", "concise"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
}

#[test]
fn a_bad_config_is_a_spanned_error_with_exit_2() {
    let dir = project(Some(
        "[rules]\nMCP001 = \"deny\"\n\n[vocabulary]\nsink-call = [\"x\"]\n",
    ));
    let (code, _, stderr) = lint(dir.path(), &["src"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("invalid configuration"), "{stderr}");
    assert!(
        stderr.contains("mcp-lint.toml:5:1"),
        "points at the line: {stderr}"
    );
    assert!(
        stderr.contains("sink-call = [\"x\"]"),
        "shows the config's own line: {stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");

    let unknown_rule = project(Some("[rules]\nMCP042 = \"warn\"\n"));
    let (code, _, stderr) = lint(unknown_rule.path(), &["src"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown rule `MCP042`"), "{stderr}");
    assert!(stderr.contains("mcp-lint.toml:2:1"), "{stderr}");

    let bad_value = project(Some("[rules]\nMCP001 = \"loud\"\n"));
    let (code, _, stderr) = lint(bad_value.path(), &["src"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("mcp-lint.toml:2:"), "{stderr}");
}

#[test]
fn a_config_switch_requires_a_reason_in_suppressions() {
    let dir = project(Some("require-suppression-reason = true\n"));
    let text = BUGGY.replace(
        "        let _ = out.send",
        "        // mcp-lint: allow(MCP001)\n        let _ = out.send",
    );
    std::fs::write(dir.path().join("src/server.rs"), text).expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &["src", "--format", "concise"]);
    assert_eq!(code, 1, "{stderr}");
    let lines = codes(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(
        lines[0].contains("warning[MCP901] [invalid-suppression] this suppression gives no reason"),
        "{stdout}"
    );

    let plain = project(None);
    std::fs::write(
        plain.path().join("src/server.rs"),
        BUGGY.replace(
            "        let _ = out.send",
            "        // mcp-lint: allow(MCP001)\n        let _ = out.send",
        ),
    )
    .expect("write");
    let (code, _, _) = lint(plain.path(), &["src"]);
    assert_eq!(code, 0, "no reason needed by default");
}

#[test]
fn cargo_metadata_configuration() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.mcp-lint]\nrules = { MCP001 = \"warn\" }\n",
    )
    .expect("write");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &["--format", "json"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stdout.contains("\"severity\": \"warning\""), "{stdout}");
    let (code, stdout, stderr) = lint(dir.path(), &["--show-settings"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("metadata.mcp-lint"), "{stdout}");
    assert!(
        stdout.contains("MCP001 = \"warn\"  # cancel-sends-response\n"),
        "{stdout}"
    );
}

#[test]
fn baseline_hides_known_findings_but_not_new_ones() {
    let dir = tempfile::tempdir().expect("temp dir");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/seed-server/src");
    for entry in std::fs::read_dir(&example).expect("example") {
        let entry = entry.expect("entry");
        std::fs::copy(entry.path(), dir.path().join(entry.file_name())).expect("copy");
    }
    let (code, _, stderr) = lint(dir.path(), &[".", "--write-baseline", "baseline.json"]);
    assert_eq!(code, 0, "{stderr}");
    // Without preview mode: the three MCP001 sends and MCP004's dispatcher; MCP002's banner and
    // MCP006's code 0 are not among them (both in preview since batches 120 and 121).
    assert!(stderr.contains("Wrote 4 findings"), "{stderr}");
    let (code, stdout, _) = lint(
        dir.path(),
        &[".", "--baseline", "baseline.json", "--format", "concise"],
    );
    assert_eq!(code, 0, "{stdout}");

    // Insert lines above the old findings and add a new violation above them.
    let path = dir.path().join("responder.rs");
    let text = std::fs::read_to_string(&path).expect("read");
    let new = "pub fn on_cancelled(out: &UnboundedSender<Value>, id: Value) {\n    let _ = out.send(json!({\"jsonrpc\": \"2.0\", \"id\": id, \"error\": {\"code\": -32800, \"message\": \"x\"}}));\n}\n\n// padding\n// padding\n";
    let at = text.find("pub struct RequestResponder").expect("anchor");
    std::fs::write(&path, format!("{}{new}{}", &text[..at], &text[at..])).expect("write");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[".", "--baseline", "baseline.json", "--format", "concise"],
    );
    assert_eq!(code, 1, "{stderr}");
    let lines = codes(&stdout);
    assert_eq!(lines.len(), 1, "only the new finding: {stdout}");
    assert!(lines[0].contains("responder.rs"), "{stdout}");

    // Fixing an old finding leaves a stale entry, which is counted.
    let (_, _, _) = lint(dir.path(), &[".", "--fix", "--allow-no-vcs"]);
    let (_, _, stderr) = lint(dir.path(), &[".", "--baseline", "baseline.json"]);
    assert!(stderr.contains("no longer match"), "{stderr}");
    assert!(
        stderr.contains("The baseline hid 1 finding; 3 of its entries no longer match"),
        "plurals: {stderr}"
    );
}

#[test]
fn explain_and_list_rules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (code, stdout, stderr) = lint(dir.path(), &["--list-rules"]);
    assert_eq!(code, 0, "{stderr}");
    for code in ["MCP000", "MCP001", "MCP900", "MCP901"] {
        assert!(stdout.contains(code), "{stdout}");
    }
    let (code, stdout, stderr) = lint(dir.path(), &["--explain", "MCP001"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.starts_with("# MCP001 `cancel-sends-response`"),
        "{stdout}"
    );
    let (code, by_name, stderr) = lint(dir.path(), &["--explain", "cancel-sends-response"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(by_name, stdout);
    let (code, _, stderr) = lint(dir.path(), &["--explain", "MCP777"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("unknown rule"), "{stderr}");
}

/// `preview = true` is read from `mcp-lint.toml` and from Cargo.toml's metadata alike, and
/// `--show-settings` shows preview mode, and which rules are in preview.
#[test]
fn preview_mode_in_the_configuration_and_the_shown_settings() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[package.metadata.mcp-lint]\npreview = true\n",
    )
    .expect("write");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/lib.rs"), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(dir.path(), &["--show-settings"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("\npreview = true\n"), "{stdout}");
    assert!(
        stdout.contains("# stdio-embedded-newline, the default, in preview\n"),
        "{stdout}"
    );
    let (_, stdout, _) = lint(dir.path(), &["--show-settings", "--no-preview"]);
    assert!(stdout.contains("\npreview = false\n"), "{stdout}");
    assert!(
        stdout.contains(
            "# stdio-embedded-newline, the default, in preview: does not run without \
             `preview = true`\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("MCP001 = \"deny\"  # cancel-sends-response, the default\n"),
        "stable rules are shown as before: {stdout}"
    );
    let bad = project(Some("preview = \"yes\"\n"));
    let (code, _, stderr) = lint(bad.path(), &["src"]);
    assert_eq!(code, 2, "a bad value is an error: {stderr}");
}

#[test]
fn statistics() {
    let (code, stdout, stderr) = lint(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &["examples/seed-server", "--preview", "--statistics"],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("    3  MCP001  cancel-sends-response          2       1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    1  MCP006  bad-error-code                 0       0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("    1  MCP004  ping-not-answered              1       0"),
        "{stdout}"
    );
    assert!(
        stdout.contains("6  total; 4 fixable with --fix"),
        "{stdout}"
    );

    // With --format json, the same counts as JSON.
    let (code, stdout, stderr) = lint(
        Path::new(env!("CARGO_MANIFEST_DIR")),
        &[
            "examples/seed-server",
            "--preview",
            "--statistics",
            "--format",
            "json",
        ],
    );
    assert_eq!(code, 1, "{stderr}");
    let counts: serde_json::Value = serde_json::from_str(&stdout).expect("JSON statistics");
    assert_eq!(
        counts[0],
        serde_json::json!({"code": "MCP001", "name": "cancel-sends-response", "count": 3, "safe_fixes": 2, "unsafe_fixes": 1}),
        "{stdout}"
    );
    assert_eq!(counts.as_array().map(Vec::len), Some(4), "{stdout}");
}

fn git(dir: &Path, args: &[&str]) {
    support::git(dir, args);
}

#[test]
fn changed_since_reports_only_changed_files() {
    let dir = tempfile::tempdir().expect("temp dir");
    git(dir.path(), &["init", "-q"]);
    std::fs::write(dir.path().join("old.rs"), BUGGY).expect("write");
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "old"]);
    std::fs::write(dir.path().join("new.rs"), BUGGY).expect("write");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[".", "--changed-since", "HEAD", "--format", "concise"],
    );
    assert_eq!(code, 1, "{stderr}");
    let lines = codes(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    assert!(lines[0].starts_with("new.rs:"), "{stdout}");
    let (code, _, stderr) = lint(dir.path(), &[".", "--changed-since", "no-such-ref"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("not a git revision"), "{stderr}");
}

/// Every key `--show-settings` prints is spelt as the configuration spells it: fed back as the
/// configuration file, its output gives the same settings.
#[test]
fn show_settings_round_trips_as_a_configuration_file() {
    let config = r#"
protocol-versions = ["2025-11-25"]
require-suppression-reason = true
max-file-size-mib = 1
exclude = ["src/generated", "odd \"name\"/**"]
sdk = { name = "rmcp", version = "2.1" }

[rules]
cancel-sends-response = "warn"
MCP900 = "allow"

[[overrides]]
paths = ["examples/**"]
rules = { bad-error-code = "deny", MCP002 = "allow" }

[vocabulary]
sink-calls = ["emit_answer"]
sink-paths = ["my_sdk::reply"]
cancel-hooks = ["on_abort"]
cancel-notifications = ["$/cancelRequest", "AbortNotification"]
request-tokens = ["req_ct"]
shutdown-tokens = ["lifetime"]
request-handlers = ["serve_call"]
"#;
    let dir = project(Some(config));
    let show = |dir: &Path, args: &[&str]| {
        let (code, stdout, stderr) = lint(dir, &[&["--show-settings"], args].concat());
        assert_eq!(code, 0, "{stderr}");
        stdout
    };
    let values = |text: &str| -> toml::Table {
        toml::from_str(text).unwrap_or_else(|e| panic!("not TOML ({e}):\n{text}"))
    };
    let report = |dir: &Path, args: &[&str]| {
        let (code, stdout, stderr) = lint(dir, &[&["src", "--format", "json"], args].concat());
        assert_eq!(code, 1, "{stderr}");
        stdout
    };
    for (args, level) in [
        (&[][..], "warn"),
        (
            &["-D", "MCP001", "--protocol-version", "2026-07-28"][..],
            "deny",
        ),
        (&["--preview"][..], "warn"),
    ] {
        let expected = report(dir.path(), args);
        let first = show(dir.path(), args);
        let preview = format!("preview = {}", args.contains(&"--preview"));
        for key in [
            &preview,
            "sink-calls = [",
            "request-handlers = [",
            "max-file-size-mib = 1",
            "require-suppression-reason = true",
            &format!("MCP001 = \"{level}\""),
        ] {
            assert!(first.contains(key), "{key}: {first}");
        }
        assert!(!first.contains("sink_calls"), "{first}");
        std::fs::write(dir.path().join("mcp-lint.toml"), &first).expect("write");
        let second = show(dir.path(), &[]);
        assert_eq!(values(&first), values(&second), "{first}\n----\n{second}");
        // The shown settings lint as the configuration and the flags did.
        assert_eq!(report(dir.path(), &[]), expected, "{first}");
        std::fs::write(dir.path().join("mcp-lint.toml"), config).expect("write");
    }
    // The defaults too.
    let plain = project(None);
    let first = show(plain.path(), &[]);
    std::fs::write(plain.path().join("mcp-lint.toml"), &first).expect("write");
    assert_eq!(values(&first), values(&show(plain.path(), &[])));
}

/// A finding whose primary span is in an unchanged caller is kept when its call chain passes
/// through a changed file (issue 14): the change that causes it is in the callee.
#[test]
fn changed_since_keeps_findings_whose_chain_passes_through_a_change() {
    let dir = tempfile::tempdir().expect("temp dir");
    git(dir.path(), &["init", "-q"]);
    std::fs::write(
        dir.path().join("caller.rs"),
        "impl S {\n    pub fn on_cancelled(&self, id: u64) {\n        self.reply_cancelled(id);\n    }\n}\n",
    )
    .expect("write");
    let helper = dir.path().join("helper.rs");
    std::fs::write(
        &helper,
        "impl S {\n    fn reply_cancelled(&self, id: u64) {\n        self.forget(id);\n    }\n}\n",
    )
    .expect("write");
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "old"]);
    std::fs::write(
        &helper,
        "impl S {\n    fn reply_cancelled(&self, id: u64) {\n        self.send_error(id, -32800, \"Request cancelled\");\n    }\n}\n",
    )
    .expect("write");
    let (code, stdout, stderr) = lint(
        dir.path(),
        &[".", "--changed-since", "HEAD", "--format", "concise"],
    );
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert!(
        stdout.lines().any(|l| l.starts_with("caller.rs:3:")),
        "the caller's finding is kept: {stdout}"
    );
}

#[test]
fn timings_go_to_stderr_phase_by_phase_and_leave_the_report_alone() {
    let dir = project(None);
    let args = ["mcp-lint", "src", "--format", "json", "--no-cache"];
    let (plain_status, plain, plain_err) = lint(dir.path(), &args);
    let (status, stdout, stderr) = lint(dir.path(), &[&args[..], &["--timings"]].concat());
    assert_eq!((status, stdout.as_str()), (plain_status, plain.as_str()));
    assert!(!plain_err.contains("Timings"), "{plain_err}");
    let table: Vec<&str> = stderr
        .lines()
        .skip_while(|l| !l.starts_with("Timings"))
        .collect();
    for phase in [
        "discover",
        "read, pre-filter, parse (module trees)",
        "crate graphs and rules",
        "suppressions and policy",
        "output",
        "other",
        "total",
    ] {
        let row = table
            .iter()
            .find(|l| l.trim_start().starts_with(phase))
            .unwrap_or_else(|| panic!("no `{phase}` row in {stderr}"));
        // Wall time, then CPU time, both in milliseconds.
        assert_eq!(row.matches(" ms").count(), 2, "{row}");
    }
    // Two files read and parsed, per file work summed over threads.
    let files = table
        .iter()
        .find(|l| l.trim_start().starts_with("read, pre-filter"))
        .and_then(|l| l.split_whitespace().last())
        .unwrap_or_default();
    assert_eq!(files, "2", "{stderr}");
    assert!(
        table.iter().any(|l| l.contains("serial (phases")),
        "{stderr}"
    );
    assert!(
        table.iter().any(|l| l.contains("summed over threads: read")
            && l.contains("parse and facts")
            && l.contains("crate graph")
            && l.contains("rules")),
        "{stderr}"
    );
}
