//! A std-only MCP stdio server with the cancellation bug in several forms. The fixer test copies
//! it, runs `cargo mcp-lint --fix` on the copy, and checks that the copy still compiles.

mod responder;

use std::collections::HashMap;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{channel, Sender};
use std::sync::Arc;

use responder::{CancelToken, RequestResponder};

struct Server {
    out: Sender<String>,
    in_flight: HashMap<String, Arc<RequestResponder>>,
}

impl Server {
    fn error_response(&self, id: &str, code: i64, message: &str) -> String {
        format!(r#"{{"jsonrpc":"2.0","id":{id},"error":{{"code":{code},"message":"{message}"}}}}"#)
    }

    fn reply(&self, id: &str, result: &str) {
        let _ = self.out.send(format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#));
    }

    fn dispatch(&mut self, method: &str, id: &str) {
        match method {
            "tools/call" => {
                let token = Arc::new(CancelToken::default());
                let responder = Arc::new(RequestResponder::new(id.to_string(), self.out.clone(), token.clone()));
                self.in_flight.insert(id.to_string(), responder.clone());
                if token.is_cancelled() {
                    let _ = self.out.send(self.error_response(id, -32800, "cancelled"));
                    return;
                }
                responder.respond("{}");
            }
            "notifications/cancelled" => {
                if let Some(responder) = self.in_flight.remove(id) {
                    responder.cancel();
                } else {
                    eprintln!("cancel for unknown request {id}");
                    self.reply(id, "null");
                }
            }
            _ => {
                let message = self.error_response(id, -32601, "method not found");
                let _ = self.out.send(message);
            }
        }
    }
}

fn main() {
    let (tx, rx) = channel::<String>();
    let writer = std::thread::spawn(move || {
        let mut stdout = io::stdout();
        for line in rx {
            let _ = writeln!(stdout, "{line}");
        }
    });
    let mut server = Server {
        out: tx,
        in_flight: HashMap::new(),
    };
    for line in io::stdin().lock().lines().map_while(Result::ok) {
        let mut parts = line.splitn(2, ' ');
        let method = parts.next().unwrap_or_default().to_string();
        let id = parts.next().unwrap_or("null").to_string();
        server.dispatch(&method, &id);
    }
    drop(server);
    let _ = writer.join();
}
