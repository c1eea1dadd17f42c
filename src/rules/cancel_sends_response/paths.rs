//! MCP001's view of a crate graph: which cancel paths hold, which functions send (off cancel
//! paths, through calls), and the chains from a call on a cancel path down to a send.
//!
//! The summaries ([`Summaries`]) are worked out once per graph and kept with it
//! ([`crate::analysis::crate_graph::Summaries`]): a library's serve all its targets' graphs,
//! which ask it about the library's functions as the graph itself does.

use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::{
    CallSite, FileFacts, FunctionFacts, OriginCondition, PathOrigin, SinkSite,
};
use crate::analysis::vocabulary as vocab;
use crate::source::FileId;
use foldhash::{HashMap, HashMapExt};

/// One step of a call chain from a cancel path down to a send.
#[derive(Debug, Clone)]
pub enum Hop<'a> {
    /// The function calls another one here.
    Call {
        file: FileId,
        caller: &'a FunctionFacts,
        call: &'a CallSite,
        callee: &'a FunctionFacts,
    },
    /// The function sends here.
    Send {
        file: FileId,
        function: &'a FunctionFacts,
        sink: &'a SinkSite,
    },
}

/// A send that happens on a cancel path.
#[derive(Debug, Clone)]
pub struct CancelSend<'a> {
    pub file: FileId,
    pub function: &'a FunctionFacts,
    pub origin: &'a PathOrigin,
    pub how: SendHow<'a>,
}

#[derive(Debug, Clone)]
pub enum SendHow<'a> {
    /// The send itself lies on the cancel path.
    Direct(&'a SinkSite),
    /// A call on the cancel path leads to a send; the chain starts with the call's callee.
    Through {
        call: &'a CallSite,
        chain: Vec<Hop<'a>>,
    },
}

/// A function's first step towards its nearest send: one of its own sends, or a call (by index)
/// into a function one step nearer.
#[derive(Debug, Clone, Copy)]
enum NextHop {
    Sink(usize),
    Call(usize, FunctionRef),
}

/// What MCP001 works out over the own functions of one graph (by their number in the graph).
#[derive(Default)]
struct Summaries {
    /// How many calls away each function's nearest send is (off cancel paths): `u32::MAX` when
    /// it reaches none.
    distance: Vec<u32>,
    /// Each function's first step towards its nearest send.
    next_hop: Vec<Option<NextHop>>,
    /// The functions with a send or a call on a cancel path that holds, in order.
    on_cancel_paths: Vec<FunctionRef>,
}

/// A crate graph with MCP001's summaries of it and of the library graph it extends.
pub struct CancelPaths<'g, 'a> {
    graph: &'g CrateGraph<'a>,
    own: std::sync::Arc<Summaries>,
    library: Option<std::rc::Rc<CancelPaths<'a, 'a>>>,
}

impl<'g, 'a> CancelPaths<'g, 'a> {
    /// The graph's cancel paths, with its summaries (worked out now if no rule asked before).
    pub fn of(graph: &'g CrateGraph<'a>) -> Self {
        let library = graph
            .library()
            .map(|library| std::rc::Rc::new(CancelPaths::of(library)));
        let own = graph
            .summaries()
            .get_or_init(|| Summaries::of(graph, library.clone()));
        CancelPaths {
            graph,
            own,
            library,
        }
    }

    /// The graph these are the cancel paths of.
    pub fn graph(&self) -> &'g CrateGraph<'a> {
        self.graph
    }

