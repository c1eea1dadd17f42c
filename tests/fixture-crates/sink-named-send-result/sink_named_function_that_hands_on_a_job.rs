//! MCP001 (preview): a cancel path calls the crate's own `send_result`, a name the vocabulary
//! knows for a send (moon's build pipeline, batch 86: two false findings by default). Its body
//! marks the job completed and hands the job's `Action` to the pipeline's channel; the call
//! `self.mark_completed(NodeIndex::new(..))` in it would be a send only if `NodeIndex::new`
//! returned a response and `mark_completed` wrote it, which the crate graph does not show. That
//! the call sends a response rests on its name: preview only. The twin,
//! tests/fixtures/mcp001/sink_named_function_that_builds_the_response.rs, is reported by
//! default. This one lives outside `tests/fixtures`: its finding rests on the name alone, which
//! the variant harness's rename takes away. `tests/cli.rs` checks it.
use tokio::sync::mpsc::Sender;
use tokio_util::sync::CancellationToken;

pub struct NodeIndex(usize);

impl NodeIndex {
    pub fn new(index: usize) -> Self {
        NodeIndex(index)
    }
}

pub struct Action {
    pub node_index: usize,
    pub status: u8,
}

pub struct JobContext {
    pub abort_token: CancellationToken,
    pub result_sender: Sender<Action>,
    pub completed: std::sync::Mutex<Vec<usize>>,
}

impl JobContext {
    fn mark_completed(&self, index: NodeIndex) {
        if let Ok(mut done) = self.completed.lock() {
            done.push(index.0);
        }
    }

    pub async fn send_result(&self, action: Action) {
        if action.status == 3 {
            self.abort_token.cancel();
        }
        self.mark_completed(NodeIndex::new(action.node_index));
        let _ = self.result_sender.send(action).await;
    }
}

pub struct Job {
    pub context: JobContext,
    pub node_index: usize,
}

impl Job {
    pub async fn dispatch(self) {
        let mut action = Action {
            node_index: self.node_index,
            status: 0,
        };
        if self.context.abort_token.is_cancelled() {
            action.status = 2;
            self.context.send_result(action).await; //~ MCP001
            return;
        }
        action.status = 1;
        self.context.send_result(action).await;
    }
}
