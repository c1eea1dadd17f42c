//! The server model's serving path: what runs while a target serves MCP over its own stdio.
//!
//! Built per unit (a package target) from the shared facts: the functions that start serving
//! stdio (their serve sites, see [`super::serving`]), every function that calls one of them on
//! the way (`main`, a sub-command's runner), and, from those, everything they call on the path
//! that serves, minus the branches that never serve: in a function on the way to serving, the
//! arms of a `match`, the branches of an `if` and the early exits that exclude the branch that
//! serves. The SDK's request handlers (methods of a type that implements an SDK's `*Handler` trait)
//! run while serving too. A write to stdout matters to the protocol only there.

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::facts::{serving, variant_covers, variants_overlap, ServingFacts};
use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::source::{ByteSpan, FileId};

/// What runs while the unit serves stdio.
#[derive(Debug, Default)]
pub struct ServingPath {
    /// Functions that run while serving (or on the way to it), with the spans inside them that
    /// do not (branches that exclude the one that serves).
    /// By file and the function's whole item.
    on_path: HashMap<(FileId, ByteSpan), Vec<ByteSpan>>,
    /// Of those, the functions that run only while serving: none of their callers runs
    /// otherwise, and they do not themselves branch between serving and not.
    /// With, for a function that branches between serving and not, its serving branches.
    only_serving: HashMap<(FileId, ByteSpan), Option<Vec<ByteSpan>>>,
    /// The functions on the path reached only from calls that a function on the way makes
    /// before it starts serving (a help printer `main` calls first): what they do may decide,
    /// through the value they return, whether the caller goes on to serve.
    prelude: HashSet<(FileId, ByteSpan)>,
    /// Of those, the ones a function on the way calls itself (not through a helper of the
    /// prelude, whose value could decide for it).
    called_early: HashSet<(FileId, ByteSpan)>,
    /// The program's `main`, and the `bool` places it serves only under: every way it serves is
    /// inside `if is_stream_mode { .. } else { <here> }` for (`is_stream_mode`, `false`).
    entry_flags: Option<(FunctionRef, Vec<(String, bool)>)>,
    /// The functions whose code may run whenever the unit serves, and how (see [`Must`]).
    must: MustMap,
    /// Each file's regions of code that may not run (see [`super::must`]).
    regions: HashMap<FileId, Regions>,
    /// The unit serves through a library of the workspace: one of its calls reaches a function
    /// of another package's library that surely serves MCP over the process's stdio (see
    /// [`library_serve_sites`]).
    through_library: bool,
    /// The library functions that run while the unit serves, each with the call of the unit's
    /// code that reaches it (see [`library_must`]).
    from_unit: HashMap<(FileId, ByteSpan), (FileId, ByteSpan)>,
}

/// A file's regions of code that may not run (see [`super::must`]), but the arms of an MCP
/// dispatcher (see [`mcp_dispatch_arms`]); and of them, the rest of a block after a statement
/// that may leave.
#[derive(Debug, Default)]
struct Regions {
    all: Vec<ByteSpan>,
    rest: Vec<ByteSpan>,
    /// Of them, the arms of a `match` a parameter's string chooses (see
    /// [`ServingFacts::message_arms`]).
    message: Vec<ByteSpan>,
    /// Of them, the arms of a `match` over whether a local parses (see
    /// [`ServingFacts::parsed_arms`]).
    parsed: Vec<ByteSpan>,
}

/// How code of a function is shown to run while the unit serves stdio.
#[derive(Debug, Clone)]
enum Must {
    /// Code in no region of the function: the function runs whenever the unit serves (a
    /// function the way to serving calls outside any region, before it serves).
    Whole,
    /// Code in no region of the function but the rest of a block after a statement that may
    /// leave: the function runs while the unit serves, for a message (an SDK's handler, or a
    /// function the loop of a hand-written transport or such a one calls). What may leave
    /// before it tests the message, not the transport, which is chosen already.
    Serving,
    /// The function is on the way to serving. Code before one of these anchors (a serve site,
    /// or a call on the way to one) and in no region the anchor is not in runs whenever the
    /// unit serves; each anchor with the regions around it. Code in the body of a loop that
    /// reads the messages of a hand-written transport (one whose body comes after a read of
    /// stdin that serves, or holds it outside any of its own regions), after that read, runs
    /// while the unit serves: in no region the read is not in but that body and the rest of a
    /// block inside it; each such loop's body with the regions around the read and the offset
    /// code must come after.
    Before {
        anchors: Vec<(ByteSpan, Vec<ByteSpan>)>,
        loops: Vec<(ByteSpan, Vec<ByteSpan>, usize)>,
    },
}

fn within(inner: ByteSpan, outer: ByteSpan) -> bool {
    outer.start <= inner.start && inner.end <= outer.end
}

