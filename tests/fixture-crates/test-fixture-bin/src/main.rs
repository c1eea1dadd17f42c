//! Not MCP004 (nor MCP003): the product relays lines to a child it starts; the only dispatcher
//! without a `ping` arm is a test fixture server in `tests/fixtures/`, declared as a `[[bin]]`
//! so that the integration tests can start it.
use std::io::{BufRead, Write};

fn main() {
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout();
    for line in stdin.lock().lines().map_while(Result::ok) {
        let _ = writeln!(stdout, "{line}");
    }
}
