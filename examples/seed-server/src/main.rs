//! seed-server: a small hand-written MCP server over stdio.
//!
//! Messages are newline-delimited JSON-RPC 2.0. This file reads stdin line by
//! line and dispatches; everything bound for stdout goes through the writer
//! task in `transport`, and logs go to stderr.
//!
//! This is the cargo-mcp-lint demo: it carries planted bugs, each marked by a BUG
//! comment naming its rule: three MCP001 (responses sent for cancelled requests),
//! one MCP002 (a banner on stdout), one MCP004 (`ping` not answered) and one
//! MCP006 (error code 0).

mod responder;
mod tools;
mod transport;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::responder::RequestResponder;
use crate::transport::Outbox;

const PROTOCOL_VERSION: &str = "2025-11-25";

/// In-flight `tools/call` requests, keyed by request id. Each in-flight call
/// is also exposed as a task whose `taskId` is that key.
type InFlight = Arc<Mutex<HashMap<String, Arc<RequestResponder>>>>;

#[derive(Clone)]
struct Server {
    out: Outbox,
    in_flight: InFlight,
    /// Server-wide shutdown; every request token is a child of it.
    shutdown: CancellationToken,
}

/// Map key for a request id: strings as they are, numbers in decimal.
fn id_key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Server {
    fn handle(&self, msg: Value) {
        // Messages without a method are responses; this server sends no requests.
        let Some(method) = msg.get("method").and_then(Value::as_str) else {
            return;
        };
        let id = msg.get("id").cloned();
        let params = msg.get("params").cloned().unwrap_or_else(|| json!({}));

        match method {
            "initialize" => self.answer(
                id,
                json!({
                    "protocolVersion": PROTOCOL_VERSION,
                    "capabilities": {"tools": {}, "tasks": {"cancel": {}}},
                    "serverInfo": {"name": "seed-server", "version": env!("CARGO_PKG_VERSION")}
                }),
            ),
            "tools/list" => self.answer(id, json!({"tools": tools::list()})),
            "tools/call" => {
                if let Some(id) = id {
                    self.call_tool(id, &params);
                }
            }
            "notifications/initialized" => {}
            "notifications/cancelled" => {
                let Some(request_id) = params.get("requestId").cloned() else {
                    return;
                };
                let reason = params.get("reason").and_then(Value::as_str).unwrap_or("no reason given");
                eprintln!("seed-server: client cancelled request {request_id}: {reason}");
                let responder = self.in_flight.lock().unwrap().remove(&id_key(&request_id));
                match responder {
                    Some(responder) => responder.cancel(),
                    None => {
                        // BUG (MCP001): helper-mediated send: ack_stale_request (transport.rs) writes an error response for the cancelled id; a cancellation is never answered.
                        transport::ack_stale_request(&self.out, request_id.clone(), reason);
                    }
                }
            }
            "tasks/cancel" => {
                // A request, not a notification: it must be answered.
                let Some(id) = id else {
                    return;
                };
                let task_id = params.get("taskId").and_then(Value::as_str).unwrap_or_default();
                let task = self.in_flight.lock().unwrap().get(task_id).cloned();
                match task {
                    Some(task) => {
                        task.abort();
                        let _ = self.out.send(json!({"jsonrpc": "2.0", "id": id, "result": {"taskId": task_id, "status": "cancelled"}}));
                    }
                    None => self.answer_err(Some(id), -32602, &format!("unknown task: {task_id}")),
                }
            }
            // BUG (MCP004): no "ping" arm: a client's ping falls into method-not-found.
            _ => self.answer_err(id, -32601, &format!("method not found: {method}")),
        }
    }

    /// Answer a request on the spot (it is never registered as in flight).
    /// Notifications have no id and get no answer.
    fn answer(&self, id: Option<Value>, result: Value) {
        if let Some(id) = id {
            let _ = self.out.send(transport::result_msg(id, result));
        }
    }

    fn answer_err(&self, id: Option<Value>, code: i64, message: &str) {
        if let Some(id) = id {
            let _ = self.out.send(transport::error_msg(id, code, message));
        }
    }

    fn call_tool(&self, id: Value, params: &Value) {
        let name = params.get("name").and_then(Value::as_str).unwrap_or_default();
        let args = params.get("arguments").cloned().unwrap_or_else(|| json!({}));
        if !tools::exists(name) {
            self.answer_err(Some(id), -32602, &format!("unknown tool: {name}"));
            return;
        }

        let key = id_key(&id);
        let responder = Arc::new(RequestResponder::new(id.clone(), self.out.clone(), self.shutdown.child_token()));
        self.in_flight.lock().unwrap().insert(key.clone(), Arc::clone(&responder));
        match name {
            "slow_search" => self.spawn_slow_search(key, id, responder, args),
            "fast_echo" => self.spawn_fast_echo(key, responder, args),
            _ => self.spawn_count_words(key, responder, args),
        }
    }

    /// The request is over: stop tracking it.
    fn finish(&self, key: &str) {
        self.in_flight.lock().unwrap().remove(key);
    }

    fn spawn_slow_search(&self, key: String, id: Value, responder: Arc<RequestResponder>, args: Value) {
        let server = self.clone();
        let out = self.out.clone();
        let token = responder.token();
        tokio::spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {
                    // BUG (MCP001): select!-arm send: the request's token fired (client cancelled it) and this arm answers the cancelled id anyway.
                    let _ = out.send(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32800, "message": "tool call cancelled"}}));
                }
                result = tools::slow_search(args) => {
                    match result {
                        Ok(result) => responder.respond(result),
                        Err(err) => responder.fail(-32602, &err),
                    }
                }
            }
            server.finish(&key);
        });
    }

    fn spawn_fast_echo(&self, key: String, responder: Arc<RequestResponder>, args: Value) {
        let server = self.clone();
        let token = responder.token();
        tokio::spawn(async move {
            tokio::select! {
                _ = token.cancelled() => {
                    eprintln!("seed-server: fast_echo {key} cancelled, dropping its result");
                }
                result = tools::fast_echo(args) => match result {
                    Ok(result) => responder.respond(result),
                    Err(err) => responder.fail(-32602, &err),
                },
            }
            server.finish(&key);
        });
    }

    fn spawn_count_words(&self, key: String, responder: Arc<RequestResponder>, args: Value) {
        let server = self.clone();
        let token = responder.token();
        tokio::spawn(async move {
            let result = tools::count_words(args).await;
            server.finish(&key);
            // The client may have cancelled while we were counting: then stay silent.
            if !token.is_cancelled() {
                match result {
                    Ok(result) => responder.respond(result),
                    Err(err) => responder.fail(-32602, &err),
                }
            }
        });
    }
}

#[tokio::main]
async fn main() {
    let shutdown = CancellationToken::new();
    let (out, rx) = mpsc::unbounded_channel();
    let writer = transport::spawn_writer(rx, shutdown.clone());
    let server = Server {
        out,
        in_flight: InFlight::default(),
        shutdown: shutdown.clone(),
    };
    // BUG (MCP002): a start-up banner on stdout, the protocol stream: the client reads it as a broken message.
    println!("seed-server {} ready on stdio", env!("CARGO_PKG_VERSION"));

    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        match lines.next_line().await {
            Ok(Some(line)) if line.trim().is_empty() => continue,
            Ok(Some(line)) => match serde_json::from_str::<Value>(&line) {
                Ok(msg) => server.handle(msg),
                Err(err) => server.answer_err(Some(Value::Null), -32700, &format!("parse error: {err}")),
            },
            Ok(None) => break,
            Err(err) => {
                eprintln!("seed-server: cannot read stdin: {err}");
                break;
            }
        }
    }

    // stdin closed: the client is gone. Stop the in-flight tools and the writer.
    eprintln!("seed-server: stdin closed, shutting down");
    shutdown.cancel();
    let _ = writer.await;
}
