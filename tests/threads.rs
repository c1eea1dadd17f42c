//! The result does not depend on how the work is spread: 1, 2 or all threads give the same
//! report, byte for byte, and a workspace linted at once reports what its packages linted one by
//! one report (they do not call each other).

use std::path::Path;
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;

mod support;

/// The JSON report of a run in `dir` with `threads` worker threads (`None`: rayon's default, one
/// per core), and its exit status.
fn report(dir: &Path, args: &[&str], threads: Option<usize>) -> (i32, String) {
    let mut command = Command::cargo_bin("cargo-mcp-lint").expect("binary is built");
    command
        .current_dir(dir)
        .args(["mcp-lint", "--format", "json", "--no-cache", "--preview"])
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("RAYON_NUM_THREADS");
    if let Some(threads) = threads {
        command.env("RAYON_NUM_THREADS", threads.to_string());
    }
    let output = command.output().expect("binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn findings(json: &str) -> Vec<serde_json::Value> {
    let value: serde_json::Value = serde_json::from_str(json).expect("a JSON report");
    value
        .as_array()
        .or_else(|| value["diagnostics"].as_array())
        .cloned()
        .unwrap_or_default()
}

#[test]
fn one_two_and_all_threads_report_the_same() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // Path mode over every fixture (hundreds of files, every rule), and cargo mode on the example
    // (a module tree and follow-up waves).
    for (dir, args) in [
        (root.to_path_buf(), vec!["tests/fixtures"]),
        (root.join("examples/seed-server"), vec![]),
    ] {
        let (status, one) = report(&dir, &args, Some(1));
        assert!(
            findings(&one).len() > 5,
            "the run finds something in {}: {one}",
            dir.display()
        );
        for threads in [Some(2), Some(3), None] {
            let (other_status, other) = report(&dir, &args, threads);
            assert_eq!(
                other_status,
                status,
                "{threads:?} threads in {}",
                dir.display()
            );
            assert!(
                one == other,
                "{threads:?} threads in {} reported otherwise than 1:\n{one}\n---\n{other}",
                dir.display()
            );
        }
    }
}

const SERVER: &str = r#"
pub fn dispatch(method: &str, id: u64, out: &Sender<Value>) {
    match method {
        "notifications/cancelled" => {
            let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": 0, "message": "cancelled"}}));
        }
        "ping" => {
            let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "method not found"}}));
        }
        _ => {}
    }
}
"#;

#[test]
fn a_workspace_at_once_reports_what_its_packages_report_one_by_one() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    let write = |relative: &str, text: &str| {
        let path = root.join(relative);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "Cargo.toml",
        "[workspace]\nmembers = [\"alpha\", \"beta\", \"gamma\"]\nresolver = \"2\"\n",
    );
    for name in ["alpha", "beta", "gamma"] {
        write(
            &format!("{name}/Cargo.toml"),
            &format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        );
        write(&format!("{name}/src/lib.rs"), "mod server;\n");
        write(&format!("{name}/src/server.rs"), SERVER);
    }
    write("beta/src/bin/tool.rs", "mod extra;\nfn main() {}\n");
    write("beta/src/bin/extra.rs", SERVER);

    let (status, at_once) = report(root, &["--workspace"], None);
    assert_eq!(status, 1, "{at_once}");
    let mut whole = findings(&at_once);
    let mut one_by_one = Vec::new();
    for name in ["alpha", "beta", "gamma"] {
        let (_, alone) = report(root, &["-p", name], None);
        one_by_one.extend(findings(&alone));
    }
    let key = |f: &serde_json::Value| f.to_string();
    whole.sort_by_key(key);
    one_by_one.sort_by_key(key);
    // MCP001 and MCP006 in each of the four server files.
    assert_eq!(whole.len(), 8, "{at_once}");
    assert_eq!(whole, one_by_one);
}
