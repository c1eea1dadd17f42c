//! Crate-wide analysis over the per-file facts: which cancel-path origins hold, which functions
//! a call can reach, which functions send (transitively), and so which cancel paths send.

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::facts::{
    CallSite, Callee, CancelOrigin, FileFacts, FunctionFacts, OriginCondition, ReceiverType,
    SinkSite,
};
use super::vocabulary as vocab;
use crate::source::FileId;

/// A function of the crate: its file and its index in that file's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionRef {
    pub file: usize,
    pub function: usize,
}

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
    pub origin: &'a CancelOrigin,
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

/// The crate's files' facts, joined.
pub struct CrateGraph<'a> {
    files: Vec<(FileId, &'a FileFacts)>,
    consts: HashMap<&'a str, Vec<&'a str>>,
    by_name: HashMap<&'a str, Vec<FunctionRef>>,
    /// For each function that sends (not on a cancel path of its own): how.
    next_hop: HashMap<FunctionRef, NextHop>,
    /// (struct, field) to the field's type.
    field_types: HashMap<(String, String), String>,
    /// (implementing type, name) to the methods and associated functions.
    by_type: HashMap<(&'a str, &'a str), Vec<FunctionRef>>,
    /// Name to the free functions.
    free_by_name: HashMap<&'a str, Vec<FunctionRef>>,
    /// (trait, name) to the trait's own functions (default bodies: no implementing type).
    trait_fns: HashMap<(&'a str, &'a str), Vec<FunctionRef>>,
    /// Name to the functions with a receiver, and to those of them without an implementing
    /// type (trait default methods), in `by_name`'s order: what a method call picks from.
    methods_by_name: HashMap<&'a str, Vec<FunctionRef>>,
    defaults_by_name: HashMap<&'a str, Vec<FunctionRef>>,
    /// Functions that return a response message (directly or through the calls they return).
    returns_response: HashSet<FunctionRef>,
    /// The name the unit's library is used by, if known (see [`CrateGraph::named`]).
    crate_name: Option<String>,
    /// What every call and every returned or sent call of the unit may reach, resolved once
    /// when the graph is built: the summaries and the rules ask for the same calls many times.
    resolved: Resolved,
}

/// The unit's calls, resolved: per function (numbered across files), its calls' targets, then
/// its returned calls' (`returns_calls`) and its sinks' `if_returns_response` callees'.
#[derive(Default)]
struct Resolved {
    /// Per file, the number of the file's first function.
    first_function: Vec<usize>,
    /// Per function, where its calls' entries start in `ranges` (one more: the end).
    first_call: Vec<usize>,
    /// Per function, where its returned calls' entries start in `ranges`.
    first_returned: Vec<usize>,
    /// Per call (or returned call), its targets in `targets`.
    ranges: Vec<std::ops::Range<usize>>,
    targets: Vec<FunctionRef>,
    /// Per function and sink (numbered as the calls are), whether the sink is active.
    first_sink: Vec<usize>,
    active: Vec<bool>,
}

/// The index of `item` in `slice`, if it is one of its elements (by address).
fn index_in<T>(slice: &[T], item: &T) -> Option<usize> {
    let size = std::mem::size_of::<T>().max(1);
    let offset = (item as *const T as usize).checked_sub(slice.as_ptr() as usize)?;
    let index = offset / size;
    (offset % size == 0 && index < slice.len() && std::ptr::eq(&slice[index], item))
        .then_some(index)
}

/// A base graph as seen from a graph over more files (see [`CrateGraph::named_over`]).
struct Base<'g, 'a> {
    graph: &'g CrateGraph<'a>,
    /// Per file of the base, its index in the graph.
    to_self: Vec<usize>,
    /// Per file of the graph, its index in the base, if it is one of the base's.
    from_self: Vec<Option<usize>>,
    /// The names of the functions the graph's other files define.
    added: HashSet<&'a str>,
}