    /// The innermost cancel path that holds, of those a site of the graph's `file` lies on.
    pub fn effective_origin(&self, file: usize, origins: &[usize]) -> Option<&'a PathOrigin> {
        effective_origin(self.graph, file, origins)
    }

    /// The functions with a send or a call on a cancel path that holds, in the files' order:
    /// the only ones where a rule finds a cancel path's sends or calls.
    pub fn functions_on_cancel_paths(&self) -> Vec<FunctionRef> {
        let mut found = self.own.on_cancel_paths.clone();
        if let Some(library) = &self.library {
            let functions = library.functions_on_cancel_paths();
            found.extend(functions.into_iter().map(|r| self.graph.lift(r)));
        }
        found
    }

    /// How many calls away a function's nearest send is (off cancel paths); `u32::MAX` when it
    /// reaches none.
    fn distance(&self, f: FunctionRef) -> u32 {
        match (self.graph.in_base(f), &self.library) {
            (Some((_, g)), Some(library)) => library.distance(g),
            _ => self
                .own
                .distance
                .get(self.graph.number(f))
                .copied()
                .unwrap_or(u32::MAX),
        }
    }

    /// A function's first step towards its nearest send.
    fn next_hop(&self, f: FunctionRef) -> Option<NextHop> {
        match (self.graph.in_base(f), &self.library) {
            (Some((_, g)), Some(library)) => match library.next_hop(g)? {
                NextHop::Call(call, callee) => Some(NextHop::Call(call, self.graph.lift(callee))),
                sink => Some(sink),
            },
            _ => self
                .own
                .next_hop
                .get(self.graph.number(f))
                .copied()
                .flatten(),
        }
    }

    /// The index of the first send of `f` off any cancel path of its own, if it has one.
    fn own_send(&self, f: FunctionRef) -> Option<usize> {
        self.graph.function(f).sinks.iter().position(|s| {
            self.effective_origin(f.file, &s.origins).is_none() && self.graph.sink_active(f, s)
        })
    }

    /// An own function's first step towards its nearest send (see [`Summaries::of`]), once
    /// the distances are known.
    fn first_hop(&self, f: FunctionRef) -> Option<NextHop> {
        let d = self.distance(f);
        if d == u32::MAX {
            return None;
        }
        if d == 0 {
            return self.own_send(f).map(NextHop::Sink);
        }
        let facts = self.graph.function(f);
        facts.calls.iter().enumerate().find_map(|(index, call)| {
            if self.effective_origin(f.file, &call.origins).is_some() {
                return None;
            }
            self.graph
                .call_targets(f, call)
                .iter()
                .find(|&&callee| self.distance(callee).saturating_add(1) == d)
                .map(|&callee| NextHop::Call(index, callee))
        })
    }

    /// The chain of calls from `start` down to a send, if `start` sends.
    fn chain_from(&self, start: FunctionRef) -> Option<Vec<Hop<'a>>> {
        let graph = self.graph;
        let mut chain = Vec::new();
        let mut current = start;
        for _ in 0..=self.distance(start) {
            let facts = graph.function(current);
            match self.next_hop(current)? {
                NextHop::Sink(index) => {
                    chain.push(Hop::Send {
                        file: graph.file_id(current),
                        function: facts,
                        sink: &facts.sinks[index],
                    });
                    return Some(chain);
                }
                NextHop::Call(call, callee) => {
                    chain.push(Hop::Call {
                        file: graph.file_id(current),
                        caller: facts,
                        call: &facts.calls[call],
                        callee: graph.function(callee),
                    });
                    current = callee;
                }
            }
        }
        None
    }

    /// Every send on a cancel path: direct ones, and calls on a cancel path into functions that
    /// send. A call into a cancel hook is not followed: the hook's sends are reported inside it.
    pub fn cancel_sends(&self) -> Vec<CancelSend<'a>> {
        let graph = self.graph;
        let mut found = Vec::new();
        for f in self.functions_on_cancel_paths() {
            let facts = graph.function(f);
            let file = graph.file_id(f);
            let mut direct = Vec::new();
            for sink in &facts.sinks {
                if !graph.sink_active(f, sink) {
                    continue;
                }
                if let Some(origin) = self.effective_origin(f.file, &sink.origins) {
                    direct.push(sink.span);
                    found.push(CancelSend {
                        file,
                        function: facts,
                        origin,
                        how: SendHow::Direct(sink),
                    });
                }
            }
            for call in &facts.calls {
                let Some(origin) = self.effective_origin(f.file, &call.origins) else {
                    continue;
                };
                // A call that is itself a send (a transport's `send` given a response) is
                // reported once, as that send, not again through the crate's function it
                // reaches.
                if direct.contains(&call.span) {
                    continue;
                }
                let mut callees = graph.call_targets(f, call).into_owned();
                callees.sort();
                let chain = callees
                    .into_iter()
                    .filter(|&c| graph.function(c).hook.is_none())
                    .find_map(|c| self.chain_from(c));
                if let Some(chain) = chain {
                    found.push(CancelSend {
                        file,
                        function: facts,
                        origin,
                        how: SendHow::Through { call, chain },
                    });
                }
            }
        }
        found
    }
}

