//! The README's editor settings end to end: a real rust-analyzer, given the README's
//! `check.overrideCommand`, publishes MCP001 on save and offers its safe fix as a quick fix.
//!
//! Ignored by default: it needs the `rust-analyzer` rustup component, which the test command does
//! not install. Run it with `cargo test --test editor -- --ignored` after
//! `rustup component add rust-analyzer`. It needs no network: the crate it opens has no
//! dependencies.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod support;

/// One rust-analyzer process spoken to over stdio.
struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
}

impl Server {
    fn start(root: &Path, path_dirs: &str) -> Server {
        let mut child = Command::new("rust-analyzer")
            .current_dir(root)
            .env("PATH", path_dirs)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rust-analyzer runs (rustup component add rust-analyzer)");
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, messages) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length:") {
                        length = v.trim().parse::<usize>().ok();
                    }
                }
                let Some(length) = length else { return };
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let Ok(message) = serde_json::from_slice::<Value>(&body) else {
                    return;
                };
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        Server {
            child,
            stdin,
            messages,
            next_id: 0,
        }
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("write");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Reads messages until `wanted` picks one, answering the server's own requests with null.
    fn wait_for<T>(&mut self, what: &str, mut wanted: impl FnMut(&Value) -> Option<T>) -> T {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let message = match self.messages.recv_timeout(left) {
                Ok(message) => message,
                Err(RecvTimeoutError::Timeout) => panic!("rust-analyzer never sent {what}"),
                Err(RecvTimeoutError::Disconnected) => panic!("rust-analyzer exited before {what}"),
            };
            if message.get("id").is_some() && message.get("method").is_some() {
                let id = message["id"].clone();
                self.send(&json!({"jsonrpc": "2.0", "id": id, "result": null}));
                continue;
            }
            if let Some(found) = wanted(&message) {
                return found;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn readme_override_command() -> Value {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README");
    let start = readme
        .find("\"rust-analyzer.check.overrideCommand\"")
        .expect("the README gives the settings");
    let block_start = readme[..start].rfind("```json").expect("a json block") + "```json".len();
    let block_end = start + readme[start..].find("```").expect("the block ends");
    let settings: Value = serde_json::from_str(&readme[block_start..block_end])
        .expect("the README's settings are JSON");
    settings["rust-analyzer.check.overrideCommand"].clone()
}

#[test]
#[ignore = "needs the rust-analyzer rustup component: cargo test --test editor -- --ignored"]
fn rust_analyzer_publishes_the_finding_and_offers_the_fix() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("cancel-server");
    support::copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixture-crates/cancel-server"),
        &root,
    );
    // `cargo mcp-lint` finds the binary under test on PATH, as an installed one would be found.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).expect("bin dir");
    std::fs::copy(
        env!("CARGO_BIN_EXE_cargo-mcp-lint"),
        bin.join("cargo-mcp-lint"),
    )
    .expect("copy the binary");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs: Vec<PathBuf> = vec![bin];
    dirs.extend(std::env::split_paths(&path));
    let path = std::env::join_paths(dirs).expect("PATH");

    let mut server = Server::start(&root, path.to_str().expect("UTF-8 PATH"));
    let root_uri = format!("file://{}", root.display());
    let file_uri = format!("{root_uri}/src/main.rs");
    let options = json!({
        "check": {"overrideCommand": readme_override_command()},
        "checkOnSave": true,
        "cargo": {"buildScripts": {"enable": false}},
        "procMacro": {"enable": false},
    });
    let id = server.request(
        "initialize",
        json!({
            "processId": std::process::id(),
            "rootUri": root_uri,
            "initializationOptions": options,
            "capabilities": {
                "textDocument": {
                    "publishDiagnostics": {"relatedInformation": true},
                    "codeAction": {"codeActionLiteralSupport": {
                        "codeActionKind": {"valueSet": ["quickfix"]}
                    }},
                },
                "experimental": {"serverStatusNotification": true},
            },
        }),
    );
    server.wait_for("the initialize result", |m| (m["id"] == id).then_some(()));
    server.notify("initialized", json!({}));
    let text = std::fs::read_to_string(root.join("src/main.rs")).expect("main.rs");
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": file_uri, "languageId": "rust", "version": 1, "text": text}}),
    );
    server.wait_for("a quiescent status", |m| {
        (m["method"] == "experimental/serverStatus" && m["params"]["quiescent"] == true)
            .then_some(())
    });
    server.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": file_uri}}),
    );
    let finding = server.wait_for("MCP001 in main.rs", |m| {
        if m["method"] != "textDocument/publishDiagnostics" || m["params"]["uri"] != file_uri {
            return None;
        }
        m["params"]["diagnostics"]
            .as_array()?
            .iter()
            .find(|d| d["code"] == "MCP001" && d["severity"] == 1)
            .cloned()
    });
    let message = finding["message"].as_str().unwrap_or_default();
    assert!(
        message
            .starts_with("`self.out.send(..)` sends a response for a request that was cancelled"),
        "{finding}"
    );
    assert_eq!(finding["range"]["start"]["line"], 33, "{finding}");

    let id = server.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": file_uri},
            "range": finding["range"],
            "context": {"diagnostics": [finding], "only": ["quickfix"]},
        }),
    );
    let actions = server.wait_for("the code actions", |m| {
        (m["id"] == id).then(|| m["result"].clone())
    });
    let fix = actions
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|a| a["title"] == "remove the response sent for the cancelled request")
        })
        .unwrap_or_else(|| panic!("no quick fix offered: {actions}"));
    assert_eq!(fix["kind"], "quickfix", "{fix}");
    let edits = fix["edit"]["changes"][&file_uri]
        .as_array()
        .unwrap_or_else(|| panic!("the fix edits main.rs: {fix}"));
    assert!(
        edits.iter().all(|e| e["newText"] == "") && !edits.is_empty(),
        "the fix removes the send: {fix}"
    );
}
