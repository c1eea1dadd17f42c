//! Shape B through a helper whose cancel path is known by its name only (batch 58's
//! surreal-mind): the `cancel_job` tool's handler returns what `handle_cancel_job` returns, and a
//! function named `handle_cancel*` is taken for a cancel hook. It is a tools/call request like any
//! other, which must be answered; nothing shows that it runs because a request was cancelled, so
//! the finding is a preview one (reported with `--preview`, not by default: tests/cli.rs). Not
//! in `tests/fixtures`: its rename variant would take the name away, and the finding with it.
use rmcp::handler::server::tool::Parameters;
use rmcp::model::{CallToolResult, Content, ErrorData as McpError};

pub struct Jobs;

impl Jobs {
    #[tool(description = "cancel a background job")]
    async fn cancel_job(&self, Parameters(id): Parameters<String>) -> Result<CallToolResult, McpError> {
        self.handle_cancel_job(&id).await
    }

    async fn handle_cancel_job(&self, id: &str) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![Content::text(format!("job {id} cancelled"))])) //~ MCP001
    }
}
