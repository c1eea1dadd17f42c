//! Output and memory stay bounded on small hostile inputs (issue 30): a finding shows a bounded
//! part of its call chain, long lines are windowed inside multi-line spans and in suggestions,
//! and a deep chain of module files costs memory in proportion to the files, not to their
//! square. The inputs are generated here.

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

mod support;

use support::write;

/// The binary's exit status and stdout's size (stdout read as it comes, not kept).
fn run(dir: &Path, args: &[&str]) -> (i32, usize, String) {
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir)
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("runs");
    (
        output.status.code().unwrap_or(-1),
        output.stdout.len(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A thousand hooks calling one chain of a thousand calls (104 KB): each finding shows a bounded
/// part of the chain, so every report is a few megabytes (it was 130 MB of human text and 380 MB
/// of JSON, and SARIF aborted past 6 GB).
#[test]
fn a_long_chain_fanned_in_is_shown_in_bounded_pieces() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (hooks, hops) = (1000, 1000);
    let mut text = String::from(
        "pub struct S;\nimpl S {\n    fn send_error(&self, _i: u64, _c: i64, _m: &str) {}\n",
    );
    for h in 0..hooks {
        text.push_str(&format!(
            "    pub fn on_cancel_{h}(&self, id: u64) {{ self.f0(id); }}\n"
        ));
    }
    for i in 0..hops {
        let next = if i + 1 < hops {
            format!("self.f{}(id);", i + 1)
        } else {
            "self.send_error(id, -32800, \"Request cancelled\");".to_string()
        };
        text.push_str(&format!("    fn f{i}(&self, id: u64) {{ {next} }}\n"));
    }
    text.push_str("}\n");
    write(&dir.path().join("fan.rs"), &text);
    for (format, limit) in [("human", 8 << 20), ("json", 16 << 20), ("sarif", 16 << 20)] {
        let (code, size, stderr) = run(dir.path(), &["--no-cache", "--format", format, "fan.rs"]);
        assert_eq!(code, 1, "{format}: {stderr}");
        assert!(size < limit, "{format}: {size} bytes");
    }
    let output = Command::cargo_bin("cargo-mcp-lint")
        .expect("binary")
        .current_dir(dir.path())
        .args(["--no-cache", "--format", "json", "fan.rs"])
        .output()
        .expect("runs");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let diagnostics = json["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), hooks);
    for d in diagnostics {
        let labels = d["labels"].as_array().map_or(0, Vec::len);
        assert!(labels <= 10, "{labels} labels");
    }
}

/// Two hundred nested sends around one line of a megabyte: each multi-line span shows a window
/// of the long line where it ends (the report was 200 MB).
#[test]
fn long_lines_are_windowed_inside_multi_line_spans() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut text = String::from("pub fn on_cancelled(&self, id: u64) {\n");
    for _ in 0..200 {
        text.push_str("    self.send_error(id, -32800,\n");
    }
    text.push('"');
    text.push_str(&"x".repeat(1 << 20));
    text.push('"');
    text.push_str(&")".repeat(200));
    text.push_str(";\n}\n");
    write(&dir.path().join("n.rs"), &text);
    let (code, size, stderr) = run(dir.path(), &["--no-cache", "n.rs"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(size < 4 << 20, "{size} bytes");
}

/// Fifteen thousand findings on one line of 435 KB: showing each finding's suggestion costs
/// what it shows, not the line (a diff of the whole line per finding took minutes). The bound is
/// generous: it catches work by the square of the findings, not a slow machine.
#[test]
fn many_findings_on_one_long_line_cost_what_they_show() {
    let dir = tempfile::tempdir().expect("temp dir");
    let text = format!(
        "pub fn on_cancelled(&self, id: u64) {{ {}}}\n",
        "self.send_error(id, 0, \"c\"); ".repeat(15_000)
    );
    write(&dir.path().join("o.rs"), &text);
    let started = std::time::Instant::now();
    let (code, size, stderr) = run(dir.path(), &["--no-cache", "o.rs"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(size < 15_000 * 4096, "{size} bytes");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(300),
        "{:?}",
        started.elapsed()
    );
}
