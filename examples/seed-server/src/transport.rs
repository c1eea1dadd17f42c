//! stdout side of the stdio transport.
//!
//! Every outgoing message is a `serde_json::Value` sent on an unbounded
//! channel; a single writer task owns stdout and writes each message as one
//! line, so nothing else in the server may print to stdout.

use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// Where handlers put messages bound for the client.
pub type Outbox = UnboundedSender<Value>;

/// Spawn the task that owns stdout. It stops when the server shuts down or
/// when every sender is gone.
pub fn spawn_writer(mut rx: UnboundedReceiver<Value>, shutdown: CancellationToken) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => break,
                msg = rx.recv() => {
                    let Some(msg) = msg else { break };
                    let mut line = match serde_json::to_string(&msg) {
                        Ok(line) => line,
                        Err(err) => {
                            eprintln!("seed-server: cannot serialise outgoing message: {err}");
                            continue;
                        }
                    };
                    line.push('\n');
                    if let Err(err) = stdout.write_all(line.as_bytes()).await {
                        eprintln!("seed-server: stdout closed: {err}");
                        break;
                    }
                    if let Err(err) = stdout.flush().await {
                        eprintln!("seed-server: cannot flush stdout: {err}");
                        break;
                    }
                }
            }
        }
    })
}

/// A JSON-RPC success response.
pub fn result_msg(id: Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A JSON-RPC error response.
pub fn error_msg(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Tell the client we saw its cancellation for a request we no longer track
/// (unknown id, or already finished). Called from the `notifications/cancelled`
/// arm in main.rs, where the MCP001 finding for this send is reported.
pub fn ack_stale_request(out: &Outbox, id: Value, reason: &str) {
    let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": format!("cancelled: {reason}")}}));
}