impl<'g, 'a> Base<'g, 'a> {
    /// `base` seen from `graph`, if it can serve: the same crate name, each of its files in
    /// the graph, in the same order.
    fn of(base: &'g CrateGraph<'a>, graph: &CrateGraph<'a>) -> Option<Self> {
        if base.crate_name != graph.crate_name {
            return None;
        }
        let index: HashMap<FileId, usize> = graph
            .files
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (*id, i))
            .collect();
        let to_self: Vec<usize> = base
            .files
            .iter()
            .map(|(id, _)| index.get(id).copied())
            .collect::<Option<_>>()?;
        if to_self.windows(2).any(|w| w[0] >= w[1]) {
            return None;
        }
        let mut from_self = vec![None; graph.files.len()];
        for (b, &g) in to_self.iter().enumerate() {
            from_self[g] = Some(b);
        }
        let added = graph
            .files
            .iter()
            .zip(&from_self)
            .filter(|(_, b)| b.is_none())
            .flat_map(|((_, facts), _)| facts.functions.iter().map(|f| f.name.as_str()))
            .collect();
        Some(Base {
            graph: base,
            to_self,
            from_self,
            added,
        })
    }

    /// Whether a call resolves in the graph as in the base: no other file defines a function
    /// of its name, and it is not a call on a field of `self`.
    fn unchanged(&self, callee: &Callee) -> bool {
        let name = match callee {
            Callee::Path(segments) => segments.last().map(String::as_str).unwrap_or(""),
            Callee::Method { receiver, name, .. } => {
                if matches!(receiver, Some(ReceiverType::SelfField(_))) {
                    return false;
                }
                name
            }
        };
        !self.added.contains(name)
    }
}

#[derive(Debug, Clone, Copy)]
enum NextHop {
    Sink(usize),
    Call(usize, FunctionRef),
}