impl Summaries {
    /// Which own functions of `graph` send, and through what. A function sends when it sends
    /// itself (off any cancel path of its own) or makes a call, off cancel paths, into a
    /// function that sends; its distance is the fewest calls down to a send (a shortest-path
    /// search from the functions that send, backwards over those calls: recursion needs no
    /// special care). Its first step is its own first send, or else its first call (in source
    /// order, then the call's targets' order) into a function one step nearer.
    fn of<'a>(graph: &CrateGraph<'a>, library: Option<std::rc::Rc<CancelPaths<'a, 'a>>>) -> Self {
        let mut paths = CancelPaths {
            graph,
            own: std::sync::Arc::new(Summaries::default()),
            library,
        };
        let functions: Vec<FunctionRef> = graph.own_functions().collect();
        let mut distance = vec![u32::MAX; functions.len()];
        // Per own function, the own functions that call it off cancel paths.
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); functions.len()];
        let mut queue = std::collections::BinaryHeap::new();
        for (n, &f) in functions.iter().enumerate() {
            let mut nearest = if paths.own_send(f).is_some() {
                0
            } else {
                u32::MAX
            };
            for call in &graph.function(f).calls {
                if paths.effective_origin(f.file, &call.origins).is_some() {
                    continue;
                }
                for &callee in graph.call_targets(f, call).iter() {
                    match (graph.in_base(callee), &paths.library) {
                        (Some((_, g)), Some(library)) => {
                            nearest = nearest.min(library.distance(g).saturating_add(1))
                        }
                        _ => callers[graph.number(callee)].push(n),
                    }
                }
            }
            distance[n] = nearest;
            if nearest != u32::MAX {
                queue.push(std::cmp::Reverse((nearest, n)));
            }
        }
        while let Some(std::cmp::Reverse((d, n))) = queue.pop() {
            if d > distance[n] {
                continue;
            }
            for &caller in &callers[n] {
                if distance[caller] > d + 1 {
                    distance[caller] = d + 1;
                    queue.push(std::cmp::Reverse((d + 1, caller)));
                }
            }
        }
        paths.own = std::sync::Arc::new(Summaries {
            distance: distance.clone(),
            ..Summaries::default()
        });
        let next_hop = functions.iter().map(|&f| paths.first_hop(f)).collect();
        let on_cancel_paths = functions
            .iter()
            .copied()
            .filter(|&f| {
                let facts = graph.function(f);
                let on_path = |origins: &[usize]| paths.effective_origin(f.file, origins).is_some();
                facts.sinks.iter().any(|s| on_path(&s.origins))
                    || facts.calls.iter().any(|c| on_path(&c.origins))
            })
            .collect();
        Summaries {
            distance,
            next_hop,
            on_cancel_paths,
        }
    }
}

/// Whether a crate constant of this name holds the cancel method; None when there is none.
fn const_is_cancel(graph: &CrateGraph<'_>, name: &str) -> Option<bool> {
    graph.const_holds(name, &|value| value == vocab::CANCELLED_METHOD)
}

fn origin_holds(graph: &CrateGraph<'_>, file: usize, origin: &PathOrigin) -> bool {
    match &origin.condition {
        OriginCondition::FlagSet => {
            graph
                .summaries()
                .get_or_init(|| FlagsSetOnCancel::of(graph))
                .0
        }
        OriginCondition::SignalSent => {
            graph
                .summaries()
                .get_or_init(|| SignalsSentOnCancel::of(graph))
                .0
        }
        OriginCondition::CalledOnPath => graph
            .summaries()
            .get_or_init(|| HooksCalledOnCancel::of(graph))
            .0
            .contains_key(&(file, origin.span.start)),
        other => plain_origin_holds(graph, other),
    }
}

/// Whether a condition other than a flag's holds.
fn plain_origin_holds(graph: &CrateGraph<'_>, condition: &OriginCondition) -> bool {
    match condition {
        OriginCondition::Always => true,
        OriginCondition::ConstNamed(name) => {
            const_is_cancel(graph, name).unwrap_or_else(|| super::words::is_cancel_const_name(name))
        }
        OriginCondition::FlagSet | OriginCondition::SignalSent | OriginCondition::CalledOnPath => {
            false
        }
    }
}