impl ServingPath {
    /// The serving path of a unit whose functions `graph` holds. `entry` is the program's
    /// `main` when the unit is a program (a binary, example, test or bench target): a program
    /// serves only through what `main` calls, so when `main` never reaches a serve site, nothing
    /// in it runs while serving, whatever its library could serve.
    pub fn new(
        graph: &CrateGraph<'_>,
        entry: Option<FunctionRef>,
        libraries: &[crate::rules::contract::Library<'_>],
    ) -> Self {
        let files = graph.files();
        // Each file's serve sites and branches, decoded once.
        let mut facts: Vec<ServingFacts> = files.iter().map(|(_, f)| serving(f)).collect();
        let through_library = library_serve_sites(graph, libraries, &mut facts);
        // Nothing serves where no file holds a serve site.
        if facts.iter().all(|f| f.serve_sites.is_empty()) {
            return ServingPath::default();
        }
        let (tests, functions) = product_functions(graph);
        let serving = serving_functions(graph, &facts, &functions);
        if serving.is_empty() {
            return ServingPath::default();
        }
        // Calls by the name they call: built once, for the callers on the way to serving and
        // for the call sites of the functions on the path.
        let by_name = calls_by_name(graph, &functions);
        let toward = callers_of(graph, &by_name, &serving);
        if entry.is_some_and(|main| !toward.contains(&main)) {
            return ServingPath::default();
        }
        let (off, serving_arms) = excluded_branches(graph, &facts, &toward);
        let entry_flags = entry.map(|main| (main, deciding_flags(graph, &facts, &toward, main)));
        let handlers = sdk_handlers(graph, &facts, &functions);
        let locked = serving_holds_stdout_lock(graph, &facts, &serving);
        let exits = |f: FunctionRef| off_the_way(graph, &facts, &by_name, f, &toward, locked);
        let (on_path, exiting) =
            reach_path(graph, &facts, &toward, &handlers, &tests, &off, &exits);
        let shared = shared_functions(graph, &by_name, &on_path, &serving_arms);
        let key = |f: &FunctionRef| (files[f.file].0, graph.function(*f).item_span);
        let (prelude, early) = called_before_serving(graph, &facts, &toward, &on_path, &handlers);
        let called_early = early
            .iter()
            .filter(|f| prelude.contains(f))
            .map(key)
            .collect();
        let prelude = prelude.iter().map(key).collect();
        let only_serving = on_path
            .keys()
            .filter(|f| !shared.contains(f))
            .map(|f| {
                let arms = match on_path.get(f) {
                    Some(excluded) if !excluded.is_empty() => {
                        Some(serving_arms.get(f).cloned().unwrap_or_default())
                    }
                    _ => None,
                };
                (key(f), arms)
            })
            .collect();
        let on_path = on_path
            .iter()
            .map(|(f, excluded)| {
                let mut excluded = excluded.clone();
                excluded.extend(exiting.get(f).into_iter().flatten().copied());
                (key(f), excluded)
            })
            .collect();
        let way = Way {
            graph,
            facts: &facts,
            serving: &serving,
            handlers: &handlers,
            tests: &tests,
            cycles: call_cycles(graph, &toward),
        };
        let (mut must, mut regions) = must_functions(&way, &toward, entry);
        let mut on_path: HashMap<(FileId, ByteSpan), Vec<ByteSpan>> = on_path;
        let mut from_unit = HashMap::new();
        for (key, call, library_regions) in library_must(graph, libraries, &must, &regions) {
            on_path.entry(key).or_default();
            must.entry(key).or_insert(Must::Serving);
            from_unit.insert(key, call);
            regions.extend(library_regions);
        }
        ServingPath {
            on_path,
            only_serving,
            prelude,
            called_early,
            entry_flags,
            must,
            regions,
            through_library,
            from_unit,
        }
    }

    /// For a function of a library of the workspace that runs while the unit serves (see
    /// [`library_must`]), the call in the unit's code by which it is reached: the file and span.
    pub fn reached_from_unit(
        &self,
        file: FileId,
        function_span: ByteSpan,
    ) -> Option<(FileId, ByteSpan)> {
        self.from_unit.get(&(file, function_span)).copied()
    }

    /// Whether the unit serves through a library of the workspace (see
    /// [`ServingPath::through_library`]): it speaks MCP on its stdio, whatever its manifest says.
    pub fn serves_through_library(&self) -> bool {
        self.through_library
    }

    /// Whether code at `span` of `file`, inside the function whose whole item is
    /// `function_span`, is shown to run while the unit serves stdio (see [`Must`]): its
    /// function is on the way to serving and it comes before a serve site (or a call on the
    /// way) whose every branch it shares, or lies in the loop that reads a hand-written
    /// transport's messages; or its function is shown to run (an SDK's handler, or a function
    /// such code calls) and it lies outside every branch of it that is not the message's
    /// choice.
    pub fn runs_whenever_serving(
        &self,
        file: FileId,
        function_span: ByteSpan,
        span: ByteSpan,
    ) -> bool {
        let Some(must) = self.must.get(&(file, function_span)) else {
            return false;
        };
        let empty = Regions::default();
        let regions = self.regions.get(&file).unwrap_or(&empty);
        must.runs(
            span,
            &super::must::around(&regions.all, function_span, span),
            regions,
        )
        .is_some()
    }

    /// Whether `f` is the program's `main` and serves only where the `bool` place `place` holds
    /// `value` (see [`deciding_flags`]).
    pub fn serves_only_when(&self, f: FunctionRef, place: &str, value: bool) -> bool {
        self.entry_flags.as_ref().is_some_and(|(main, flags)| {
            *main == f && flags.iter().any(|(p, v)| p == place && *v == value)
        })
    }

    /// Whether the function whose whole item is `function_span` in `file` is called before
    /// serving by a function on the way itself (see [`ServingPath::called_early`]).
    pub fn called_early(&self, file: FileId, function_span: ByteSpan) -> bool {
        self.called_early.contains(&(file, function_span))
    }

    /// Whether the function whose whole item is `function_span` in `file` runs only before the
    /// unit starts serving, called from the way to it (see [`ServingPath::prelude`]).
    pub fn called_before_serving(&self, file: FileId, function_span: ByteSpan) -> bool {
        self.prelude.contains(&(file, function_span))
    }

    /// Whether code at `span` of `file`, inside the function whose whole item is
    /// `function_span`, runs while the unit serves stdio (or on the way to serving).
    pub fn runs_only_while_serving(
        &self,
        file: FileId,
        function_span: ByteSpan,
        span: ByteSpan,
    ) -> bool {
        match self.only_serving.get(&(file, function_span)) {
            Some(None) => true,
            Some(Some(arms)) => arms.iter().any(|arm| within(span, *arm)),
            None => false,
        }
    }

    /// Whether code at `span` of `file`, inside the function whose whole item is
    /// `function_span`, runs while the unit serves stdio (or on the way to serving).
    pub fn runs_while_serving(
        &self,
        file: FileId,
        function_span: ByteSpan,
        span: ByteSpan,
    ) -> bool {
        self.on_path
            .get(&(file, function_span))
            .is_some_and(|excluded| !excluded.iter().any(|arm| within(span, *arm)))
    }
}

/// Everything on the path from the functions on the way and the SDK's handlers, except
/// through calls in excluded branches (`off`) or in code that ends the process (`exits`): each
/// function with its excluded branches, and with the code of it that ends the process.
fn reach_path(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
    handlers: &[FunctionRef],
    tests: &HashSet<FunctionRef>,
    off: &HashMap<FunctionRef, Vec<ByteSpan>>,
    exits: &dyn Fn(FunctionRef) -> Vec<ByteSpan>,
) -> (
    HashMap<FunctionRef, Vec<ByteSpan>>,
    HashMap<FunctionRef, Vec<ByteSpan>>,
) {
    let mut on_path: HashMap<FunctionRef, Vec<ByteSpan>> = HashMap::new();
    let mut exiting: HashMap<FunctionRef, Vec<ByteSpan>> = HashMap::new();
    let mut queue: VecDeque<FunctionRef> = VecDeque::new();
    for f in toward.iter().copied().chain(handlers.iter().copied()) {
        if let std::collections::hash_map::Entry::Vacant(entry) = on_path.entry(f) {
            entry.insert(off.get(&f).cloned().unwrap_or_default());
            exiting.insert(f, exits(f));
            queue.push_back(f);
        }
    }
    while let Some(f) = queue.pop_front() {
        let mut excluded = on_path.get(&f).cloned().unwrap_or_default();
        excluded.extend(exiting.get(&f).into_iter().flatten().copied());
        for (span, targets) in reached_by_calls_of(graph, f) {
            if excluded.iter().any(|arm| within(span, *arm)) {
                continue;
            }
            for t in targets.into_iter().filter(|t| {
                !tests.contains(t) && (toward.contains(t) || !twin_serves(graph, facts, toward, *t))
            }) {
                if let std::collections::hash_map::Entry::Vacant(entry) = on_path.entry(t) {
                    entry.insert(Vec::new());
                    exiting.insert(t, exits(t));
                    queue.push_back(t);
                }
            }
        }
    }
    (on_path, exiting)
}

/// Each file's regions of code that may not run (see [`super::must`]), but the arms of its MCP
/// dispatchers: which arm runs is the message's choice, made while serving.
fn file_regions(graph: &CrateGraph<'_>, facts: &[ServingFacts]) -> HashMap<FileId, Regions> {
    graph
        .files()
        .iter()
        .zip(facts)
        .map(|((id, file), f)| {
            let arms = mcp_dispatch_arms(&file.dispatch);
            let kept = |r: &&ByteSpan| {
                !arms
                    .iter()
                    .any(|(d, arm)| within(**r, *d) && within(*arm, **r))
            };
            let regions = Regions {
                all: f
                    .maybe
                    .iter()
                    .chain(&f.rest)
                    .filter(kept)
                    .copied()
                    .collect(),
                rest: f.rest.iter().filter(kept).copied().collect(),
                message: f.message_arms.iter().filter(kept).copied().collect(),
                parsed: f.parsed_arms.iter().filter(kept).copied().collect(),
            };
            (*id, regions)
        })
        .collect()
}

/// The arms (and catch-alls) of a file's dispatchers over MCP's method names (an arm for an
/// MCP method other than `initialize`), each with its dispatcher's span. A region of the
/// dispatcher that holds an arm is that arm, or the `else` of a chain that holds the next ones.
fn mcp_dispatch_arms(
    dispatch: &crate::analysis::dispatchers::DispatchFacts,
) -> Vec<(ByteSpan, ByteSpan)> {
    if dispatches_another_protocol(dispatch) {
        return Vec::new();
    }
    dispatch
        .dispatchers
        .iter()
        .filter(|d| {
            d.arms
                .iter()
                .flat_map(|a| &a.methods)
                .any(|m| m != "initialize" && crate::analysis::dispatch::is_mcp_method(m))
        })
        .flat_map(|d| {
            d.arms
                .iter()
                .map(|a| a.body)
                .chain(d.catch_all.as_ref().map(|c| c.body))
                .map(move |body| (d.span, body))
        })
        .collect()
}

/// What [`must_functions`] reads: the unit's functions and what serves.
struct Way<'a, 'g> {
    graph: &'a CrateGraph<'g>,
    facts: &'a [ServingFacts],
    serving: &'a HashSet<FunctionRef>,
    handlers: &'a [FunctionRef],
    tests: &'a HashSet<FunctionRef>,
    /// The cycles of calls among the functions on the way (see [`call_cycles`]).
    cycles: HashMap<FunctionRef, usize>,
}

impl Way<'_, '_> {
    /// Whether `f` and `g` call each other, through any number of calls on the way.
    fn one_cycle(&self, f: FunctionRef, g: FunctionRef) -> bool {
        matches!((self.cycles.get(&f), self.cycles.get(&g)), (Some(a), Some(b)) if a == b)
    }

    /// The anchors of a function on the way: its serve sites, and its calls that reach only
    /// functions that surely serve (`sure`).
    fn anchors(&self, f: FunctionRef, sure: &HashSet<FunctionRef>) -> Vec<ByteSpan> {
        let item = self.graph.function(f).item_span;
        let mut anchors: Vec<ByteSpan> = Vec::new();
        if self.serving.contains(&f) {
            anchors.extend(
                self.facts[f.file]
                    .serve_sites
                    .iter()
                    .copied()
                    .filter(|site| within(*site, item)),
            );
        }
        for (span, targets) in calls_of(self.graph, f) {
            // A call back into a function that leads here (a console that hands a typed command
            // line to the dispatcher that started it) serves only after that function chose
            // another way than serving: no anchor.
            if !targets.is_empty()
                && (targets.iter()).all(|t| *t != f && sure.contains(t) && !self.one_cycle(f, *t))
            {
                anchors.push(span);
            }
        }
        anchors
    }

    /// The loops of a function on the way that read the messages of a hand-written transport,
    /// each with the read of stdin that serves: a loop whose body comes after such a read, or
    /// holds it in none of its own regions.
    fn message_loops(&self, f: FunctionRef) -> Vec<(ByteSpan, ByteSpan)> {
        let item = self.graph.function(f).item_span;
        let facts = &self.facts[f.file];
        let mut loops = Vec::new();
        for read in facts.stdin_sites.iter().filter(|s| within(**s, item)) {
            for body in facts.loop_bodies.iter().filter(|b| within(**b, item)) {
                let after = read.end <= body.start;
                let holds = within(*read, *body)
                    && super::must::around(&facts.maybe, *body, *read).is_empty();
                if after || holds {
                    loops.push((*body, *read));
                }
            }
        }
        loops
    }

