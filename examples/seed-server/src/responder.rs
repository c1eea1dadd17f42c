//! Per-request responder, ported from the Python SDK's `RequestResponder`
//! (`mcp/shared/session.py`): it owns the request id, the way back to the
//! client and the request's cancellation token, and makes sure the request is
//! answered at most once.

use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

pub struct RequestResponder {
    id: Value,
    out: UnboundedSender<Value>,
    token: CancellationToken,
    completed: AtomicBool,
}

impl RequestResponder {
    pub fn new(id: Value, out: UnboundedSender<Value>, token: CancellationToken) -> Self {
        Self {
            id,
            out,
            token,
            completed: AtomicBool::new(false),
        }
    }

    /// The request's cancellation token, for the task that serves it.
    pub fn token(&self) -> CancellationToken {
        self.token.clone()
    }

    /// Send the successful result, unless the request was already answered.
    pub fn respond(&self, result: Value) {
        if self.completed.swap(true, Ordering::SeqCst) {
            return;
        }
        let msg = json!({"jsonrpc": "2.0", "id": self.id, "result": result});
        let _ = self.out.send(msg);
    }

    /// Send an error response, unless the request was already answered.
    pub fn fail(&self, code: i64, message: &str) {
        if self.completed.swap(true, Ordering::SeqCst) {
            return;
        }
        self.send_error(code, message);
    }

    /// Stop the work without answering the request (used by `tasks/cancel`).
    pub fn abort(&self) {
        self.token.cancel();
    }

    /// Called when the client sends `notifications/cancelled` for this request.
    pub fn cancel(&self) {
        self.token.cancel();
        self.completed.store(true, Ordering::SeqCst);
        // BUG (MCP001): the seed bug, as in the Python SDK: the client cancelled this request, yet we answer it with an error response; the spec says to send nothing.
        self.send_error(0, "Request cancelled");
    }

    fn send_error(&self, code: i64, message: &str) {
        let msg = json!({"jsonrpc": "2.0", "id": self.id, "error": {"code": code, "message": message}});
        let _ = self.out.send(msg);
    }
}