/// Whether a set atomic flag means, in this crate, that a request was cancelled: the crate sets
/// atomic flags on cancel paths (not counting paths that are flag tests themselves), and its
/// product code sets none anywhere else (a shutdown flag, a "ready" flag would make a set flag
/// mean something else).
struct FlagsSetOnCancel(bool);

impl FlagsSetOnCancel {
    fn of(graph: &CrateGraph<'_>) -> Self {
        FlagsSetOnCancel(only_on_cancel_paths(graph, |facts| &facts.flag_sets))
    }
}

/// Whether the crate's product code does something (`sites`: the marked paths each place where
/// it does lies on) somewhere, and only on cancel paths (not counting paths that are themselves
/// tests of it): then that it was done means a request was cancelled.
fn only_on_cancel_paths(
    graph: &CrateGraph<'_>,
    sites: fn(&crate::analysis::facts::FileFacts) -> &Vec<Vec<usize>>,
) -> bool {
    let mut on_cancel = false;
    for (_, facts) in graph.files() {
        for origins in sites(facts) {
            let holds = origins.iter().any(|&id| {
                facts
                    .origins
                    .get(id)
                    .is_some_and(|o| plain_origin_holds(graph, &o.condition))
            });
            if !holds {
                return false;
            }
            on_cancel = true;
        }
    }
    on_cancel
}

/// Whether a unit signal on a one-shot channel means, in this crate, that a request was
/// cancelled: the crate sends its unit signals (`.send(())`) on cancel paths (not counting paths
/// that are such signals' branches themselves), and its product code sends none anywhere else
/// (a shutdown signal would make a signal mean something else).
struct SignalsSentOnCancel(bool);

impl SignalsSentOnCancel {
    fn of(graph: &CrateGraph<'_>) -> Self {
        SignalsSentOnCancel(only_on_cancel_paths(graph, |facts| &facts.signal_sends))
    }
}

/// The hooks known only by a name the crate gives its own method ([`OriginCondition::CalledOnPath`])
/// that are cancel paths, by file and the start of their origin: those a call on another cancel
/// path reaches (`Some(responder) => responder.cancel()` in the cancellation's arm), and those
/// the crate's product code calls nowhere (an entry point its users call, as the seed's
/// responder). One whose every call lies off cancel paths (a timeout's clean-up) is none.
/// Each with whether a call on another cancel path reaches it (`false`: product code calls it
/// nowhere).
struct HooksCalledOnCancel(HashMap<(usize, usize), bool>);

/// Whether a send's cancel path is a hook known only by its own name (`cancel`) that holds
/// only because the crate's product code calls it nowhere (an entry point its users may call,
/// as the seed's responder, but as well a UI's method whose calls the graph does not resolve:
/// first contact, batch 95's cydonia, false). The rule keeps such a send stable only when it
/// answers through the hook's own value (the seed's per-request responder).
pub fn held_as_an_uncalled_hook(graph: &CrateGraph<'_>, file: FileId, origin: &PathOrigin) -> bool {
    if origin.condition != OriginCondition::CalledOnPath {
        return false;
    }
    let Some(index) = graph.files().iter().position(|(id, _)| *id == file) else {
        return false;
    };
    graph
        .summaries()
        .get_or_init(|| HooksCalledOnCancel::of(graph))
        .0
        .get(&(index, origin.span.start))
        .is_some_and(|on_cancel| !on_cancel)
}

/// Whether a cancel path starts at a token of the code's own (`if token.is_cancelled()`, a
/// `select!` branch on `token.cancelled()`, the code after awaiting it or after a loop on it),
/// rather than at the cancellation notification itself (a hook, a dispatch arm, a handler's
/// registration) or at a flag or signal the crate sets on such paths.
pub fn starts_at_a_token(origin: &PathOrigin) -> bool {
    use crate::analysis::facts::OriginKind;
    origin.condition == OriginCondition::Always
        && matches!(
            origin.kind,
            OriginKind::SelectArm
                | OriginKind::AfterAwait
                | OriginKind::IfTest
                | OriginKind::AfterLoop
        )
}