    /// The functions on the way that surely serve once called: an anchor of theirs lies in
    /// none of their branches but the arms of a `match` over a clap sub-command enum (the
    /// command line chooses to serve). One that serves only in some branches serves by a choice
    /// made at run time (a transport a configuration names) that is not resolved here. Only
    /// branches count: the rest of a block after an early exit runs whenever the function goes
    /// on, and a function that leaves (a help text, a failure) serves nothing.
    fn surely_serving(&self, toward: &HashSet<FunctionRef>) -> HashSet<FunctionRef> {
        // The arms of a `match` over a clap sub-command enum are the command line's choice: a
        // function that serves in one serves whenever the program is run to serve.
        let subcommands: HashSet<&str> = self
            .facts
            .iter()
            .flat_map(|f| f.subcommand_enums.iter().map(String::as_str))
            .collect();
        let branches: Vec<Vec<ByteSpan>> =
            self.facts
                .iter()
                .map(|facts| {
                    facts
                        .maybe
                        .iter()
                        .filter(|r| {
                            !facts.variant_arms.iter().any(|(arm, owner)| {
                                arm == *r && subcommands.contains(owner.as_str())
                            })
                        })
                        .copied()
                        .collect()
                })
                .collect();
        let mut sure: HashSet<FunctionRef> = HashSet::new();
        loop {
            let mut grew = false;
            for &f in toward {
                if sure.contains(&f) {
                    continue;
                }
                let item = self.graph.function(f).item_span;
                let own = &branches[f.file];
                if self
                    .anchors(f, &sure)
                    .iter()
                    .any(|a| super::must::around(own, item, *a).is_empty())
                {
                    sure.insert(f);
                    grew = true;
                }
            }
            if !grew {
                return sure;
            }
        }
    }
}

impl Must {
    /// How code at `span`, inside the regions `around` of the function (of the file's
    /// `regions`: the rest of a block after a statement that may leave, and the arms a
    /// parameter's string chooses, are of them), is shown to run: whenever the unit serves
    /// (`Whole`), while it serves, for a message (`Serving`: there, what may leave and which
    /// arm a parameter chooses, a tool's name, are the message's choice), or not shown (`None`).
    /// A function it calls there runs the same way.
    fn runs(&self, span: ByteSpan, around: &[ByteSpan], regions: &Regions) -> Option<Must> {
        let rest = &regions.rest;
        match self {
            Must::Whole => around.is_empty().then_some(Must::Whole),
            Must::Serving => around
                .iter()
                .all(|r| rest.contains(r) || regions.message.contains(r))
                .then_some(Must::Serving),
            Must::Before { anchors, loops } => {
                let before = anchors.iter().any(|(anchor, theirs)| {
                    span.end <= anchor.start && around.iter().all(|r| theirs.contains(r))
                });
                let in_loop = || {
                    loops.iter().any(|(body, theirs, from)| {
                        within(span, *body)
                            && span.start >= *from
                            && around.iter().all(|r| {
                                r == body
                                    || theirs.contains(r)
                                    || ((rest.contains(r)
                                        || regions.parsed.contains(r)
                                        || regions.message.contains(r))
                                        && within(*r, *body))
                            })
                    })
                };
                if before {
                    Some(Must::Whole)
                } else if in_loop() {
                    Some(Must::Serving)
                } else {
                    None
                }
            }
        }
    }
}

/// The cycles of calls among the functions on the way to serving (`toward`): each function
/// that lies on one, with the cycle's number. Found in time linear in the calls (Tarjan's
/// strongly connected components, by `petgraph`).
fn call_cycles(
    graph: &CrateGraph<'_>,
    toward: &HashSet<FunctionRef>,
) -> HashMap<FunctionRef, usize> {
    let mut calls: petgraph::Graph<FunctionRef, ()> = petgraph::Graph::new();
    let nodes: HashMap<FunctionRef, petgraph::graph::NodeIndex> =
        toward.iter().map(|&f| (f, calls.add_node(f))).collect();
    for (&f, &from) in &nodes {
        for (_, targets) in calls_of(graph, f) {
            for t in targets {
                if let Some(&to) = nodes.get(&t) {
                    calls.add_edge(from, to, ());
                }
            }
        }
    }
    let mut cycles = HashMap::new();
    for (number, component) in petgraph::algo::tarjan_scc(&calls).into_iter().enumerate() {
        if component.len() > 1 {
            cycles.extend(component.into_iter().map(|node| (calls[node], number)));
        }
    }
    cycles
}

/// The functions `main` reaches, through any call.
fn reached_from(graph: &CrateGraph<'_>, main: FunctionRef) -> HashSet<FunctionRef> {
    let mut seen: HashSet<FunctionRef> = HashSet::new();
    seen.insert(main);
    let mut queue: VecDeque<FunctionRef> = VecDeque::from([main]);
    while let Some(f) = queue.pop_front() {
        for (_, targets) in reached_by_calls_of(graph, f) {
            for t in targets {
                if seen.insert(t) {
                    queue.push_back(t);
                }
            }
        }
    }
    seen
}

/// The functions whose code is shown to run while the unit serves (see [`Must`]): those on
/// the way to serving, the SDK's handlers, and the functions called from code of theirs that
/// is shown to run, by a call that reaches one function only. In a program, only what
/// `main` reaches runs at all (a serving function nothing calls, kept under
/// `#[allow(dead_code)]`, never does).
fn must_functions(
    way: &Way<'_, '_>,
    toward: &HashSet<FunctionRef>,
    entry: Option<FunctionRef>,
) -> (MustMap, HashMap<FileId, Regions>) {
    let graph = way.graph;
    let regions = file_regions(graph, way.facts);
    let reached = entry.map(|main| reached_from(graph, main));
    let toward: HashSet<FunctionRef> = toward
        .iter()
        .copied()
        .filter(|f| reached.as_ref().is_none_or(|r| r.contains(f)))
        .collect();
    let files = graph.files();
    let empty = Regions::default();
    let regions_of = |f: FunctionRef| regions.get(&files[f.file].0).unwrap_or(&empty);
    let sure = way.surely_serving(&toward);
    let mut by_ref: HashMap<FunctionRef, Must> = HashMap::new();
    for &f in &toward {
        let item = graph.function(f).item_span;
        let around = |a: ByteSpan| super::must::around(&regions_of(f).all, item, a);
        let anchors = way
            .anchors(f, &sure)
            .into_iter()
            .map(|a| (a, around(a)))
            .collect();
        let loops = way
            .message_loops(f)
            .into_iter()
            .map(|(body, read)| (body, around(read), read.end.max(body.start)))
            .collect();
        by_ref.insert(f, Must::Before { anchors, loops });
    }
    for &f in way.handlers {
        if !toward.contains(&f) && !way.tests.contains(&f) {
            by_ref.insert(f, Must::Serving);
        }
    }
    let mut queue: VecDeque<FunctionRef> = by_ref.keys().copied().collect();
    while let Some(f) = queue.pop_front() {
        let Some(how) = by_ref.get(&f).cloned() else {
            continue;
        };
        let item = graph.function(f).item_span;
        let own = regions_of(f);
        for (span, targets) in calls_of(graph, f) {
            let [target] = targets.as_slice() else {
                continue;
            };
            if way.tests.contains(target) {
                continue;
            }
            let Some(runs) = how.runs(span, &super::must::around(&own.all, item, span), own) else {
                continue;
            };
            // A function reached both before serving and for a message is read the stricter
            // way (before serving: it may test the transport before it leaves).
            let known = by_ref.get(target);
            let stricter = matches!((known, &runs), (Some(Must::Serving), Must::Whole));
            if known.is_none() || stricter {
                by_ref.insert(*target, runs);
                queue.push_back(*target);
            }
        }
    }
    let must = by_ref
        .into_iter()
        .map(|(f, how)| ((files[f.file].0, graph.function(f).item_span), how))
        .collect();
    (must, regions)
}

/// The functions of the workspace's libraries whose code is shown to run while the unit serves,
/// for a message: those a call in the unit's code that runs so reaches (the one library function
/// it may reach, see [`super::library_calls::library_callee`]), and those such library code
/// calls (by a call that reaches one function only), each with how it runs and the regions of
/// its library's files (given once per library), and the unit's call it is reached by. A library
/// function called before serving is left out: whether its caller goes on to serve may depend on
/// what it does (a help printer).
fn library_must(
    graph: &CrateGraph<'_>,
    libraries: &[crate::rules::contract::Library<'_>],
    must: &MustMap,
    regions: &HashMap<FileId, Regions>,
) -> Vec<LibraryFunction> {
    if libraries.is_empty() {
        return Vec::new();
    }
    let own_types: HashSet<&str> = graph
        .all_functions()
        .filter_map(|f| graph.function(f).self_ty.as_deref())
        .collect();
    let own = |ty: &str| own_types.contains(ty);
    let empty = Regions::default();
    // The library functions the unit's serving code calls, by library.
    let mut seeds: Vec<Vec<(FunctionRef, (FileId, ByteSpan))>> = vec![Vec::new(); libraries.len()];
    for f in graph.all_functions() {
        let function = graph.function(f);
        let (file_id, file) = graph.files()[f.file];
        let Some(how) = must.get(&(file_id, function.item_span)) else {
            continue;
        };
        let unit_regions = regions.get(&file_id).unwrap_or(&empty);
        for call in &function.calls {
            if !graph.callees(f, call).is_empty() {
                continue;
            }
            let around = super::must::around(&unit_regions.all, function.item_span, call.span);
            if !matches!(
                how.runs(call.span, &around, unit_regions),
                Some(Must::Serving)
            ) {
                continue;
            }
            if let Some((index, target)) =
                super::library_calls::library_callee(graph, file, call, libraries, &own)
            {
                seeds[index].push((target, (file_id, call.span)));
            }
        }
    }
    let mut found = Vec::new();
    for ((_, library), seeds) in libraries.iter().zip(seeds) {
        if seeds.is_empty() {
            continue;
        }
        let facts: Vec<ServingFacts> = library.files().iter().map(|(_, f)| serving(f)).collect();
        let library_regions = file_regions(library, &facts);
        let (tests, _) = product_functions(library);
        let mut reached: HashMap<FunctionRef, (FileId, ByteSpan)> = HashMap::new();
        let mut queue: VecDeque<FunctionRef> = VecDeque::new();
        for (seed, call) in seeds {
            if !tests.contains(&seed) && !reached.contains_key(&seed) {
                reached.insert(seed, call);
                queue.push_back(seed);
            }
        }
        while let Some(f) = queue.pop_front() {
            let call = reached.get(&f).copied();
            let item = library.function(f).item_span;
            let own_regions = library_regions.get(&library.file_id(f)).unwrap_or(&empty);
            for (span, targets) in calls_of(library, f) {
                let [target] = targets.as_slice() else {
                    continue;
                };
                let around = super::must::around(&own_regions.all, item, span);
                if Must::Serving.runs(span, &around, own_regions).is_some()
                    && !tests.contains(target)
                    && !reached.contains_key(target)
                {
                    if let Some(call) = call {
                        reached.insert(*target, call);
                        queue.push_back(*target);
                    }
                }
            }
        }
        let mut library_regions = Some(library_regions);
        for (f, call) in reached {
            let key = (library.file_id(f), library.function(f).item_span);
            found.push((key, call, library_regions.take().unwrap_or_default()));
        }
    }
    found
}

/// A library function that runs while the unit serves (its file and item), the unit's call that
/// reaches it, and the regions of its library's files (given once per library).
type LibraryFunction = (
    (FileId, ByteSpan),
    (FileId, ByteSpan),
    HashMap<FileId, Regions>,
);

/// The functions whose code is shown to run while the unit serves, by file and item.
type MustMap = HashMap<(FileId, ByteSpan), Must>;

/// The functions on the path reached only from calls that a function on the way makes before
/// it starts serving (before its first serve site or call on the way); never from a handler, a
/// call after that point, or what those call.
fn called_before_serving(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
    on_path: &HashMap<FunctionRef, Vec<ByteSpan>>,
    handlers: &[FunctionRef],
) -> (HashSet<FunctionRef>, HashSet<FunctionRef>) {
    let mut points: HashMap<FunctionRef, usize> = HashMap::new();
    for &f in toward {
        let item = graph.function(f).item_span;
        let sites = facts[f.file]
            .serve_sites
            .iter()
            .filter(|site| within(**site, item))
            .map(|site| site.start);
        let calls = reached_by_calls_of(graph, f)
            .filter(|(_, targets)| targets.iter().any(|t| toward.contains(t)))
            .map(|(span, _)| span.start);
        if let Some(at) = sites.chain(calls).min() {
            points.insert(f, at);
        }
    }
    // What runs while serving: the handlers, and everything called after a serving point or
    // from what runs while serving.
    let mut serving: HashSet<FunctionRef> = handlers.iter().copied().collect();
    let mut queue: VecDeque<FunctionRef> = serving.iter().copied().collect();
    let mut early: HashSet<FunctionRef> = HashSet::new();
    for (&f, &at) in &points {
        for (span, targets) in reached_by_calls_of(graph, f) {
            for t in targets.into_iter().filter(|t| !toward.contains(t)) {
                if span.start < at {
                    early.insert(t);
                } else if serving.insert(t) {
                    queue.push_back(t);
                }
            }
        }
    }
    while let Some(f) = queue.pop_front() {
        for (_, targets) in reached_by_calls_of(graph, f) {
            for t in targets {
                if !toward.contains(&t) && serving.insert(t) {
                    queue.push_back(t);
                }
            }
        }
    }
    // What the early calls reach, short of what runs while serving.
    let mut prelude: HashSet<FunctionRef> = HashSet::new();
    let mut queue: VecDeque<FunctionRef> = early.iter().copied().collect();
    while let Some(f) = queue.pop_front() {
        if serving.contains(&f) || !on_path.contains_key(&f) || !prelude.insert(f) {
            continue;
        }
        for (_, targets) in reached_by_calls_of(graph, f) {
            queue.extend(targets.into_iter().filter(|t| !toward.contains(t)));
        }
    }
    (prelude, early)
}

/// The methods the SDK calls while it serves: those of a type that implements a handler trait
/// the crate does not define (see [`ServingFacts::handler_types`]). A handler trait the crate
/// defines is called by the crate's own code, and its methods run while serving only where such
/// a call does (a client's `ClientRequestHandler` answers its server's requests, prompting a
/// person on the client's own terminal). A trait of the library an example links is the
/// example's SDK: for an implementation in the unit's own files, only their traits are the
/// crate's; for one in its library's, every trait of the graph is.
fn sdk_handlers(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    functions: &[FunctionRef],
) -> Vec<FunctionRef> {
    let traits_of = |files: &[(FileId, &crate::analysis::facts::FileFacts)]| -> HashSet<String> {
        files
            .iter()
            .flat_map(|(_, f)| f.traits.iter().cloned())
            .collect()
    };
    let unit_files = graph.unit_files().len();
    let (unit_traits, all_traits) = (traits_of(graph.unit_files()), traits_of(graph.files()));
    let all_traits = &all_traits;
    let handler_types: HashSet<&str> = facts
        .iter()
        .enumerate()
        .flat_map(|(index, f)| {
            let own = if index < unit_files {
                &unit_traits
            } else {
                all_traits
            };
            let imports = graph.files().get(index).map(|(_, file)| &file.imports);
            f.handler_types.iter().filter(move |(_, handler)| {
                // A foreign callback trait, unless the graph defines it.
                let callback = imports.is_some_and(|i| foreign_trait(i, handler))
                    && !all_traits.contains(handler);
                !own.contains(handler) && !callback
            })
        })
        .map(|(ty, _)| ty.as_str())
        .collect();
    functions
        .iter()
        .copied()
        .filter(|f| {
            graph
                .function(*f)
                .self_ty
                .as_deref()
                .is_some_and(|t| handler_types.contains(t))
        })
        .collect()
}

/// Whether a file imports a trait by this name from a crate that is no MCP SDK (`use
/// jetpack::output::OutputHandler;`): unless the graph defines it (an example's library), a
/// library's callback trait, called by the library when the crate calls it, not by an SDK while
/// it serves.
fn foreign_trait(imports: &[(String, Vec<String>)], handler: &str) -> bool {
    imports.iter().any(|(name, path)| {
        name == handler
            && path.len() > 1
            && path
                .first()
                .is_some_and(|root| crate::analysis::dispatch::names_other_library(root))
    })
}

/// Whether `f`'s twin under the negated `cfg` serves (is on the way to serving): then `f` is
/// compiled only in the builds that do not serve (`#[cfg(not(feature = "stdio"))] fn
/// run_stdio() { println!("not enabled") }`).
fn twin_serves(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
    f: FunctionRef,
) -> bool {
    let item = graph.function(f).item_span;
    facts[f.file].cfg_twins.iter().any(|&(a, b)| {
        let twin = if a == item {
            b
        } else if b == item {
            a
        } else {
            return false;
        };
        toward
            .iter()
            .any(|t| t.file == f.file && *t != f && graph.function(*t).item_span == twin)
    })
}

/// Each call of `f`: its span and the crate functions it may reach.
fn calls_of<'g>(
    graph: &'g CrateGraph<'_>,
    f: FunctionRef,
) -> impl Iterator<Item = (ByteSpan, Vec<FunctionRef>)> + 'g {
    graph
        .function(f)
        .calls
        .iter()
        .map(move |call| (call.span, graph.callees(f, call)))
}

