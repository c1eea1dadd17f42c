//! The tools this server offers. They know nothing about JSON-RPC: each takes
//! the call's `arguments` and returns a `CallToolResult` value or an error text.

use std::time::Duration;

use serde_json::{json, Value};

/// A tiny document store for `slow_search` to crawl through.
const CORPUS: &[&str] = &[
    "The Model Context Protocol connects assistants to tools and data.",
    "JSON-RPC 2.0 requests carry an id; notifications do not.",
    "A cancelled request should not be answered by the receiver.",
    "stdio servers read newline-delimited messages from stdin.",
    "Long-running tools should watch their cancellation token.",
];

const NAMES: &[&str] = &["slow_search", "fast_echo", "count_words"];

/// The `tools/list` payload.
pub fn list() -> Value {
    json!([
        tool("slow_search", "Search the document store (slow: one document at a time).", "query"),
        tool("fast_echo", "Echo the given text back.", "text"),
        tool("count_words", "Count the words in the given text.", "text"),
    ])
}

/// A tool definition taking one required string argument.
fn tool(name: &str, description: &str, arg: &str) -> Value {
    let schema = json!({"type": "object", "properties": {arg: {"type": "string"}}, "required": [arg]});
    json!({"name": name, "description": description, "inputSchema": schema})
}

pub fn exists(name: &str) -> bool {
    NAMES.contains(&name)
}

pub async fn slow_search(args: Value) -> Result<Value, String> {
    let query = string_arg(&args, "query")?.to_lowercase();
    let mut hits = Vec::new();
    for doc in CORPUS {
        // Pretend every document is expensive to scan.
        tokio::time::sleep(Duration::from_millis(500)).await;
        if doc.to_lowercase().contains(&query) {
            hits.push(*doc);
        }
    }
    if hits.is_empty() {
        return Ok(text_result(format!("no documents match {query:?}")));
    }
    Ok(text_result(hits.join("\n")))
}

pub async fn fast_echo(args: Value) -> Result<Value, String> {
    let text = string_arg(&args, "text")?;
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(text_result(text.to_owned()))
}

pub async fn count_words(args: Value) -> Result<Value, String> {
    let text = string_arg(&args, "text")?.to_owned();
    let count = tokio::task::spawn_blocking(move || text.split_whitespace().count())
        .await
        .map_err(|err| format!("word counter failed: {err}"))?;
    Ok(text_result(format!("{count} words")))
}

fn string_arg<'a>(args: &'a Value, name: &str) -> Result<&'a str, String> {
    args.get(name)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing string argument `{name}`"))
}

fn text_result(text: String) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": false})
}