/// Whether the graph's own code cancels something off every cancel path (`token.cancel()` when
/// the user presses Esc): its tokens are cancelled for its own reasons. A unit that cancels
/// nothing tests tokens its callers cancel (a library's caller, an SDK).
pub fn cancels_its_own_tokens(graph: &CrateGraph<'_>) -> bool {
    graph.files().iter().enumerate().any(|(file, (_, facts))| {
        facts.token_cancels.iter().any(|origins| {
            !origins
                .iter()
                .any(|&id| (facts.origins.get(id)).is_some_and(|o| origin_holds(graph, file, o)))
        })
    })
}

/// Whether the graph's code observes the cancellation notification itself: a cancel path that
/// holds starts at a hook, a dispatch arm or a handler's registration. Without one (and without
/// an SDK that cancels request tokens), a token the code cancels for its own reasons is not
/// shown to be a request's (batch 129's aizen: a workflow's stop token, the user's Esc).
pub fn observes_the_notification(graph: &CrateGraph<'_>) -> bool {
    graph.files().iter().enumerate().any(|(file, (_, facts))| {
        facts.origins.iter().any(|origin| {
            !starts_at_a_token(origin)
                && matches!(
                    origin.kind,
                    crate::analysis::facts::OriginKind::Hook
                        | crate::analysis::facts::OriginKind::DispatchArm
                        | crate::analysis::facts::OriginKind::Registration
                )
                // A hook known only by the crate's own name for it (`cancel(&self)`) holds when
                // a call on a cancel path reaches it, which a token's own path may be.
                && origin.condition != OriginCondition::CalledOnPath
                && origin_holds(graph, file, origin)
        })
    })
}

/// The origin of a function that is a hook known only by its own name
/// ([`OriginCondition::CalledOnPath`]).
pub fn own_name_hook<'a>(file: &'a FileFacts, function: &FunctionFacts) -> Option<&'a PathOrigin> {
    function
        .hook
        .and_then(|id| file.origins.get(id))
        .filter(|o| o.condition == OriginCondition::CalledOnPath)
}

impl HooksCalledOnCancel {
    fn of(graph: &CrateGraph<'_>) -> Self {
        // Per such hook: where its origin starts, whether product code calls it, and whether a
        // call on another cancel path does.
        let mut hooks: HashMap<FunctionRef, (usize, bool, bool)> = HashMap::new();
        for f in graph.all_functions() {
            if let Some(origin) = own_name_hook(graph.files()[f.file].1, graph.function(f)) {
                hooks.insert(f, (origin.span.start, false, false));
            }
        }
        if hooks.is_empty() {
            return HooksCalledOnCancel(HashMap::new());
        }
        for g in graph.all_functions() {
            let facts = graph.function(g);
            if facts.in_test {
                continue;
            }
            let origins = &graph.files()[g.file].1.origins;
            for call in &facts.calls {
                let on_cancel = call
                    .origins
                    .iter()
                    .filter_map(|&id| origins.get(id))
                    .any(|o| {
                        o.condition != OriginCondition::CalledOnPath
                            && origin_holds(graph, g.file, o)
                    });
                for target in graph.callees(g, call) {
                    if target == g {
                        continue;
                    }
                    if let Some((_, called, called_on_cancel)) = hooks.get_mut(&target) {
                        *called = true;
                        *called_on_cancel |= on_cancel;
                    }
                }
            }
        }
        let holding = hooks
            .into_iter()
            .filter(|(_, (_, called, on_cancel))| *on_cancel || !*called)
            .map(|(f, (start, _, on_cancel))| ((f.file, start), on_cancel))
            .collect();
        HooksCalledOnCancel(holding)
    }
}

/// The innermost cancel path that holds, of those a site of the graph's `file` lies on.
pub fn effective_origin<'a>(
    graph: &CrateGraph<'a>,
    file: usize,
    origins: &[usize],
) -> Option<&'a PathOrigin> {
    let facts = graph.files()[file].1;
    origins
        .iter()
        .rev()
        .filter_map(|&id| facts.origins.get(id))
        .find(|origin| origin_holds(graph, file, origin))
}

#[cfg(test)]
mod tests {
    use super::{CancelPaths, Hop, NextHop, SendHow};
    use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
    use crate::analysis::facts::FileFacts;

    fn facts(text: &str, module: &[&str]) -> FileFacts {
        let vocabulary = crate::analysis::vocabulary::Vocabulary::default();
        let marks = super::super::marks::Cancellation {
            vocabulary: &vocabulary,
        };
        crate::analysis::facts_of(text, module, &marks)
    }