/// Each call of `f` and the crate functions it runs: those it may reach (see [`calls_of`]),
/// and for a call through a trait object of a trait the crate defines (`tool.call(..)` on
/// `&dyn ToolHandler`), the implementation when the crate has only one (with several, which one
/// runs is the caller's choice, unknown here).
fn reached_by_calls_of<'g>(
    graph: &'g CrateGraph<'_>,
    f: FunctionRef,
) -> impl Iterator<Item = (ByteSpan, Vec<FunctionRef>)> + 'g {
    graph.function(f).calls.iter().map(move |call| {
        let mut targets = graph.callees(f, call);
        if targets.is_empty() {
            if let Some(implementations) = graph.implementations(f, &call.callee) {
                if let [only] = implementations.as_slice() {
                    targets.push(*only);
                }
            }
        }
        (call.span, targets)
    })
}

/// Whether code at `arm` of a function serves: it holds a serve site, or a call (of the
/// function's `calls`) on the way to one.
fn arm_serves(
    facts: &ServingFacts,
    calls: &[(ByteSpan, Vec<FunctionRef>)],
    toward: &HashSet<FunctionRef>,
    arm: ByteSpan,
) -> bool {
    facts.serve_sites.iter().any(|site| within(*site, arm))
        || calls
            .iter()
            .any(|(span, targets)| within(*span, arm) && targets.iter().any(|t| toward.contains(t)))
}

/// The arms of `f` that end the process (a help text, a fatal error), unless they serve first.
fn exit_arms(
    graph: &CrateGraph<'_>,
    facts: &ServingFacts,
    f: FunctionRef,
    toward: &HashSet<FunctionRef>,
) -> Vec<ByteSpan> {
    let item = graph.function(f).item_span;
    let calls: Vec<(ByteSpan, Vec<FunctionRef>)> = calls_of(graph, f).collect();
    let serves = |arm: ByteSpan| arm_serves(facts, &calls, toward, arm);
    facts
        .exits
        .iter()
        .copied()
        .filter(|arm| within(*arm, item) && !serves(*arm))
        .collect()
}

/// The statements of `f` from which it gives `Some(..)` on every way out, when every call of
/// `f` ends the process on `Some` (`if let Some(code) = f() { exit(code) }`) and they do not
/// serve: they run only on the way out of the process.
fn some_tails_exiting(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    by_name: &CallsByName<'_>,
    f: FunctionRef,
    toward: &HashSet<FunctionRef>,
) -> Vec<ByteSpan> {
    let function = graph.function(f);
    let item = function.item_span;
    let tails: Vec<ByteSpan> = facts[f.file]
        .some_tails
        .iter()
        .copied()
        .filter(|tail| within(*tail, item))
        .collect();
    if tails.is_empty() {
        return tails;
    }
    let mut calls = by_name
        .get(function.name.as_str())
        .into_iter()
        .flatten()
        .filter(|(caller, index)| {
            graph
                .callees(*caller, &graph.function(*caller).calls[*index])
                .contains(&f)
        })
        .peekable();
    if calls.peek().is_none() {
        return Vec::new();
    }
    let all_exit = calls.all(|(caller, index)| {
        let call = &graph.function(*caller).calls[*index];
        facts[caller.file]
            .exits_on_some
            .iter()
            .any(|(name, span)| *name == function.name && within(call.span, *span))
    });
    if !all_exit {
        return Vec::new();
    }
    let own_calls: Vec<(ByteSpan, Vec<FunctionRef>)> = calls_of(graph, f).collect();
    tails
        .into_iter()
        .filter(|tail| !arm_serves(&facts[f.file], &own_calls, toward, *tail))
        .collect()
}

