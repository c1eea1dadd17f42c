//! The per-request responder, with the Python SDK's bug ported to Rust in `cancel`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;

#[derive(Default)]
pub struct CancelToken(AtomicBool);

impl CancelToken {
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

pub struct RequestResponder {
    id: String,
    out: Sender<String>,
    token: Arc<CancelToken>,
    completed: AtomicBool,
}

impl RequestResponder {
    pub fn new(id: String, out: Sender<String>, token: Arc<CancelToken>) -> Self {
        RequestResponder {
            id,
            out,
            token,
            completed: AtomicBool::new(false),
        }
    }

    pub fn respond(&self, result: &str) {
        if self.completed.swap(true, Ordering::SeqCst) {
            return;
        }
        let id = &self.id;
        let _ = self.out.send(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#));
    }

    fn send_error(&self, code: i64, message: &str) {
        let id = &self.id;
        let _ = self.out.send(format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#));
    }

    pub fn cancel(&self) {
        self.token.cancel();
        self.completed.store(true, Ordering::SeqCst);
        self.send_error(0, "Request cancelled");
    }
}
