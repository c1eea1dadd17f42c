//! The example server must compile: it is the project's demo and the README's first command.
//!
//! It is checked offline: its dependencies are dev-dependencies of this crate at the versions of
//! its own Cargo.lock, so `cargo test --locked` has downloaded them already.

use std::collections::BTreeSet;
use std::path::Path;

mod support;

const EXAMPLE: &str = "examples/seed-server";

#[test]
fn seed_server_example_compiles() {
    support::run_ok(
        support::cargo()
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args([
                "check",
                "--locked",
                "--offline",
                "--quiet",
                "--manifest-path",
                "examples/seed-server/Cargo.toml",
                "--target-dir",
                "target/seed-server-check",
            ]),
    );
}

/// Every package the example's Cargo.lock pins is one this crate builds for the host (so `cargo
/// test` downloaded it and the offline check above can find it).
#[test]
fn the_examples_dependencies_are_downloaded_by_cargo_test() {
    let lock_path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(EXAMPLE)
        .join("Cargo.lock");
    let lock: toml::Value = toml::from_str(
        &std::fs::read_to_string(&lock_path).expect("the example's Cargo.lock is readable"),
    )
    .expect("the example's Cargo.lock is TOML");
    let pinned: BTreeSet<(String, String)> = lock["package"]
        .as_array()
        .expect("[[package]] entries")
        .iter()
        .filter(|p| p.get("source").is_some())
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                p["version"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert!(pinned.iter().any(|(name, _)| name == "tokio"), "{pinned:?}");
    let metadata = support::metadata();
    let built: BTreeSet<(String, String)> = metadata["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap_or_default().to_string(),
                p["version"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let missing: Vec<String> = pinned
        .difference(&built)
        .map(|(name, version)| format!("{name} {version}"))
        .collect();
    assert!(
        missing.is_empty(),
        "{EXAMPLE}/Cargo.lock pins packages this crate's graph lacks: {missing:?}; make them \
         agree (a dev-dependency in Cargo.toml, or `cargo update -p NAME --precise VERSION` on \
         either side)"
    );
}

/// The example fixed by `--fix` still compiles without a warning (a `-D warnings` build takes
/// it): a safe fix that removes a send also removes the `let`s only the send used, and renames
/// the parameters only it used `_name`, as rustc suggests.
#[test]
fn the_fixed_example_compiles_without_warnings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = dir.path().join("seed-server");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE);
    for part in ["Cargo.toml", "Cargo.lock"] {
        std::fs::create_dir_all(&copy).expect("mkdir");
        std::fs::copy(example.join(part), copy.join(part)).expect("copy");
    }
    support::copy_tree(&example.join("src"), &copy.join("src"));
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/seed-server-check");
    let check = || {
        let output = support::run_ok(
            support::cargo()
                .current_dir(&copy)
                .args(["check", "--locked", "--offline", "--target-dir"])
                .arg(&target),
        );
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let before = check();
    assert!(!before.contains("warning"), "{before}");
    let (code, stdout, stderr) = support::mcp_lint(
        &copy,
        &["--no-cache", "--fix", "--allow-no-vcs", "--allow-dirty"],
    );
    assert!(code == 0 || code == 1, "{stdout}{stderr}");
    assert!(stderr.contains("Applied"), "{stderr}");
    let after = check();
    assert!(
        !after.contains("warning"),
        "the fixed example warns:\n{after}"
    );
}

/// A client driving the example over stdio, as MCP clients do: it receives no response for a
/// request it cancelled once the example is fixed with `--fix --unsafe-fixes`. The same session
/// against the example as it ships shows what the fixes take away (responses for every cancelled
/// id, and a banner line that is not JSON), so the test can fail.
#[test]
fn a_client_gets_no_response_for_a_cancelled_request_after_the_fixes() {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/seed-server-run");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE);

    // Both are built from fresh copies: cargo's fingerprints name sources relative to the
    // package, so a copy older than the last build of the other one would count as built.
    let dir = tempfile::tempdir().expect("temp dir");
    let shipped_copy = dir.path().join("shipped");
    copy_example(&example, &shipped_copy);
    let shipped = session(&build_server(&shipped_copy, &target));
    let cancelled: Vec<&Message> = shipped
        .messages
        .iter()
        .filter(|m| m.id == Some(json_id(2)) || m.id == Some(json_id(77)))
        .collect();
    assert!(
        cancelled.len() >= 3,
        "the example as it ships answers the cancelled request twice and the unknown one once: {shipped:?}"
    );
    assert!(!shipped.noise.is_empty(), "{shipped:?}");

    let copy = dir.path().join("seed-server");
    copy_example(&example, &copy);
    let (code, stdout, stderr) = support::mcp_lint(
        &copy,
        &[
            "--no-cache",
            "--fix",
            "--unsafe-fixes",
            "--allow-no-vcs",
            "--format",
            "concise",
        ],
    );
    assert_eq!(code, 0, "every finding is fixed:\n{stdout}{stderr}");

    let fixed = session(&build_server(&copy, &target));
    assert!(
        fixed.noise.is_empty(),
        "every line on stdout is a JSON-RPC message: {fixed:?}"
    );
    for cancelled in [2, 77] {
        assert!(
            fixed
                .messages
                .iter()
                .all(|m| m.id != Some(json_id(cancelled))),
            "a response for the cancelled id {cancelled}: {fixed:?}"
        );
    }
    // Every request not cancelled is answered exactly once, the one cancelled after its answer
    // (id 1) too; `ping` gets a result.
    for answered in [1, 3, 4, 5] {
        let answers: Vec<&Message> = fixed
            .messages
            .iter()
            .filter(|m| m.id == Some(json_id(answered)))
            .collect();
        assert_eq!(answers.len(), 1, "id {answered}: {fixed:?}");
    }
    let ping = fixed
        .messages
        .iter()
        .find(|m| m.id == Some(json_id(4)))
        .expect("ping answered");
    assert_eq!(
        ping.body.get("result"),
        Some(&serde_json::json!({})),
        "{ping:?}"
    );
}

/// Copy the example's manifest, lockfile and sources to `to` (new files, new times).
fn copy_example(example: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    // Its configuration too: it runs the rules in preview (MCP002's banner is one of its bugs).
    for part in ["Cargo.toml", "Cargo.lock", "mcp-lint.toml"] {
        std::fs::copy(example.join(part), to.join(part)).expect("copy");
    }
    support::copy_tree(&example.join("src"), &to.join("src"));
}

fn json_id(n: u64) -> serde_json::Value {
    serde_json::Value::from(n)
}

/// Build the example at `dir` (offline, against the versions its Cargo.lock pins) and return the
/// path of its binary, as cargo reports it. The shipped and the fixed example share a target
/// directory, so that the dependencies are built once.
fn build_server(dir: &Path, target: &Path) -> std::path::PathBuf {
    let output = support::run_ok(
        support::cargo()
            .current_dir(dir)
            .args([
                "build",
                "--locked",
                "--offline",
                "--quiet",
                "--message-format",
                "json-render-diagnostics",
                "--target-dir",
            ])
            .arg(target),
    );
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .find_map(|m| m.get("executable")?.as_str().map(std::path::PathBuf::from))
        .unwrap_or_else(|| panic!("cargo built no executable in {}", dir.display()))
}

#[derive(Debug)]
struct Message {
    id: Option<serde_json::Value>,
    body: serde_json::Value,
}

/// What the server wrote to stdout in a session: JSON-RPC messages, and lines that are not.
#[derive(Debug)]
struct Session {
    messages: Vec<Message>,
    noise: Vec<String>,
}

/// One client session: initialize; a slow `tools/call` (id 2) and a fast one (id 3, whose answer
/// shows that id 2 is in flight); `notifications/cancelled` for id 2, then for id 1 (answered
/// already) and id 77 (never sent); `ping` (id 4); a second slow call (id 5), started after id 2,
/// whose answer shows that id 2 would have been answered by then. Then stdin is closed and the
/// server runs to its end.
fn session(server: &Path) -> Session {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};
    use std::sync::mpsc;
    use std::time::Duration;

    let mut child = Command::new(server)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", server.display()));
    let stdout = child.stdout.take().expect("piped stdout");
    let (lines_tx, lines) = mpsc::channel::<String>();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut send = move |message: serde_json::Value| {
        writeln!(stdin, "{message}").expect("the server reads stdin");
        stdin.flush().expect("flush");
    };
    let mut seen = Session {
        messages: Vec::new(),
        noise: Vec::new(),
    };
    let wait_for = |seen: &mut Session, id: u64| loop {
        let line = match lines.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => line,
            Err(e) => panic!("no answer for id {id} ({e}): {seen:?}"),
        };
        match serde_json::from_str::<serde_json::Value>(&line) {
            Ok(body) => {
                let message = Message {
                    id: body.get("id").cloned(),
                    body,
                };
                let done = message.id == Some(json_id(id));
                seen.messages.push(message);
                if done {
                    break;
                }
            }
            Err(_) => seen.noise.push(line),
        }
    };

    let call = |id: u64, tool: &str, arguments: serde_json::Value| {
        serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}})
    };
    let cancel = |id: u64| {
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": id, "reason": "the user stopped it"}})
    };
    send(
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "example-test", "version": "0"}}}),
    );
    wait_for(&mut seen, 1);
    send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(call(
        2,
        "slow_search",
        serde_json::json!({"query": "cancel"}),
    ));
    send(call(3, "fast_echo", serde_json::json!({"text": "hello"})));
    wait_for(&mut seen, 3);
    send(cancel(2));
    send(cancel(1));
    send(cancel(77));
    send(serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}));
    wait_for(&mut seen, 4);
    send(call(
        5,
        "slow_search",
        serde_json::json!({"query": "token"}),
    ));
    wait_for(&mut seen, 5);
    // Closing stdin (the closure owns it).
    drop(send);

    // stdin is closed: the server stops; whatever it wrote until then is part of the session.
    loop {
        match lines.recv_timeout(Duration::from_secs(60)) {
            Ok(line) => match serde_json::from_str::<serde_json::Value>(&line) {
                Ok(body) => seen.messages.push(Message {
                    id: body.get("id").cloned(),
                    body,
                }),
                Err(_) => seen.noise.push(line),
            },
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = child.kill();
                panic!("the server did not stop when stdin closed: {seen:?}");
            }
        }
    }
    let _ = reader.join();
    let _ = child.wait();
    seen
}