/// The code of `f` that never runs while serving though `f` does: arms that end the process,
/// the statements after which it gives `Some(..)` to a caller that exits on it, and (while the
/// serving loop holds stdout's lock, `locked`) what it runs on another thread.
fn off_the_way(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    by_name: &CallsByName<'_>,
    f: FunctionRef,
    toward: &HashSet<FunctionRef>,
    locked: bool,
) -> Vec<ByteSpan> {
    let mut arms = exit_arms(graph, &facts[f.file], f, toward);
    arms.extend(some_tails_exiting(graph, facts, by_name, f, toward));
    if locked {
        let item = graph.function(f).item_span;
        let spawned = facts[f.file].spawned.iter().copied();
        arms.extend(spawned.filter(|body| within(*body, item)));
    }
    arms
}

/// Whether every function that serves holds stdout's lock while its loop runs (`let mut stdout
/// = io::stdout().lock();` before the loop that reads requests), and no file builds a
/// single-threaded runtime: then code spawned on another thread (`tokio::spawn`,
/// `std::thread::spawn`) cannot write to stdout until the server stops.
fn serving_holds_stdout_lock(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    serving: &HashSet<FunctionRef>,
) -> bool {
    if serving.is_empty() || facts.iter().any(|f| f.current_thread) {
        return false;
    }
    let holds = |f: FunctionRef| {
        let item = graph.function(f).item_span;
        facts[f.file]
            .stdout_locks
            .iter()
            .any(|lock| within(*lock, item))
    };
    // A function that serves by calling the crate's serving loop (`server.run_stdio().await`)
    // holds what the loop holds.
    serving.iter().all(|&f| {
        if holds(f) {
            return true;
        }
        let item = graph.function(f).item_span;
        let sites: Vec<ByteSpan> = facts[f.file]
            .serve_sites
            .iter()
            .copied()
            .filter(|site| within(*site, item))
            .collect();
        !sites.is_empty()
            && sites.iter().all(|site| {
                let targets: Vec<FunctionRef> = calls_of(graph, f)
                    .filter(|(span, _)| within(*span, *site) || within(*site, *span))
                    .flat_map(|(_, targets)| targets)
                    .collect();
                !targets.is_empty() && targets.into_iter().all(holds)
            })
    })
}

/// The graph's test functions (`#[test]`, inside `#[cfg(test)]`), and its other functions (in
/// the files' order): test code never runs while the program serves, so its functions are left
/// out.
fn product_functions(graph: &CrateGraph<'_>) -> (HashSet<FunctionRef>, Vec<FunctionRef>) {
    let (tests, functions): (Vec<FunctionRef>, Vec<FunctionRef>) = graph
        .all_functions()
        .partition(|f| graph.function(*f).in_test);
    (tests.into_iter().collect(), functions)
}

/// Whether a file's dispatchers answer another JSON-RPC protocol, not MCP: one of them has an
/// arm for a method with a `/` that is no MCP method (`"session/new"`, `"textDocument/hover"`),
/// and none has an arm for an MCP method but `initialize`, which every such protocol shares. A
/// loop of JSON lines on stdin in that file serves that protocol (an Agent Client Protocol or a
/// language server beside an MCP server the crate serves over HTTP), not MCP.
fn dispatches_another_protocol(dispatch: &crate::analysis::dispatchers::DispatchFacts) -> bool {
    crate::analysis::dispatch::lists_another_protocol(|| {
        dispatch
            .dispatchers
            .iter()
            .flat_map(|d| d.arms.iter())
            .flat_map(|arm| arm.methods.iter())
    })
}

/// A library's functions, each with whether it surely serves MCP over the process's stdio once
/// called (see [`Way::surely_serving`]), by module, type (for an associated function) and name;
/// and the names its root re-exports (`pub use server::serve_stdio;`). Built once per library
/// graph, for every unit that calls into it.
#[derive(Default)]
struct LibraryServing {
    functions: Vec<(Vec<String>, Option<String>, String, bool)>,
    reexports: Vec<(String, Vec<String>)>,
}

impl LibraryServing {
    /// What a library's code shows: nothing when it does not speak MCP (see
    /// [`crate::rules::contract::code_serves_mcp`]) or serves nothing.
    fn of(graph: &CrateGraph<'_>) -> Self {
        let mut facts: Vec<ServingFacts> = graph.files().iter().map(|(_, f)| serving(f)).collect();
        // Only a site that opens the process's own stdio serves here: not a transport built
        // from values it is given (a child's pipes, a client library's `StdioTransport::new(
        // child_stdout, child_stdin)`), nor one in a function that launches a child process.
        for (index, file) in facts.iter_mut().enumerate() {
            let launching: Vec<ByteSpan> = (graph.files()[index].1.functions.iter())
                .map(|f| f.item_span)
                .filter(|item| file.child_launches.iter().any(|l| within(*l, *item)))
                .collect();
            let given: Vec<ByteSpan> = file.given_io_sites.iter().map(|(s, ..)| *s).collect();
            file.serve_sites.retain(|site| {
                !given.contains(site) && !launching.iter().any(|item| within(*site, *item))
            });
        }
        if facts.iter().all(|f| f.serve_sites.is_empty())
            || !crate::rules::contract::code_serves_mcp(graph)
        {
            return LibraryServing::default();
        }
        let (tests, functions) = product_functions(graph);
        let serving = serving_functions(graph, &facts, &functions);
        let by_name = calls_by_name(graph, &functions);
        let toward = callers_of(graph, &by_name, &serving);
        let way = Way {
            graph,
            facts: &facts,
            serving: &serving,
            handlers: &[],
            tests: &tests,
            cycles: call_cycles(graph, &toward),
        };
        let sure = way.surely_serving(&toward);
        let functions = functions
            .into_iter()
            .map(|f| {
                let function = graph.function(f);
                let module = function.module.clone();
                (
                    module,
                    function.self_ty.clone(),
                    function.name.clone(),
                    sure.contains(&f),
                )
            })
            .collect();
        // The library's root is its graph's first file.
        let reexports = graph
            .files()
            .first()
            .map(|(_, root)| root.imports.clone())
            .unwrap_or_default();
        LibraryServing {
            functions,
            reexports,
        }
    }

    /// Whether the library defines a method or associated function `name` of type `ty`.
    fn defines(&self, ty: &str, name: &str) -> bool {
        (self.functions.iter()).any(|(_, t, n, _)| n == name && t.as_deref() == Some(ty))
    }

    /// Whether a call by `path` (inside the library: its modules, then the type for an
    /// associated function, then the name) surely serves: every function it may reach does,
    /// and there is one. A function by its modules, or by the name the root re-exports it
    /// under; an associated function by its type in any module. A function the analysis did not
    /// read (in a file with nothing that serves) is reached by no path here: silence.
    fn serves(&self, path: &[&str]) -> bool {
        let Some((name, before)) = path.split_last() else {
            return false;
        };
        let (owner, modules) = match before.split_last() {
            Some((last, modules)) if last.starts_with(|c: char| c.is_ascii_uppercase()) => {
                (Some(*last), modules)
            }
            _ => (None, before),
        };
        let reexported: Vec<&str>;
        let modules: Option<&[&str]> = match (owner, modules) {
            (Some(_), _) => None,
            (None, []) => match self.reexports.iter().find(|(n, _)| n == name) {
                Some((_, from)) => {
                    reexported = (from.iter().map(String::as_str))
                        .skip_while(|segment| matches!(*segment, "crate" | "self"))
                        .collect();
                    Some(reexported.split_last().map_or(&[], |(_, m)| m))
                }
                None => Some(&[]),
            },
            (None, modules) => Some(modules),
        };
        let reached: Vec<bool> = (self.functions.iter())
            .filter(|(module, ty, n, _)| {
                n == name
                    && ty.as_deref() == owner
                    && modules
                        .is_none_or(|m| module.iter().map(String::as_str).eq(m.iter().copied()))
            })
            .map(|(.., sure)| *sure)
            .collect();
        !reached.is_empty() && reached.iter().all(|sure| *sure)
    }
}

/// Adds to `facts` a serve site at each call of the unit's functions that reaches a function
/// of a library of the workspace that surely serves MCP over the process's stdio (every
/// function of that library the call may reach doing so, see [`LibraryServing::serves`]): by
/// a path through the library (`other_crate::stdio::run()`, or a name a `use` brings from
/// there), or a method of a type only the library defines (`server.run()` where `server` is an
/// `other_crate::Server`). Whether the unit serves any this way.
fn library_serve_sites(
    graph: &CrateGraph<'_>,
    libraries: &[crate::rules::contract::Library<'_>],
    facts: &mut [ServingFacts],
) -> bool {
    use crate::analysis::facts::{Callee, ReceiverType};
    if libraries.is_empty() {
        return false;
    }
    let known = |library: &CrateGraph<'_>| {
        library
            .summaries()
            .get_or_init(|| LibraryServing::of(library))
    };
    // Types the unit defines itself: a method of one of them is the unit's.
    let own_types: HashSet<&str> = graph
        .all_functions()
        .filter_map(|f| graph.function(f).self_ty.as_deref())
        .collect();
    let mut any = false;
    for (index, (_, file)) in graph.files().iter().enumerate() {
        for function in &file.functions {
            for call in &function.calls {
                let serves = match &call.callee {
                    Callee::Path(segments) => {
                        super::library_calls::library_path(graph, file, segments, libraries)
                            .is_some_and(|(index, inside)| {
                                !inside.is_empty() && known(libraries[index].1).serves(&inside)
                            })
                    }
                    Callee::Method {
                        name,
                        receiver: Some(ReceiverType::Named(ty)),
                        ..
                    } if !own_types.contains(ty.as_str()) => {
                        let mut defining = libraries
                            .iter()
                            .map(|(_, library)| known(library))
                            .filter(|k| k.defines(ty, name))
                            .peekable();
                        defining.peek().is_some()
                            && defining.all(|k| k.serves(&[ty.as_str(), name.as_str()]))
                    }
                    _ => false,
                };
                if serves {
                    facts[index].serve_sites.push(call.span);
                    any = true;
                }
            }
        }
    }
    any
}