impl<'a> CrateGraph<'a> {
    pub fn new(files: Vec<(FileId, &'a FileFacts)>) -> Self {
        Self::named(files, None)
    }

    /// The graph of a unit whose library is used by `crate_name` (`my_server::run()` from a
    /// binary is `crate::run()`).
    pub fn named(files: Vec<(FileId, &'a FileFacts)>, crate_name: Option<String>) -> Self {
        Self::named_over(files, crate_name, None)
    }

    /// [`CrateGraph::named`], taking from `base` (the graph of a unit whose files are some of
    /// these, in the same order, with the same crate name: a target's library) what these files
    /// cannot change: the targets of a call in one of its files, by a name that none of the
    /// other files defines a function of (a call on a field of `self` is resolved again: the
    /// field's type may come from another file). The same calls resolve the same way, so the
    /// graph is the one `named` builds; only the work is shared.
    pub fn named_over(
        files: Vec<(FileId, &'a FileFacts)>,
        crate_name: Option<String>,
        base: Option<&CrateGraph<'a>>,
    ) -> Self {
        let mut consts: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut by_name: HashMap<&str, Vec<FunctionRef>> = HashMap::new();
        let mut by_type: HashMap<(&str, &str), Vec<FunctionRef>> = HashMap::new();
        let mut free_by_name: HashMap<&str, Vec<FunctionRef>> = HashMap::new();
        let mut methods_by_name: HashMap<&str, Vec<FunctionRef>> = HashMap::new();
        let mut defaults_by_name: HashMap<&str, Vec<FunctionRef>> = HashMap::new();
        let mut trait_fns: HashMap<(&str, &str), Vec<FunctionRef>> = HashMap::new();
        for (index, (_, facts)) in files.iter().enumerate() {
            for (name, value) in &facts.string_consts {
                consts
                    .entry(name.as_str())
                    .or_default()
                    .push(value.as_str());
            }
            for (function, f) in facts.functions.iter().enumerate() {
                let r = FunctionRef {
                    file: index,
                    function,
                };
                by_name.entry(f.name.as_str()).or_default().push(r);
                if f.has_receiver {
                    methods_by_name.entry(f.name.as_str()).or_default().push(r);
                    if f.self_ty.is_none() {
                        defaults_by_name.entry(f.name.as_str()).or_default().push(r);
                    }
                }
                match (&f.self_ty, &f.trait_name) {
                    (Some(ty), _) => by_type
                        .entry((ty.as_str(), f.name.as_str()))
                        .or_default()
                        .push(r),
                    (None, None) => free_by_name.entry(f.name.as_str()).or_default().push(r),
                    (None, Some(name)) => trait_fns
                        .entry((name.as_str(), f.name.as_str()))
                        .or_default()
                        .push(r),
                }
            }
        }
        let mut field_types = HashMap::new();
        for (_, facts) in &files {
            for (owner, field, ty) in &facts.struct_fields {
                field_types.insert((owner.clone(), field.clone()), ty.clone());
            }
        }
        let mut graph = CrateGraph {
            files,
            consts,
            by_name,
            next_hop: HashMap::new(),
            field_types,
            by_type,
            free_by_name,
            trait_fns,
            methods_by_name,
            defaults_by_name,
            returns_response: HashSet::new(),
            crate_name,
            resolved: Resolved::default(),
        };
        let base = base.and_then(|base| Base::of(base, &graph));
        graph.resolve_all(base.as_ref());
        graph.compute_returns_response();
        graph.compute_active_sinks();
        graph.compute_summaries();
        graph
    }

    /// The crate's files and their facts.
    pub fn files(&self) -> &[(FileId, &'a FileFacts)] {
        &self.files
    }

    /// A function's facts.
    pub fn function(&self, r: FunctionRef) -> &'a FunctionFacts {
        &self.files[r.file].1.functions[r.function]
    }

    /// The file a function lies in.
    pub fn file_id(&self, r: FunctionRef) -> FileId {
        self.files[r.file].0
    }

    fn origin_holds(&self, origin: &CancelOrigin) -> bool {
        match &origin.condition {
            OriginCondition::Always => true,
            OriginCondition::ConstNamed(name) => match self.consts.get(name.as_str()) {
                Some(values) => values.contains(&vocab::CANCELLED_METHOD),
                None => vocab::is_cancel_const_name(name),
            },
        }
    }

    /// The innermost cancel path that holds, of those a site lies on.
    pub fn effective_origin(&self, file: usize, origins: &[usize]) -> Option<&'a CancelOrigin> {
        let facts = self.files[file].1;
        origins
            .iter()
            .rev()
            .filter_map(|&id| facts.origins.get(id))
            .find(|origin| self.origin_holds(origin))
    }

    /// The crate functions a call of `caller` may reach.
    pub fn callees(&self, caller: FunctionRef, call: &CallSite) -> Vec<FunctionRef> {
        self.call_targets(caller, call).to_vec()
    }

    /// The number of a function across the unit's files.
    fn number(&self, f: FunctionRef) -> usize {
        self.resolved
            .first_function
            .get(f.file)
            .copied()
            .unwrap_or(0)
            + f.function
    }

    /// What a call of `caller` may reach: resolved when the graph was built if the call is one
    /// of the caller's own (as the rules' calls are), else now.
    fn call_targets(
        &self,
        caller: FunctionRef,
        call: &CallSite,
    ) -> std::borrow::Cow<'_, [FunctionRef]> {
        let facts = self.function(caller);
        match index_in(&facts.calls, call) {
            Some(index) => {
                let n = self.number(caller);
                let range = self.resolved.ranges[self.resolved.first_call[n] + index].clone();
                std::borrow::Cow::Borrowed(&self.resolved.targets[range])
            }
            None => std::borrow::Cow::Owned(self.resolve(caller, &call.callee)),
        }
    }

    /// What the `index`th returned call of `f` may reach.
    fn returned_targets(&self, f: FunctionRef, index: usize) -> &[FunctionRef] {
        let n = self.number(f);
        let range = self.resolved.ranges[self.resolved.first_returned[n] + index].clone();
        &self.resolved.targets[range]
    }

    /// Resolve every call and every returned call of the unit, once (taking from `base` what
    /// it already resolved, where that cannot differ).
    fn resolve_all(&mut self, base: Option<&Base<'_, 'a>>) {
        let mut resolved = Resolved::default();
        let mut count = 0;
        for (_, facts) in &self.files {
            resolved.first_function.push(count);
            count += facts.functions.len();
        }
        let functions: Vec<FunctionRef> = self.all_functions().collect();
        for &f in &functions {
            let facts = self.function(f);
            // The same function in the base graph, if its file is one of the base's.
            let in_base = base.and_then(|b| {
                let file = *b.from_self.get(f.file)?;
                file.map(|file| {
                    let g = FunctionRef {
                        file,
                        function: f.function,
                    };
                    (b, b.graph.number(g))
                })
            });
            let add = |resolved: &mut Resolved, index: usize, callee: &Callee, returned| {
                let start = resolved.targets.len();
                match in_base.filter(|(b, _)| b.unchanged(callee)) {
                    Some((b, n)) => {
                        let first = if returned {
                            b.graph.resolved.first_returned[n]
                        } else {
                            b.graph.resolved.first_call[n]
                        };
                        let range = b.graph.resolved.ranges[first + index].clone();
                        resolved
                            .targets
                            .extend(b.graph.resolved.targets[range].iter().map(|t| FunctionRef {
                                file: b.to_self[t.file],
                                function: t.function,
                            }));
                    }
                    None => resolved.targets.extend(self.resolve(f, callee)),
                }
                resolved.ranges.push(start..resolved.targets.len());
            };
            resolved.first_call.push(resolved.ranges.len());
            for (index, call) in facts.calls.iter().enumerate() {
                add(&mut resolved, index, &call.callee, false);
            }
            resolved.first_returned.push(resolved.ranges.len());
            for (index, callee) in facts.returns_calls.iter().enumerate() {
                add(&mut resolved, index, callee, true);
            }
        }
        resolved.first_call.push(resolved.ranges.len());
        resolved.first_returned.push(resolved.ranges.len());
        self.resolved = resolved;
    }

    /// Whether each sink of the unit is active (see [`CrateGraph::sink_active`]), once.
    fn compute_active_sinks(&mut self) {
        let functions: Vec<FunctionRef> = self.all_functions().collect();
        let mut first_sink = Vec::with_capacity(functions.len() + 1);
        let mut active = Vec::new();
        for &f in &functions {
            first_sink.push(active.len());
            for sink in &self.function(f).sinks {
                active.push(self.compute_sink_active(f, sink));
            }
        }
        first_sink.push(active.len());
        self.resolved.first_sink = first_sink;
        self.resolved.active = active;
    }

    /// The crate functions a call of `callee` from `caller` may reach.
    fn resolve(&self, caller: FunctionRef, callee: &Callee) -> Vec<FunctionRef> {
        let name = match callee {
            Callee::Path(segments) => segments.last().map(String::as_str).unwrap_or(""),
            Callee::Method { name, .. } => name,
        };
        if !self.by_name.contains_key(name) {
            return Vec::new();
        }
        match callee {
            Callee::Path(segments) => self.resolve_path(caller, name, segments),
            Callee::Method {
                name,
                on_self,
                receiver,
            } => self.resolve_method(caller, name, *on_self, receiver.as_ref()),
        }
    }

    /// The candidates that `keep` accepts.
    fn pick(
        &self,
        candidates: &[FunctionRef],
        keep: &dyn Fn(&FunctionFacts) -> bool,
    ) -> Vec<FunctionRef> {
        candidates
            .iter()
            .copied()
            .filter(|&c| keep(self.function(c)))
            .collect()
    }

    /// The crate functions a call by path (`f()`, `Type::f()`, `module::f()`) may reach.
    fn resolve_path(
        &self,
        caller: FunctionRef,
        name: &str,
        segments: &[String],
    ) -> Vec<FunctionRef> {
        let caller_facts = self.function(caller);
        let trait_fns = |trait_name: &str| {
            self.trait_fns
                .get(&(trait_name, name))
                .cloned()
                .unwrap_or_default()
        };
        if segments.len() >= 2 {
            let qualifier = &segments[segments.len() - 2];
            let is_type = qualifier == "Self"
                || qualifier
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_uppercase());
            if is_type {
                let ty = if qualifier == "Self" {
                    caller_facts.self_ty.as_deref()
                } else {
                    Some(qualifier.as_str())
                };
                let mut found: Vec<FunctionRef> = ty
                    .and_then(|ty| self.by_type.get(&(ty, name)))
                    .cloned()
                    .unwrap_or_default();
                if qualifier == "Self" {
                    if let Some(trait_name) = caller_facts.trait_name.as_deref() {
                        found.extend(trait_fns(trait_name));
                    }
                }
                if !found.is_empty() || qualifier == "Self" {
                    return found;
                }
                // A crate trait's default body, called through the trait's name
                // (`Default::default()` and other foreign traits resolve to nothing).
                return trait_fns(qualifier);
            }
            let modules = &segments[..segments.len() - 1];
            // Only free functions: the candidates are the free functions of that name.
            let free = self
                .free_by_name
                .get(name)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            let pick = |keep: &dyn Fn(&FunctionFacts) -> bool| self.pick(free, keep);
            match self.anchored(caller_facts, modules) {
                // `crate::a::f()`, `self::f()`, `super::a::f()`, `my_crate::a::f()`: the module
                // the path names; a function re-exported there (`pub use`) is found by its
                // last module, as a relative path is.
                Some(module) => {
                    let exact = pick(&|f| f.module == module);
                    if !exact.is_empty() {
                        return exact;
                    }
                    if !module.is_empty() {
                        return pick(&|f| f.module.last() == module.last());
                    }
                    // At the crate's root: re-exported from a module, found by name below.
                }
                // `a::b::f()`: a module of this crate whose path ends so, or else another
                // crate's path.
                None => {
                    return pick(&|f| f.module.ends_with(modules));
                }
            }
        }
        let free = self.free_by_name.get(name).cloned().unwrap_or_default();
        let same_module: Vec<FunctionRef> = free
            .iter()
            .copied()
            .filter(|&c| self.function(c).module == caller_facts.module)
            .collect();
        if same_module.is_empty() {
            free
        } else {
            same_module
        }
    }

