//! The MCP protocol versions a server can target: some rules judge code by them.

use serde::{Deserialize, Serialize};

/// The MCP protocol versions a server targets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize, Serialize)]
pub enum ProtocolVersion {
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}