/// The functions that start serving: the innermost function around each serve site.
fn serving_functions(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    functions: &[FunctionRef],
) -> HashSet<FunctionRef> {
    // The functions of each file (`functions` is in the files' order).
    let of_file = |file: usize| {
        let start = functions.partition_point(|f| f.file < file);
        let end = functions.partition_point(|f| f.file <= file);
        &functions[start..end]
    };
    let innermost = |file: usize, span: ByteSpan| -> Option<FunctionRef> {
        of_file(file)
            .iter()
            .copied()
            .filter(|f| within(span, graph.function(*f).item_span))
            .min_by_key(|f| {
                let item = graph.function(*f).item_span;
                item.end - item.start
            })
    };
    let mut serving = HashSet::new();
    for (index, file_facts) in facts.iter().enumerate() {
        for site in &file_facts.serve_sites {
            let Some(function) = innermost(index, *site) else {
                continue;
            };
            if !given_io_serves(graph, facts, file_facts, *site)
                || !own_type_serves(graph, facts, file_facts, *site)
                || (file_facts.stdin_sites.contains(site)
                    && dispatches_another_protocol(&graph.files()[index].1.dispatch))
                || named_own_function(graph, facts, file_facts, function, *site)
            {
                continue;
            }
            serving.insert(function);
        }
    }
    serving
}

/// Whether a serve site known by its callee's name (`run_stdio_demo()`, see
/// [`ServingFacts::named_sites`]) calls a function of the unit that launches a child process
/// to talk to over its pipes (`TokioChildProcess::new(..)`, `.stdin(Stdio::piped())`): a demo
/// that runs the server as a child, named for stdio, serves nothing on the process's own. Nor
/// does one whose functions of the unit open no serve site, themselves or through their calls.
fn named_own_function(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    file_facts: &ServingFacts,
    function: FunctionRef,
    site: ByteSpan,
) -> bool {
    let launches = |callee: &FunctionRef| {
        let item = graph.function(*callee).item_span;
        facts.get(callee.file).is_some_and(|own| {
            own.child_launches
                .iter()
                .any(|launch| within(*launch, item))
        })
    };
    if !file_facts.named_sites.contains(&site) {
        return false;
    }
    let callees: Vec<FunctionRef> = graph
        .function(function)
        .calls
        .iter()
        .filter(|call| call.span == site)
        .flat_map(|call| graph.callees(function, call))
        .collect();
    callees.iter().any(launches)
        || serves_a_socket_instead(graph, facts, &callees)
        || does_nothing_that_could_serve(graph, facts, &callees)
        || talks_to_a_child_instead(graph, facts, &callees, &launches)
        || (!callees.is_empty()
            && callees
                .iter()
                .all(|c| returns_to_its_caller(graph, facts, *c, function)))
}

/// Whether a function of the unit called by a name that says it serves stdio only calls back
/// into the function that called it (codescope's `init` falls back to `run_stdio_init(..)`,
/// whose body is `Box::pin(run(..)).await`, the same `init::run` again: batch 88): it opens no
/// serve site of its own, calls the caller (its serving, if any, is the caller's own, judged
/// where it is), and makes no other call but paths the crate graph does not resolve
/// (`Box::pin`), none a serve site. A method call it cannot resolve may be an SDK's builder
/// that serves (`ServerBuilder::new().for_stdio().run()`), so such a function still serves by
/// its name.
fn returns_to_its_caller(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    callee: FunctionRef,
    caller: FunctionRef,
) -> bool {
    if opens_a_serve_site(graph, facts, callee) {
        return false;
    }
    let function = graph.function(callee);
    let mut back = false;
    for call in &function.calls {
        let targets = graph.callees(callee, call);
        if targets.is_empty() {
            if !matches!(call.callee, crate::analysis::facts::Callee::Path(_)) {
                return false;
            }
        } else if targets.iter().all(|t| *t == caller) {
            back = true;
        } else {
            return false;
        }
    }
    back
}

/// Whether a function of the unit holds one of the serve sites of its file.
fn opens_a_serve_site(graph: &CrateGraph<'_>, facts: &[ServingFacts], f: FunctionRef) -> bool {
    let item = graph.function(f).item_span;
    facts
        .get(f.file)
        .is_some_and(|own| own.serve_sites.iter().any(|s| within(*s, item)))
}

/// Whether the functions of the unit a call named for serving stdio reaches do nothing that
/// could serve (agentstack's `server_stdio_identity(&r.server)`, a `format!` of a configured
/// server's command line: batch 120): none of them, nor what they call (as far as
/// [`NAMED_SERVE_DEPTH`] calls down), opens a serve site, and every call among them that the
/// crate graph does not resolve is of a name that says nothing of running or serving (`join`,
/// `as_deref`; not `run`, `serve`, `start`, `listen`, `block_on`, a name with `stdio`, which
/// an SDK's builder may be, nor `stdin()` or `stdout()`, which a loop of the crate that the
/// facts do not take for a serve site may be handed: adguardhome-mcp-rs's
/// `self.run(stdin(), stdout(), rx)`). Their body, not their name, then decides: they serve
/// nothing.
fn does_nothing_that_could_serve(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    start: &[FunctionRef],
) -> bool {
    use crate::analysis::facts::Callee;
    let could_serve = |name: &str| {
        name.to_ascii_lowercase().split('_').any(|word| {
            word.starts_with("serv")
                || word.starts_with("run")
                || word.starts_with("start")
                || word.starts_with("listen")
                || word.starts_with("stdio")
                || word.starts_with("stdin")
                || word.starts_with("stdout")
                || word == "block"
                || word == "spawn"
        })
    };
    if start.is_empty() {
        return false;
    }
    let mut seen: HashSet<FunctionRef> = start.iter().copied().collect();
    let mut frontier: Vec<FunctionRef> = start.to_vec();
    for _ in 0..NAMED_SERVE_DEPTH {
        let mut next = Vec::new();
        for f in frontier {
            if opens_a_serve_site(graph, facts, f) {
                return false;
            }
            let function = graph.function(f);
            for call in &function.calls {
                let callees = graph.callees(f, call);
                if callees.is_empty() {
                    let name = match &call.callee {
                        Callee::Path(segments) => segments.last().map(String::as_str),
                        Callee::Method { name, .. } => Some(name.as_str()),
                    };
                    if name.is_none_or(could_serve) {
                        return false;
                    }
                }
                for callee in callees {
                    if seen.insert(callee) {
                        next.push(callee);
                    }
                }
            }
        }
        if next.is_empty() {
            return true;
        }
        frontier = next;
    }
    false
}

/// How many calls down [`serves_a_socket_instead`] looks.
const NAMED_SERVE_DEPTH: usize = 6;

/// Whether the functions of the unit a call named for serving stdio reaches (`run_stdio()`)
/// listen on a socket (`TcpListener::bind(..)`, `axum::serve(..)`, actix's `HttpServer::new`),
/// themselves or through the functions they call, and open no serve site on the way:
/// deva-mcp's `run_stdio` only runs its HTTP server (batch 86), and serves nothing on stdio
/// whatever its name says. Calls the crate graph does not resolve are not followed, so without
/// such a listener what the function does is not shown, and the name serves, as before.
fn serves_a_socket_instead(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    start: &[FunctionRef],
) -> bool {
    let listener = |segments: &[String]| {
        let tail: Vec<&str> = segments.iter().rev().take(2).map(String::as_str).collect();
        matches!(
            tail.as_slice(),
            ["bind", "TcpListener"] | ["serve", "axum" | "warp" | "hyper"] | ["new", "HttpServer"]
        )
    };
    let mut seen: HashSet<FunctionRef> = start.iter().copied().collect();
    let mut frontier: Vec<FunctionRef> = start.to_vec();
    let mut listens = false;
    for _ in 0..NAMED_SERVE_DEPTH {
        let mut next = Vec::new();
        for f in frontier {
            if opens_a_serve_site(graph, facts, f) {
                return false;
            }
            let function = graph.function(f);
            for call in &function.calls {
                if let crate::analysis::facts::Callee::Path(segments) = &call.callee {
                    listens |= listener(segments);
                }
                for callee in graph.callees(f, call) {
                    if seen.insert(callee) {
                        next.push(callee);
                    }
                }
            }
        }
        if next.is_empty() {
            return listens;
        }
        frontier = next;
    }
    false
}

/// Whether the functions of the unit a call named for serving stdio reaches launch a child
/// process to talk to over its pipes through the functions they call (mcp-atlassian-rs's
/// smoke test: `run_stdio` starts a `StdioSession`, whose `start` spawns the server with piped
/// stdio: batch 93), and open no serve site on the way: a client of a server it runs, which
/// serves nothing on the process's own stdio whatever its name says. Calls the crate graph
/// does not resolve are not followed.
fn talks_to_a_child_instead(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    start: &[FunctionRef],
    launches: &dyn Fn(&FunctionRef) -> bool,
) -> bool {
    let mut seen: HashSet<FunctionRef> = start.iter().copied().collect();
    let mut frontier: Vec<FunctionRef> = start.to_vec();
    let mut launched = false;
    for _ in 0..NAMED_SERVE_DEPTH {
        let mut next = Vec::new();
        for f in frontier {
            if opens_a_serve_site(graph, facts, f) {
                return false;
            }
            launched |= launches(&f);
            for call in &graph.function(f).calls {
                for callee in graph.callees(f, call) {
                    if seen.insert(callee) {
                        next.push(callee);
                    }
                }
            }
        }
        if next.is_empty() {
            return launched;
        }
        frontier = next;
    }
    false
}