    /// What the graph and its cancel paths answer about each function (its calls' targets,
    /// whether it returns a response, its sends; its distance to a send and its first step
    /// there) and its sends on cancel paths, by file and name.
    fn describe(graph: &CrateGraph<'_>) -> Vec<String> {
        let paths = CancelPaths::of(graph);
        let name = |f: FunctionRef| format!("{}:{}", graph.file_id(f), graph.function(f).name);
        let mut out = crate::analysis::crate_graph::describe(graph);
        for f in graph.all_functions() {
            let hop = match paths.next_hop(f) {
                Some(NextHop::Sink(index)) => format!("send {index}"),
                Some(NextHop::Call(index, to)) => format!("call {index} to {}", name(to)),
                None => "none".to_string(),
            };
            out.push(format!(
                "{} distance {} first {hop}",
                name(f),
                paths.distance(f)
            ));
        }
        for send in paths.cancel_sends() {
            let how = match &send.how {
                SendHow::Direct(_) => "directly".to_string(),
                SendHow::Through { chain, .. } => chain
                    .iter()
                    .map(|hop| match hop {
                        Hop::Call { caller, .. } => caller.name.clone(),
                        Hop::Send { function, .. } => format!("{} sends", function.name),
                    })
                    .collect::<Vec<_>>()
                    .join(" -> "),
            };
            out.push(format!("cancel path in {} sends {how}", send.function.name));
        }
        out
    }

    /// A target's graph that extends its library's answers as the target's graph worked out
    /// whole: through the library's helpers, its returned responses and its sends.
    #[test]
    fn a_graph_extending_its_librarys_answers_as_one_worked_out_whole() {
        let lib = facts(
            "pub async fn finalize(sink: &MessageSink, id: RequestId) {\n\
                 let _ = sink.send_message(Response::error(id, ErrorObject::new(-32000, \"x\"))).await;\n\
             }\n\
             pub async fn cleanup(sink: &MessageSink, id: RequestId) { finalize(sink, id).await; }\n\
             pub fn error_reply(id: &Value) -> Value {\n\
                 json!({\"jsonrpc\": \"2.0\", \"id\": id, \"error\": {\"code\": 0, \"message\": \"m\"}})\n\
             }\n\
             pub fn cancelled_reply(id: &Value) -> Value { error_reply(id) }\n",
            &[],
        );
        let main = facts(
            "pub struct JobServer { sink: MessageSink, out: UnboundedSender<Value> }\n\
             impl JobServer {\n\
                 pub async fn on_cancel(&self, id: RequestId) { self.stop(id).await; }\n\
                 async fn stop(&self, id: RequestId) { my_crate::cleanup(&self.sink, id).await; }\n\
                 pub fn dispatch(&self, method: &str, id: Value) {\n\
                     match method {\n\
                         \"notifications/cancelled\" => { let _ = self.out.send(my_crate::cancelled_reply(&id)); }\n\
                         _ => {}\n\
                     }\n\
                 }\n\
             }\n\
             fn main() {}\n",
            &[],
        );
        let crate_name = || Some("my_crate".to_string());
        let files = || vec![(0, &main), (1, &lib)];
        // The library's graph as a base that records its reads, and as one that does not.
        let base = CrateGraph::named(vec![(1, &lib)], crate_name()).as_base();
        let plain = CrateGraph::named(vec![(1, &lib)], crate_name());
        let layered = CrateGraph::named_over(files(), crate_name(), Some(&base));
        let whole = CrateGraph::named_over(files(), crate_name(), Some(&plain));
        assert!(
            layered.library().is_some(),
            "the target's graph extends the library's"
        );
        assert!(
            whole.library().is_none(),
            "over a base that records nothing, it cannot"
        );
        let answers = describe(&whole);
        assert_eq!(describe(&layered), answers);
        // What is compared holds the cancel paths' sends, through the library.
        for expected in [
            "cancel path in on_cancel sends stop -> cleanup -> finalize sends",
            "cancel path in dispatch sends directly",
        ] {
            assert!(
                answers.iter().any(|a| a == expected),
                "{expected}: {answers:#?}"
            );
        }
    }
}
