//! Whether a unit's stdin carries another protocol's frames: every function of the unit that
//! reads stdin decodes a binary length (`u32::from_le_bytes(len)`, as a Chrome or Firefox
//! native-messaging host reads each message's 4-byte length before it). MCP's stdio transport
//! is newline-delimited JSON, so such a program's dispatcher speaks a private protocol to a
//! browser extension, not MCP to a client, however MCP-like its methods look (first contact,
//! batch 111: mcp-bookmark's `mcp-bookmark-native`, whose `ping` and catch-all are the
//! extension's).

use crate::analysis::facts::{Callee, FunctionFacts};
use crate::rules::contract::RuleContext;

/// The integer decoders a length prefix is read with.
const LENGTH_DECODERS: &[&str] = &["from_le_bytes", "from_ne_bytes", "from_be_bytes"];

/// The integer types a length prefix is decoded into.
const LENGTH_TYPES: &[&str] = &["u32", "i32", "u64", "usize"];

fn calls_path(f: &FunctionFacts, wanted: &dyn Fn(&[String]) -> bool) -> bool {
    f.calls.iter().any(|call| match &call.callee {
        Callee::Path(segments) => wanted(segments),
        Callee::Method { .. } => false,
    })
}

fn reads_stdin(f: &FunctionFacts) -> bool {
    calls_path(f, &|s| s.last().is_some_and(|n| n == "stdin"))
}

fn decodes_a_length(f: &FunctionFacts) -> bool {
    calls_path(f, &|s| match s {
        [.., ty, decoder] => {
            LENGTH_TYPES.contains(&ty.as_str()) && LENGTH_DECODERS.contains(&decoder.as_str())
        }
        _ => false,
    })
}

/// Whether the unit reads stdin, and every function of it that does decodes a binary length
/// prefix (see the module's documentation). Test code does not count.
pub(super) fn stdin_is_length_prefixed(context: &RuleContext<'_>) -> bool {
    let mut readers = context
        .graph
        .files()
        .iter()
        .filter(|(file, _)| !context.is_test_file(*file))
        .flat_map(|(_, facts)| &facts.functions)
        .filter(|f| !f.in_test && reads_stdin(f))
        .peekable();
    readers.peek().is_some() && readers.all(decodes_a_length)
}