/// Whether a serve site serves, when it constructs a stdio transport from values it is given
/// (see [`ServingFacts::given_io_sites`]). Not when the unit shows that the type opens the
/// process's stdio when it is constructed, and that this constructor does not: another
/// constructor of the type calls for stdio (`fn new() -> Self { Self::with_io(stdin(),
/// stdout()) }`) and no definition of this one does (`fn with_io(reader: R, writer: W)`, which
/// keeps what the caller gives, a socket's halves). Where the type opens stdio later
/// (`StdioTransport::new(router).run()`), or the unit does not define it, the site serves.
fn given_io_serves(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    file_facts: &ServingFacts,
    site: ByteSpan,
) -> bool {
    let Some((_, owner, constructor)) = file_facts.given_io_sites.iter().find(|(s, ..)| *s == site)
    else {
        return true;
    };
    let calls_for_stdio = |f: FunctionRef| {
        let item = graph.function(f).item_span;
        facts
            .get(f.file)
            .is_some_and(|own| own.stdio_calls.iter().any(|call| within(*call, item)))
    };
    let (mut this, mut others_open) = (false, false);
    for f in graph.all_functions() {
        let function = graph.function(f);
        if function.has_receiver || function.self_ty.as_deref() != Some(owner.as_str()) {
            continue;
        }
        if function.name == *constructor {
            if calls_for_stdio(f) {
                return true;
            }
            this = true;
        } else {
            others_open |= calls_for_stdio(f);
        }
    }
    !(this && others_open)
}

/// Whether a serve site that constructs a stdio transport type (`StdioTransport::new()`)
/// serves: not when the unit defines the type and no function of it (nor a function of the
/// unit one of them calls) opens the process's stdio. Such a type is named for stdio and does
/// something else with it (a proxy's transport that launches its backends as children with
/// piped stdio). A type the unit does not define (an SDK's) serves.
fn own_type_serves(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    file_facts: &ServingFacts,
    site: ByteSpan,
) -> bool {
    let Some((_, owner)) = file_facts
        .constructed_sites
        .iter()
        .find(|(s, _)| *s == site)
    else {
        return true;
    };
    let calls_for_stdio = |f: FunctionRef| {
        let item = graph.function(f).item_span;
        facts
            .get(f.file)
            .is_some_and(|own| own.stdio_calls.iter().any(|call| within(*call, item)))
    };
    let mut defined = false;
    for f in graph.all_functions() {
        let function = graph.function(f);
        if function.self_ty.as_deref() != Some(owner.as_str()) {
            continue;
        }
        defined = true;
        if calls_for_stdio(f)
            || function
                .calls
                .iter()
                .any(|call| graph.callees(f, call).into_iter().any(calls_for_stdio))
        {
            return true;
        }
    }
    !defined
}

/// On the way to serving: the serving functions and all their callers.
fn callers_of(
    graph: &CrateGraph<'_>,
    by_name: &CallsByName<'_>,
    serving: &HashSet<FunctionRef>,
) -> HashSet<FunctionRef> {
    let mut toward: HashSet<FunctionRef> = serving.clone();
    let mut queue: VecDeque<FunctionRef> = serving.iter().copied().collect();
    while let Some(f) = queue.pop_front() {
        let name = graph.function(f).name.as_str();
        for &(caller, index) in by_name.get(name).into_iter().flatten() {
            if toward.contains(&caller) {
                continue;
            }
            let call = &graph.function(caller).calls[index];
            if graph.callees(caller, call).contains(&f) {
                toward.insert(caller);
                queue.push_back(caller);
            }
        }
    }
    toward
}

/// In the functions on the way to serving, the branches that exclude the one that serves: of
/// a set of branches where one holds a serve site or a call on the way, the others.
fn excluded_branches(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
) -> (Arms, Arms) {
    let all = facts;
    let mut off: Arms = HashMap::new();
    let mut serving: Arms = HashMap::new();
    for &f in toward {
        let item = graph.function(f).item_span;
        let facts = &all[f.file];
        let calls: Vec<(ByteSpan, Vec<FunctionRef>)> = calls_of(graph, f).collect();
        let serves = |arm: ByteSpan| arm_serves(facts, &calls, toward, arm);
        for arms in &facts.branches {
            if !arms.iter().all(|arm| within(*arm, item)) {
                continue;
            }
            let serving_arms: Vec<bool> = arms.iter().map(|arm| serves(*arm)).collect();
            if serving_arms.iter().any(|s| *s) {
                for (arm, serves) in arms.iter().zip(serving_arms) {
                    let side = if serves { &mut serving } else { &mut off };
                    side.entry(f).or_default().push(*arm);
                }
            }
        }
        // A branch that leaves and the rest of its block: when the branch serves, the rest is
        // off; when the rest serves, the branch is. The rest is never a serving branch: it
        // also runs for what does not serve.
        for &(arm, rest) in &facts.leaving {
            if !within(arm, item) || !within(rest, item) {
                continue;
            }
            match (serves(arm), serves(rest)) {
                (true, false) => {
                    off.entry(f).or_default().push(rest);
                    serving.entry(f).or_default().push(arm);
                }
                (false, true) => off.entry(f).or_default().push(arm),
                _ => {}
            }
        }
        // `if let Some(code) = run::handle_mcp_flag(&cli) { return code; }` where the callee
        // gives `Some` on every way through its serving: the rest runs only when it did not
        // serve.
        for &(call, rest) in &facts.leaving_on_some {
            if !within(rest, item) {
                continue;
            }
            let serves_only_for_some =
                calls
                    .iter()
                    .find(|(span, _)| *span == call)
                    .is_some_and(|(_, targets)| {
                        !targets.is_empty()
                            && targets.iter().all(|t| {
                                toward.contains(t)
                                    && serves_only_returning_some(graph, all, toward, *t)
                            })
                    });
            if serves_only_for_some {
                off.entry(f).or_default().push(rest);
            }
        }
        // `if matches!(cli.command, Command::Index { .. }) { .. }` where the function serves
        // in another arm of `match cli.command` (`Command::Serve => ..`): the block runs only
        // for sub-commands that never serve. And `match &command { Command::Serve { .. } =>
        // {}, _ => init_logging() }` where it serves only in the `Command::Serve` arm of `match
        // command`: the catch-all runs only for sub-commands that never serve.
        let guarded_off = guards_off(graph, all, toward, f, &calls, &serves);
        if !guarded_off.is_empty() {
            off.entry(f).or_default().extend(guarded_off);
        }
    }
    (off, serving)
}

/// The guarded blocks of `f` (see [`ServingFacts::variant_guards`] and `except_guards`) that run
/// only for variants none of the serving arms of a `match` on the same value takes: a `match` of
/// `f`, or one of another function that decides whether `f` serves
/// ([`deciding_matches_elsewhere`]).
fn guards_off(
    graph: &CrateGraph<'_>,
    all: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
    f: FunctionRef,
    calls: &[(ByteSpan, Vec<FunctionRef>)],
    serves: &dyn Fn(ByteSpan) -> bool,
) -> Vec<ByteSpan> {
    let item = graph.function(f).item_span;
    let facts = &all[f.file];
    let mut off = Vec::new();
    let admitted = facts.variant_guards.iter().map(|(b, s, v)| (b, s, v, true));
    let excluded = facts.except_guards.iter().map(|(b, s, v)| (b, s, v, false));
    let elsewhere = deciding_matches_elsewhere(graph, all, toward, f, calls);
    for (block, scrutinee, variants, admits) in admitted.chain(excluded) {
        if !within(*block, item) || serves(*block) {
            continue;
        }
        // Whether the guard's block never runs for `name`, a variant another arm serves.
        let never = |name: &String| match admits {
            true => !variants.iter().any(|v| variants_overlap(v, name)),
            false => variants.iter().any(|v| variant_covers(v, name)),
        };
        let all_never = |serving: &[&Option<Vec<String>>]| {
            !serving.is_empty()
                && serving
                    .iter()
                    .all(|v| v.as_ref().is_some_and(|names| names.iter().all(never)))
        };
        let disjoint = facts
            .variant_matches
            .iter()
            .filter(|(on, arms)| on == scrutinee && arms.iter().all(|(arm, _)| within(*arm, item)))
            .any(|(_, arms)| {
                let serving: Vec<&Option<Vec<String>>> = arms
                    .iter()
                    .filter(|(arm, _)| serves(*arm))
                    .map(|(_, v)| v)
                    .collect();
                all_never(&serving)
            })
            || elsewhere
                .iter()
                .any(|(on, serving)| on == scrutinee && all_never(serving));
        if disjoint {
            off.push(*block);
        }
    }
    off
}