    /// The module a path's modules name from an anchor (`crate`, `self`, `super`, the crate's
    /// own name), relative to the caller's module; None for a path without one.
    fn anchored(&self, caller: &FunctionFacts, modules: &[String]) -> Option<Vec<String>> {
        let (first, rest) = modules.split_first()?;
        let mut module = match first.as_str() {
            "crate" => Vec::new(),
            "self" => caller.module.clone(),
            "super" => {
                let mut parent = caller.module.clone();
                parent.pop();
                parent
            }
            name if self.crate_name.as_deref() == Some(name) => Vec::new(),
            _ => return None,
        };
        for segment in rest {
            if segment == "super" {
                module.pop();
            } else {
                module.push(segment.clone());
            }
        }
        Some(module)
    }

    /// The methods (functions with a receiver) named `name` of the crate's type `ty`.
    fn methods_of(&self, ty: &str, name: &str) -> Vec<FunctionRef> {
        self.by_type
            .get(&(ty, name))
            .map(|refs| {
                refs.iter()
                    .copied()
                    .filter(|&r| self.function(r).has_receiver)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The crate methods a method call (`x.f()`, `self.f()`, `self.field.f()`) may reach.
    fn resolve_method(
        &self,
        caller: FunctionRef,
        name: &str,
        on_self: bool,
        receiver: Option<&ReceiverType>,
    ) -> Vec<FunctionRef> {
        let caller_facts = self.function(caller);
        let evident = match receiver {
            Some(ReceiverType::Named(ty)) => Some(ty.clone()),
            Some(ReceiverType::SelfField(field)) => caller_facts
                .self_ty
                .as_ref()
                .and_then(|owner| self.field_types.get(&(owner.clone(), field.clone())))
                .cloned(),
            None => None,
        };
        if let Some(ty) = evident {
            // The receiver's type is known: its methods, or nothing (a foreign type).
            return self.methods_of(&ty, name);
        }
        if matches!(receiver, Some(ReceiverType::SelfField(_))) {
            // A field whose type is not a struct of this crate (or is unknown).
            return Vec::new();
        }
        if on_self {
            let own = caller_facts
                .self_ty
                .as_deref()
                .map(|ty| self.methods_of(ty, name))
                .unwrap_or_default();
            if !own.is_empty() {
                return own;
            }
            // Trait default methods and methods of the trait being implemented.
            let defaults = self.defaults_by_name.get(name).cloned().unwrap_or_default();
            if !defaults.is_empty() {
                return defaults;
            }
        }
        if vocab::COMMON_METHODS.contains(&name) {
            return Vec::new();
        }
        // The crate's only method of that name, if it has just one.
        match self.methods_by_name.get(name).map(Vec::as_slice) {
            Some([only]) => vec![*only],
            _ => Vec::new(),
        }
    }

    /// Which functions return a response message: those that build one in their tail or a
    /// `return`, and, to a fixed point, those that return what such a function returns.
    fn compute_returns_response(&mut self) {
        let functions: Vec<FunctionRef> = self.all_functions().collect();
        let mut set: HashSet<FunctionRef> = functions
            .iter()
            .copied()
            .filter(|&f| self.function(f).returns_response)
            .collect();
        loop {
            let before = set.len();
            for &f in &functions {
                if set.contains(&f) {
                    continue;
                }
                let returns_one = (0..self.function(f).returns_calls.len()).any(|index| {
                    self.returned_targets(f, index)
                        .iter()
                        .any(|g| set.contains(g))
                });
                if returns_one {
                    set.insert(f);
                }
            }
            if set.len() == before {
                break;
            }
        }
        self.returns_response = set;
    }

    /// Whether a recorded send is a send: unconditional ones are; a send of a call's value is
    /// one when the call returns a response.
    pub fn sink_active(&self, f: FunctionRef, sink: &SinkSite) -> bool {
        let sinks = &self.function(f).sinks;
        match index_in(sinks, sink) {
            Some(index) if !self.resolved.first_sink.is_empty() => {
                self.resolved.active[self.resolved.first_sink[self.number(f)] + index]
            }
            _ => self.compute_sink_active(f, sink),
        }
    }

    fn compute_sink_active(&self, f: FunctionRef, sink: &SinkSite) -> bool {
        sink.if_returns_response.is_empty()
            || sink.if_returns_response.iter().any(|callee| {
                self.resolve(f, callee)
                    .iter()
                    .any(|g| self.returns_response.contains(g))
            })
    }

    /// Every function of the unit.
    pub fn all_functions(&self) -> impl Iterator<Item = FunctionRef> + '_ {
        self.files
            .iter()
            .enumerate()
            .flat_map(|(file, (_, facts))| {
                (0..facts.functions.len()).map(move |function| FunctionRef { file, function })
            })
    }

    /// Which functions send, and through what: a backward breadth-first search from the
    /// functions that send directly (off any cancel path of their own), over the call edges that
    /// are not on a cancel path either. Recursion needs no special care: each function is
    /// visited once.
    fn compute_summaries(&mut self) {
        let mut callers: HashMap<FunctionRef, Vec<(FunctionRef, usize)>> = HashMap::new();
        let mut queue = VecDeque::new();
        let functions: Vec<FunctionRef> = self.all_functions().collect();
        for &f in &functions {
            let facts = self.function(f);
            if let Some(index) = facts.sinks.iter().position(|s| {
                self.effective_origin(f.file, &s.origins).is_none() && self.sink_active(f, s)
            }) {
                self.next_hop.insert(f, NextHop::Sink(index));
                queue.push_back(f);
            }
            for (index, call) in facts.calls.iter().enumerate() {
                if self.effective_origin(f.file, &call.origins).is_some() {
                    continue;
                }
                for &callee in self.call_targets(f, call).iter() {
                    callers.entry(callee).or_default().push((f, index));
                }
            }
        }
        while let Some(callee) = queue.pop_front() {
            for &(caller, call) in callers.get(&callee).map(Vec::as_slice).unwrap_or(&[]) {
                if let std::collections::hash_map::Entry::Vacant(entry) =
                    self.next_hop.entry(caller)
                {
                    entry.insert(NextHop::Call(call, callee));
                    queue.push_back(caller);
                }
            }
        }
    }

    /// The chain of calls from `start` down to a send, if `start` sends.
    fn chain_from(&self, start: FunctionRef) -> Option<Vec<Hop<'a>>> {
        let mut chain = Vec::new();
        let mut current = start;
        for _ in 0..=self.next_hop.len() {
            let facts = self.function(current);
            match self.next_hop.get(&current)? {
                NextHop::Sink(index) => {
                    chain.push(Hop::Send {
                        file: self.file_id(current),
                        function: facts,
                        sink: &facts.sinks[*index],
                    });
                    return Some(chain);
                }
                NextHop::Call(call, callee) => {
                    chain.push(Hop::Call {
                        file: self.file_id(current),
                        caller: facts,
                        call: &facts.calls[*call],
                        callee: self.function(*callee),
                    });
                    current = *callee;
                }
            }
        }
        None
    }

    /// Every send on a cancel path: direct ones, and calls on a cancel path into functions that
    /// send. A call into a cancel hook is not followed: the hook's sends are reported inside it.
    pub fn cancel_sends(&self) -> Vec<CancelSend<'a>> {
        let mut found = Vec::new();
        for f in self.all_functions() {
            let facts = self.function(f);
            let file = self.file_id(f);
            for sink in &facts.sinks {
                if !self.sink_active(f, sink) {
                    continue;
                }
                if let Some(origin) = self.effective_origin(f.file, &sink.origins) {
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
                let mut callees = self.call_targets(f, call).into_owned();
                callees.sort();
                let chain = callees
                    .into_iter()
                    .filter(|&c| self.function(c).hook.is_none())
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

#[cfg(test)]
mod tests {
    use super::{CrateGraph, FunctionRef};
    use crate::analysis::facts::FileFacts;
    use crate::source::FileId;

    fn facts(text: &str, module: &[&str]) -> FileFacts {
        let vocabulary = crate::analysis::vocabulary::Vocabulary::default();
        crate::analysis::analyse_text(
            text,
            module.iter().map(|m| m.to_string()).collect(),
            &vocabulary,
            &[],
        )
        .expect("parses")
    }

    /// A call's caller, its position, and its targets (file and name).
    type Targets = (String, usize, Vec<(FileId, String)>);

    /// Every call's targets.
    fn all_targets(graph: &CrateGraph<'_>) -> Vec<Targets> {
        let mut all = Vec::new();
        for f in graph.all_functions() {
            let caller = graph.function(f);
            for (index, call) in caller.calls.iter().enumerate() {
                let mut targets: Vec<(FileId, String)> = graph
                    .callees(f, call)
                    .iter()
                    .map(|&g: &FunctionRef| (graph.file_id(g), graph.function(g).name.clone()))
                    .collect();
                targets.sort();
                all.push((caller.name.clone(), index, targets));
            }
        }
        all
    }

    /// A target's graph built over its library's gives the graph built from scratch, also where
    /// the target defines a function of a name the library calls.
    #[test]
    fn a_graph_over_its_librarys_is_the_graph_built_anew() {
        let lib = facts(
            "pub fn helper() {}\n\
             pub fn run(s: Sender) { helper(); s.flush(); self::helper(); Worker::start(); }\n\
             struct Worker;\n\
             impl Worker { fn start() { helper(); } fn flush(&self) {} }\n",
            &[],
        );
        let main = facts(
            "fn helper() {}\nfn flush(&self) {}\nfn main() { my_crate::run(); helper(); }\n",
            &[],
        );
        let crate_name = || Some("my_crate".to_string());
        let base = CrateGraph::named(vec![(1, &lib)], crate_name());
        let files = || vec![(0, &main), (1, &lib)];
        let anew = CrateGraph::named(files(), crate_name());
        let over = CrateGraph::named_over(files(), crate_name(), Some(&base));
        let targets = all_targets(&anew);
        assert_eq!(all_targets(&over), targets);
        // The library's `helper()` reaches the target's `helper` too: not taken from the base.
        assert!(targets
            .iter()
            .any(|(caller, _, to)| caller == "run" && to.contains(&(0, "helper".to_string()))));
        // A base whose crate name differs is not used, and the graph is still right.
        let other = CrateGraph::named(vec![(1, &lib)], None);
        let unrelated = CrateGraph::named_over(files(), crate_name(), Some(&other));
        assert_eq!(all_targets(&unrelated), targets);
    }
}