/// The `match`es of another function on the way that decide whether `f` serves: `f` has no
/// serve site of its own and every call it makes on the way reaches one function `g`, which
/// serves only inside arms of a `match` that name variants; per such `match`, its scrutinee and
/// the variants of its serving arms. `main` sets up its logger in a `match` on the sub-command,
/// then calls `run(cli)`, which serves stdio in the `Mcp` arm of its own `match` on it: `main`'s
/// arms for other sub-commands run only when the program does not serve. A `match` on `g`'s
/// parameter (`fn execute(config, command: Commands) { match command { .. } }`) is one on the
/// value `f` hands it (`execute(&config, cli.command)`), as that value's text.
fn deciding_matches_elsewhere<'f>(
    graph: &CrateGraph<'_>,
    all: &'f [ServingFacts],
    toward: &HashSet<FunctionRef>,
    f: FunctionRef,
    calls: &[(ByteSpan, Vec<FunctionRef>)],
) -> Vec<(String, Vec<&'f Option<Vec<String>>>)> {
    let item = graph.function(f).item_span;
    if all[f.file]
        .serve_sites
        .iter()
        .any(|site| within(*site, item))
    {
        return Vec::new();
    }
    let mut reached = calls
        .iter()
        .flat_map(|(_, targets)| targets.iter().copied())
        .filter(|t| *t != f && toward.contains(t));
    let Some(g) = reached.next() else {
        return Vec::new();
    };
    if reached.any(|t| t != g) {
        return Vec::new();
    }
    let own = &all[g.file];
    let g_item = graph.function(g).item_span;
    let g_calls: Vec<(ByteSpan, Vec<FunctionRef>)> = calls_of(graph, g).collect();
    let serves = |arm: ByteSpan| arm_serves(own, &g_calls, toward, arm);
    let serving_spans = where_it_serves(graph, all, toward, g);
    if serving_spans.is_empty() {
        return Vec::new();
    }
    own.variant_matches
        .iter()
        .filter(|(_, arms)| arms.iter().all(|(arm, _)| within(*arm, g_item)))
        .filter_map(|(on, arms)| {
            let serving: Vec<(ByteSpan, &Option<Vec<String>>)> = arms
                .iter()
                .filter(|(arm, _)| serves(*arm))
                .map(|(arm, v)| (*arm, v))
                .collect();
            let decided = serving_spans
                .iter()
                .all(|span| serving.iter().any(|(arm, _)| within(*span, *arm)));
            decided.then(|| (on, serving.into_iter().map(|(_, v)| v).collect::<Vec<_>>()))
        })
        .flat_map(|(on, serving)| {
            let handed = handed_value(graph, all, f, g, calls, on);
            std::iter::once((on.clone(), serving.clone()))
                .chain(handed.map(|value| (value, serving)))
        })
        .collect()
}

/// What `on`, a scrutinee of `g` that starts with one of its parameters (`command`,
/// `args.command`), is in `f`, which calls `g`: the same with the parameter replaced by the place
/// every call of `f` that reaches `g` hands it (`cli.command`); None when a call hands no place
/// or the calls differ.
fn handed_value(
    graph: &CrateGraph<'_>,
    all: &[ServingFacts],
    f: FunctionRef,
    g: FunctionRef,
    calls: &[(ByteSpan, Vec<FunctionRef>)],
    on: &str,
) -> Option<String> {
    let g_item = graph.function(g).item_span;
    let (head, rest) = on.split_once('.').map_or((on, ""), |(h, r)| (h, r));
    let names = all[g.file]
        .parameter_names
        .iter()
        .find(|(body, _)| within(*body, g_item))
        .map(|(_, names)| names)?;
    let position = names.iter().position(|n| n.as_deref() == Some(head))?;
    // `Type::method(receiver, ..)`: its arguments count the receiver, the names do not.
    if graph.function(g).has_receiver {
        let by_path = graph
            .function(f)
            .calls
            .iter()
            .filter(|c| graph.callees(f, c).contains(&g))
            .any(|c| matches!(c.callee, crate::analysis::facts::Callee::Path(_)));
        if by_path {
            return None;
        }
    }
    let mut handed: Option<&String> = None;
    for (span, _) in calls.iter().filter(|(_, targets)| targets.contains(&g)) {
        let arg = all[f.file]
            .place_args
            .iter()
            .find(|(call, _)| call == span)
            .and_then(|(_, places)| places.get(position))
            .and_then(Option::as_ref)?;
        if handed.is_some_and(|seen| seen != arg) {
            return None;
        }
        handed = Some(arg);
    }
    let handed = handed?;
    Some(if rest.is_empty() {
        handed.clone()
    } else {
        format!("{handed}.{rest}")
    })
}

/// Whether `f` starts serving (a serve site, or a call on the way to one) only in code that
/// gives `Some(..)` on its way out: a `return Some(..)` around it, or the statements from which
/// every way out gives `Some`.
fn serves_only_returning_some(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
    f: FunctionRef,
) -> bool {
    let item = graph.function(f).item_span;
    let own = &facts[f.file];
    let serving = where_it_serves(graph, facts, toward, f);
    !serving.is_empty()
        && serving.into_iter().all(|span| {
            own.some_returns
                .iter()
                .chain(&own.some_tails)
                .any(|some| within(*some, item) && within(span, *some))
        })
}

/// The `bool` places (a local, a field of one) such that every way `f` serves is inside a
/// branch taken only when the place holds a value: `if is_stream_mode { http().await } else {
/// stdio().await }` gives (`is_stream_mode`, `false`). A branch elsewhere on a parameter that
/// `f` hands that place (`init_logging(is_stream_mode)`) runs for the other value only when `f`
/// does not serve.
fn deciding_flags(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
    f: FunctionRef,
) -> Vec<(String, bool)> {
    let item = graph.function(f).item_span;
    let serving = where_it_serves(graph, facts, toward, f);
    let own = &facts[f.file];
    let guards: Vec<(&ByteSpan, &String, bool)> = own
        .variant_guards
        .iter()
        .filter(|(block, ..)| within(*block, item))
        .filter_map(|(block, place, variants)| match variants.as_slice() {
            [v] if v == "true" => Some((block, place, true)),
            [v] if v == "false" => Some((block, place, false)),
            _ => None,
        })
        .collect();
    let mut flags: Vec<(String, bool)> = Vec::new();
    for &(_, place, value) in &guards {
        let decided = !serving.is_empty()
            && serving.iter().all(|span| {
                guards
                    .iter()
                    .any(|(b, p, v)| *p == place && *v == value && within(*span, **b))
            });
        if decided && !flags.iter().any(|(p, v)| p == place && *v == value) {
            flags.push((place.clone(), value));
        }
    }
    // A local that is exactly a test of the sub-command (`use_stderr = matches!(cli.command,
    // Some(Commands::Mcp))`) decides when every serving place lies in an arm or block for
    // variants it admits (then `true`) or for none of them (then `false`).
    for (_, local, scrutinee, admitted) in own.exact_flags.iter().filter(|e| within(e.0, item)) {
        let guarded_by = |inside: bool| {
            !serving.is_empty()
                && serving.iter().all(|span| {
                    own.variant_guards.iter().any(|(b, s, variants)| {
                        s == scrutinee
                            && within(*span, *b)
                            && variants.iter().all(|v| admitted.contains(v) == inside)
                    })
                })
        };
        for value in [true, false] {
            if guarded_by(value) && !flags.iter().any(|(p, v)| p == local && *v == value) {
                flags.push((local.clone(), value));
            }
        }
    }
    flags
}

/// Where `f` starts serving: its serve sites and its calls on the way to serving.
fn where_it_serves(
    graph: &CrateGraph<'_>,
    facts: &[ServingFacts],
    toward: &HashSet<FunctionRef>,
    f: FunctionRef,
) -> Vec<ByteSpan> {
    let item = graph.function(f).item_span;
    let sites = facts[f.file]
        .serve_sites
        .iter()
        .copied()
        .filter(|site| within(*site, item));
    let serving_calls = calls_of(graph, f)
        .filter(|(_, targets)| targets.iter().any(|t| *t != f && toward.contains(t)))
        .map(|(span, _)| span);
    sites.chain(serving_calls).collect()
}

/// Per function, spans of branches.
type Arms = HashMap<FunctionRef, Vec<ByteSpan>>;

/// Calls by the name they call (the caller and the call's index in it).
type CallsByName<'g> = HashMap<&'g str, Vec<(FunctionRef, usize)>>;

/// Calls by the name they call, so that callers are found without resolving every call.
fn calls_by_name<'g>(graph: &'g CrateGraph<'_>, functions: &[FunctionRef]) -> CallsByName<'g> {
    let mut by_name: HashMap<&str, Vec<(FunctionRef, usize)>> = HashMap::new();
    for &f in functions {
        for (index, call) in graph.function(f).calls.iter().enumerate() {
            by_name.entry(call.name()).or_default().push((f, index));
        }
    }
    by_name
}

/// Whether code at `span` of `f` runs only while serving, given the functions known to run
/// otherwise too (`shared`): `f` is on the path and not shared, the code is outside its excluded
/// branches, and where `f` branches between serving and not, the code lies in a serving branch.
fn certain_at(
    f: FunctionRef,
    span: ByteSpan,
    on_path: &HashMap<FunctionRef, Vec<ByteSpan>>,
    serving_arms: &Arms,
    shared: &HashSet<FunctionRef>,
) -> bool {
    let Some(excluded) = on_path.get(&f) else {
        return false;
    };
    let inside = |arms: &[ByteSpan]| arms.iter().any(|arm| within(span, *arm));
    !shared.contains(&f)
        && !inside(excluded)
        && (excluded.is_empty() || serving_arms.get(&f).is_some_and(|arms| inside(arms)))
}

/// The functions on the serving path that may also run when the program does not serve: a
/// call to them runs otherwise (from off the path, from an excluded branch, from `main` before
/// its sub-commands, from a function itself shared), to a fixed point.
fn shared_functions(
    graph: &CrateGraph<'_>,
    by_name: &CallsByName<'_>,
    on_path: &HashMap<FunctionRef, Vec<ByteSpan>>,
    serving_arms: &Arms,
) -> HashSet<FunctionRef> {
    // Per function on the path, the call sites that reach it.
    let mut sites: Vec<(FunctionRef, FunctionRef, ByteSpan)> = Vec::new();
    for &f in on_path.keys() {
        let name = graph.function(f).name.as_str();
        for &(caller, index) in by_name.get(name).into_iter().flatten() {
            let call = &graph.function(caller).calls[index];
            if graph.callees(caller, call).contains(&f) {
                sites.push((f, caller, call.span));
            }
        }
    }
    let mut shared: HashSet<FunctionRef> = HashSet::new();
    let mut changed = true;
    while changed {
        changed = false;
        for &(f, caller, span) in &sites {
            if !shared.contains(&f) && !certain_at(caller, span, on_path, serving_arms, &shared) {
                shared.insert(f);
                changed = true;
            }
        }
    }
    shared
}
