//! Crate-wide analysis over the per-file facts: which functions a call can reach, which return a
//! response message (transitively), which recorded sends are sends; and a place where rule
//! families keep what they work out over the graph ([`Summaries`]).

use foldhash::{HashMap, HashSet};

use super::facts::{
    CallSite, Callee, FileFacts, FunctionFacts, OriginCondition, ReceiverType, SinkSite,
};
use super::vocabulary as vocab;
use crate::source::FileId;

/// A function of the crate: its file and its index in that file's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FunctionRef {
    pub file: usize,
    pub function: usize,
}

/// The crate's files' facts, joined.
///
/// A target's graph may extend its library's (see [`CrateGraph::named_over`]): the target's own
/// files come first, the library's follow in the library graph's order, and nothing the target
/// defines changes what a call of the library reaches (see [`Reads`]). The graph then indexes,
/// resolves and summarises only its own files and asks the library's graph about the rest (a
/// library function's calls, returned responses, sends and nearest send are the library
/// graph's, its functions' files moved past the target's own).
pub struct CrateGraph<'a> {
    files: Vec<(FileId, &'a FileFacts)>,
    /// The library graph this one extends, if it does.
    layer: Option<Layer<'a>>,
    /// Where the library's files start, when the graph is a target's over its library's: a
    /// library does not see its targets' items, so a call by path in one of its files never
    /// reaches a function of the target's own files.
    library_from: Option<usize>,
    /// The own files' functions, fields and constants by name (all files' when the graph
    /// extends none).
    index: Index<'a>,
    /// The name the unit's library is used by, if known (see [`CrateGraph::named`]).
    crate_name: Option<String>,
    /// What every call and every returned or sent call of the own functions may reach, resolved
    /// once when the graph is built: the summaries and the rules ask for the same calls many
    /// times.
    resolved: Resolved,
    /// Per own function (by number): whether it returns a response message (directly or
    /// through the calls it returns).
    returns_response: Vec<bool>,
    /// Per own function (by number): the parameters it writes to the wire, itself or through
    /// the functions it hands them to (see [`CrateGraph::writes_params`]).
    writes_params: Vec<u64>,
    /// What rule families work out over the graph, once (see [`Summaries`]).
    summaries: Summaries,
    /// What the graph's calls read of the indexes, once it may serve as a library graph (see
    /// [`CrateGraph::as_base`]).
    reads: Option<Reads<'a>>,
}

/// The library graph a target's graph extends.
struct Layer<'a> {
    graph: &'a CrateGraph<'a>,
    /// How many files the target adds (they come before the library's).
    files: usize,
}

impl<'a> Layer<'a> {
    /// `base` as the library of a graph over `files` whose first `own` files are the target's
    /// own (the others the base's, in its order, with its crate name), if it can serve: it
    /// records its reads (only a graph that extends none does), and the own files add nothing
    /// its calls read.
    fn of(base: &'a CrateGraph<'a>, own: usize, files: &[(FileId, &'a FileFacts)]) -> Option<Self> {
        base.reads
            .as_ref()?
            .unchanged_by(base, &files[..own])
            .then_some(Layer {
                graph: base,
                files: own,
            })
    }
}

/// Functions, fields and constants by name.
#[derive(Default)]
struct Index<'a> {
    consts: HashMap<&'a str, Vec<&'a str>>,
    /// The names of the functions.
    names: HashSet<&'a str>,
    /// (implementing type, name) to the methods and associated functions.
    by_type: HashMap<(&'a str, &'a str), Vec<FunctionRef>>,
    /// Name to the free functions.
    free_by_name: HashMap<&'a str, Vec<FunctionRef>>,
    /// (trait, name) to the trait's own functions (default bodies: no implementing type).
    trait_fns: HashMap<(&'a str, &'a str), Vec<FunctionRef>>,
    /// Name to the functions with a receiver, and to those of them without an implementing
    /// type (trait default methods), in the files' order: what a method call picks from.
    methods_by_name: HashMap<&'a str, Vec<FunctionRef>>,
    defaults_by_name: HashMap<&'a str, Vec<FunctionRef>>,
    /// (struct, field) to the field's type (a later file's wins).
    field_types: HashMap<(&'a str, &'a str), &'a str>,
    /// The traits the files define.
    traits: HashSet<&'a str>,
    /// The types the files implement functions for or declare fields of: the crate's own.
    types: HashSet<&'a str>,
}

impl<'a> Index<'a> {
    fn of(files: &[(FileId, &'a FileFacts)]) -> Self {
        let mut index = Index::default();
        for (file, (_, facts)) in files.iter().enumerate() {
            for (name, value) in &facts.string_consts {
                index
                    .consts
                    .entry(name.as_str())
                    .or_default()
                    .push(value.as_str());
            }
            for (function, f) in facts.functions.iter().enumerate() {
                let r = FunctionRef { file, function };
                let name = f.name.as_str();
                index.names.insert(name);
                if f.has_receiver {
                    index.methods_by_name.entry(name).or_default().push(r);
                    if f.self_ty.is_none() {
                        index.defaults_by_name.entry(name).or_default().push(r);
                    }
                }
                match (&f.self_ty, &f.trait_name) {
                    (Some(ty), _) => {
                        index.types.insert(ty.as_str());
                        index
                            .by_type
                            .entry((ty.as_str(), name))
                            .or_default()
                            .push(r)
                    }
                    (None, None) => index.free_by_name.entry(name).or_default().push(r),
                    (None, Some(t)) => index
                        .trait_fns
                        .entry((t.as_str(), name))
                        .or_default()
                        .push(r),
                }
            }
            for (owner, field, ty) in &facts.struct_fields {
                index.types.insert(owner.as_str());
                index
                    .field_types
                    .insert((owner.as_str(), field.as_str()), ty.as_str());
            }
            for (owner, field, ty) in &facts.optional_fields {
                index.types.insert(owner.as_str());
                index
                    .field_types
                    .insert((owner.as_str(), field.as_str()), ty.as_str());
            }
            index.traits.extend(facts.traits.iter().map(String::as_str));
        }
        index
    }
}

/// Whether a path's qualifier names a type (`Self`, `Worker`), not a module.
fn is_type_name(qualifier: &str) -> bool {
    qualifier == "Self"
        || qualifier
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_uppercase())
}

/// What a library graph's method calls (also returned or sent ones) read of its indexes: the
/// keys under which such a call finds its targets, and the constants its cancel paths name. A
/// target's files that put no method, field or constant under one of these keys leave every
/// call of the library resolving, and every cancel path of it holding, as in the library's own
/// graph (its calls by path never reach a target's functions: see
/// [`CrateGraph::named_over`]), and none of its calls reaches one of their functions.
#[derive(Default)]
struct Reads<'a> {
    /// (type, name): `x.f()` with `x`'s type known, `self.f()`, `self.field.f()`.
    typed: HashSet<(&'a str, &'a str)>,
    /// Methods by name alone: `x.f()` with `x`'s type unknown, `self.f()`, where the graph
    /// holds at most one method of the name (with two or more, another changes nothing: the
    /// call reaches none of them).
    methods: HashSet<&'a str>,
    /// Trait default methods by name: `self.f()`.
    defaults: HashSet<&'a str>,
    /// (struct, field): `self.field.f()`.
    fields: HashSet<(&'a str, &'a str)>,
    /// The constants cancel paths are conditioned on.
    consts: HashSet<&'a str>,
}

impl<'a> Reads<'a> {
    fn of(graph: &CrateGraph<'a>) -> Self {
        let mut reads = Reads::default();
        for (_, facts) in &graph.files {
            for origin in &facts.origins {
                if let OriginCondition::ConstNamed(name) = &origin.condition {
                    reads.consts.insert(name.as_str());
                }
            }
            for f in &facts.functions {
                let sent = f.sinks.iter().flat_map(|s| {
                    s.if_returns_response
                        .iter()
                        .chain(s.through.as_ref().map(|(callee, _)| callee))
                });
                for callee in f.calls.iter().map(|c| &c.callee).chain(&f.returns_calls) {
                    reads.add(graph, f, callee);
                }
                for callee in sent {
                    reads.add(graph, f, callee);
                }
            }
        }
        reads
    }

    /// The keys `callee`, called from `caller`, is resolved by (see [`CrateGraph::resolve`]).
    fn add(&mut self, graph: &CrateGraph<'a>, caller: &'a FunctionFacts, callee: &'a Callee) {
        match callee {
            Callee::Path(_) => {}
            Callee::Method {
                name,
                on_self,
                receiver,
            } => match receiver {
                Some(ReceiverType::Named(ty)) => self.add_typed(ty, name),
                // What the inner call reaches decides the type: its keys are read, and a
                // method of this name anywhere may be the one reached.
                Some(ReceiverType::Returned(inner)) => {
                    self.add(graph, caller, inner);
                    self.methods.insert(name);
                }
                Some(ReceiverType::SelfField(field)) => {
                    if let Some(owner) = &caller.self_ty {
                        self.fields.insert((owner, field));
                        if let Some(ty) = graph.field_type(owner, field) {
                            self.add_typed(ty, name);
                        }
                    }
                }
                // The field's type decides, and the base's: a method of this name anywhere
                // may be the one reached.
                Some(ReceiverType::FieldOf(base, field)) => {
                    if let ReceiverType::Named(owner) = &**base {
                        self.fields.insert((owner, field));
                    }
                    self.methods.insert(name);
                }
                None => {
                    if *on_self {
                        if let Some(ty) = &caller.self_ty {
                            self.typed.insert((ty, name));
                        }
                        self.defaults.insert(name);
                    }
                    let unique = || {
                        graph
                            .index
                            .methods_by_name
                            .get(name.as_str())
                            .is_none_or(|methods| methods.len() < 2)
                    };
                    if !vocab::COMMON_METHODS.contains(&name.as_str()) && unique() {
                        self.methods.insert(name);
                    }
                }
            },
        }
    }

    /// A call of the method `name` on a value of type `ty`: on a trait object it reaches
    /// every implementation, so any method of that name a target adds may change it.
    fn add_typed(&mut self, ty: &'a str, name: &'a str) {
        if ty.starts_with(super::syntax::TRAIT_OBJECT) {
            self.methods.insert(name);
        } else {
            self.typed.insert((ty, name));
        }
    }

    /// Whether `files`, put before `graph`'s, add nothing under a key its calls read: no
    /// method, no field a `self.field` call reads that `graph` does not type itself, no
    /// constant a cancel path names.
    fn unchanged_by(&self, graph: &CrateGraph<'a>, files: &[(FileId, &FileFacts)]) -> bool {
        files.iter().all(|(_, facts)| {
            let functions = facts.functions.iter().all(|f| {
                let name = f.name.as_str();
                let typed = f
                    .self_ty
                    .as_ref()
                    .is_some_and(|ty| self.typed.contains(&(ty.as_str(), name)));
                let default = f.self_ty.is_none() && self.defaults.contains(name);
                !(f.has_receiver && (typed || self.methods.contains(name) || default))
            });
            let fields = facts.struct_fields.iter().all(|(owner, field, _)| {
                !self.fields.contains(&(owner.as_str(), field.as_str()))
                    || graph.field_type(owner, field).is_some()
            });
            let consts = facts
                .string_consts
                .iter()
                .all(|(name, _)| !self.consts.contains(name.as_str()));
            functions && fields && consts
        })
    }
}

/// The own functions' calls, resolved: per function (numbered across the own files), its
/// calls' targets, then its returned calls' (`returns_calls`), and whether each of its sinks is
/// active.
#[derive(Default)]
struct Resolved {
    /// Per own file, the number of the file's first function.
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

/// A base graph as seen from a graph over more files that does not extend it (see
/// [`CrateGraph::named_over`]): the calls that cannot resolve differently are copied from it.
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
    /// the graph, in the same order, and it extends no graph itself.
    fn of(base: &'g CrateGraph<'a>, graph: &CrateGraph<'a>) -> Option<Self> {
        if base.crate_name != graph.crate_name || base.layer.is_some() {
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
                match receiver {
                    Some(ReceiverType::SelfField(_) | ReceiverType::FieldOf(..)) => return false,
                    Some(ReceiverType::Returned(inner)) if !self.unchanged(inner) => return false,
                    _ => {}
                }
                name
            }
        };
        !self.added.contains(name)
    }
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

    /// The graph of a target whose library's graph is `base` (a unit whose files are some of
    /// these, in the same order, with the same crate name). When the base's files are the last
    /// of `files`, they are the library's: a library does not see its targets' items, so a
    /// call by path in one of them reaches only the library's functions (a method call may
    /// still reach a target's: a library trait's method, implemented there). If moreover the
    /// target's files add nothing the library's method calls read (see [`Reads`]; the base
    /// must be [`CrateGraph::as_base`]), the graph extends the base: it works out only its own
    /// files and asks the base about the rest. Otherwise it copies from the base the targets of
    /// each call in one of its files by a name that none of the other files defines a function
    /// of (a call on a field of `self` is resolved again: the field's type may come from
    /// another file). Either way the answers are the same; only the work differs.
    pub fn named_over(
        files: Vec<(FileId, &'a FileFacts)>,
        crate_name: Option<String>,
        base: Option<&'a CrateGraph<'a>>,
    ) -> Self {
        // The base's files are the last of `files`, in its order: the target's library.
        let library_from = base.and_then(|base| {
            if base.crate_name != crate_name {
                return None;
            }
            let own = files.len().checked_sub(base.files.len())?;
            files[own..]
                .iter()
                .zip(&base.files)
                .all(|(a, b)| a.0 == b.0 && std::ptr::eq(a.1, b.1))
                .then_some(own)
        });
        let layer = base
            .zip(library_from)
            .and_then(|(base, own)| Layer::of(base, own, &files));
        let own = layer.as_ref().map_or(files.len(), |layer| layer.files);
        let index = Index::of(&files[..own]);
        let mut graph = CrateGraph {
            files,
            layer,
            library_from,
            index,
            crate_name,
            resolved: Resolved::default(),
            returns_response: Vec::new(),
            writes_params: Vec::new(),
            summaries: Summaries::default(),
            reads: None,
        };
        let copy = match graph.layer {
            Some(_) => None,
            None => base.and_then(|base| Base::of(base, &graph)),
        };
        graph.resolve_all(copy.as_ref());
        graph.compute_returns_response();
        graph.compute_writes_params();
        graph.compute_active_sinks();
        graph
    }

    /// The graph, ready to be extended by the graphs of its targets (see
    /// [`CrateGraph::named_over`]): it records what its calls read.
    pub fn as_base(mut self) -> Self {
        if self.layer.is_none() {
            self.reads = Some(Reads::of(&self));
        }
        self
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

    /// How many files the graph works out itself (all but its library's, if it extends one).
    fn own_files(&self) -> usize {
        self.layer
            .as_ref()
            .map_or(self.files.len(), |layer| layer.files)
    }

    /// The files of the unit itself: for a target over its library, the target's files, not
    /// the library's (which follow them).
    pub fn unit_files(&self) -> &[(FileId, &'a FileFacts)] {
        let end = self.library_from.unwrap_or(self.files.len());
        self.files.get(..end).unwrap_or(&self.files)
    }

    /// The functions of the graph's own files.
    pub fn own_functions(&self) -> impl Iterator<Item = FunctionRef> + '_ {
        self.all_functions()
            .take_while(|f| f.file < self.own_files())
    }

    /// `f` as the library graph numbers it, if `f` is one of the library's.
    pub fn in_base(&self, f: FunctionRef) -> Option<(&'a CrateGraph<'a>, FunctionRef)> {
        let layer = self.layer.as_ref()?;
        let file = f.file.checked_sub(layer.files)?;
        Some((
            layer.graph,
            FunctionRef {
                file,
                function: f.function,
            },
        ))
    }

    /// A function of the library graph as this graph numbers it.
    pub fn lift(&self, r: FunctionRef) -> FunctionRef {
        FunctionRef {
            file: r.file + self.layer.as_ref().map_or(0, |layer| layer.files),
            function: r.function,
        }
    }

    /// The functions an index holds under a key: the own files' first, then the library's.
    fn lookup(
        &self,
        get: &dyn for<'i> Fn(&'i Index<'a>) -> Option<&'i Vec<FunctionRef>>,
    ) -> Vec<FunctionRef> {
        let mut found = get(&self.index).cloned().unwrap_or_default();
        if let Some(layer) = &self.layer {
            found.extend(layer.graph.lookup(get).into_iter().map(|r| self.lift(r)));
        }
        found
    }

    /// [`CrateGraph::lookup`] for a call by path of `caller`: a library's call reaches only the
    /// library's functions.
    fn lookup_from(
        &self,
        caller: FunctionRef,
        get: &dyn for<'i> Fn(&'i Index<'a>) -> Option<&'i Vec<FunctionRef>>,
    ) -> Vec<FunctionRef> {
        let mut found = self.lookup(get);
        if let Some(from) = self.library_from.filter(|&from| caller.file >= from) {
            found.retain(|r| r.file >= from);
        }
        found
    }

    /// Whether a function of the crate has this name.
    fn has_name(&self, name: &str) -> bool {
        self.index.names.contains(name)
            || self
                .layer
                .as_ref()
                .is_some_and(|layer| layer.graph.has_name(name))
    }

    /// Whether the crate defines a trait of this name.
    fn defines_trait(&self, name: &str) -> bool {
        self.index.traits.contains(name)
            || self
                .layer
                .as_ref()
                .is_some_and(|layer| layer.graph.defines_trait(name))
    }

    /// Whether the crate implements functions for a type or declares its fields.
    fn defines_type(&self, name: &str) -> bool {
        self.index.types.contains(name)
            || self
                .layer
                .as_ref()
                .is_some_and(|layer| layer.graph.defines_type(name))
    }

    /// A struct field's type, if the crate declares the struct (a later file's wins).
    fn field_type(&self, owner: &str, field: &str) -> Option<&'a str> {
        self.layer
            .as_ref()
            .and_then(|layer| layer.graph.field_type(owner, field))
            .or_else(|| self.index.field_types.get(&(owner, field)).copied())
    }

    /// The crate functions a call of `caller` may reach.
    pub fn callees(&self, caller: FunctionRef, call: &CallSite) -> Vec<FunctionRef> {
        self.call_targets(caller, call).to_vec()
    }

    /// The number of an own function across the own files.
    pub fn number(&self, f: FunctionRef) -> usize {
        self.resolved
            .first_function
            .get(f.file)
            .copied()
            .unwrap_or(0)
            + f.function
    }

    /// What a call of `caller` may reach: resolved when the graph was built if the call is one
    /// of the caller's own (as the rules' calls are), else now.
    pub fn call_targets(
        &self,
        caller: FunctionRef,
        call: &CallSite,
    ) -> std::borrow::Cow<'_, [FunctionRef]> {
        let facts = self.function(caller);
        let Some(index) = index_in(&facts.calls, call) else {
            return std::borrow::Cow::Owned(self.resolve(caller, &call.callee));
        };
        if let Some((base, f)) = self.in_base(caller) {
            let targets = base.call_targets(f, call);
            return std::borrow::Cow::Owned(targets.iter().map(|&r| self.lift(r)).collect());
        }
        let n = self.number(caller);
        let range = self.resolved.ranges[self.resolved.first_call[n] + index].clone();
        std::borrow::Cow::Borrowed(&self.resolved.targets[range])
    }

    /// What the `index`th call of the own function `f` may reach.
    fn own_call_targets(&self, f: FunctionRef, index: usize) -> &[FunctionRef] {
        let n = self.number(f);
        let range = self.resolved.ranges[self.resolved.first_call[n] + index].clone();
        &self.resolved.targets[range]
    }

    /// What the `index`th returned call of the own function `f` may reach.
    fn returned_targets(&self, f: FunctionRef, index: usize) -> &[FunctionRef] {
        let n = self.number(f);
        let range = self.resolved.ranges[self.resolved.first_returned[n] + index].clone();
        &self.resolved.targets[range]
    }

    /// Resolve every call and every returned call of the own functions, once (taking from
    /// `base` what it already resolved, where that cannot differ).
    fn resolve_all(&mut self, base: Option<&Base<'_, 'a>>) {
        let mut resolved = Resolved::default();
        let mut count = 0;
        for (_, facts) in &self.files[..self.own_files()] {
            resolved.first_function.push(count);
            count += facts.functions.len();
        }
        let functions: Vec<FunctionRef> = self.own_functions().collect();
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

    /// Whether each sink of the own functions is active (see [`CrateGraph::sink_active`]),
    /// once.
    fn compute_active_sinks(&mut self) {
        let functions: Vec<FunctionRef> = self.own_functions().collect();
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
        if !self.has_name(name) {
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

    /// A call by a path anchored at a module (`crate::a::f()`, `self::f()`, `super::a::f()`,
    /// `my_crate::a::f()`): the free functions of `free` the module reaches, or `None` at the
    /// crate's root when it defines none (a function re-exported there, found by name). A
    /// function re-exported in the module (`pub use`) is found by its last module, as a relative
    /// path is, or by globs down the tree.
    fn in_anchored_module(
        &self,
        free: &[FunctionRef],
        name: &str,
        module: &[String],
    ) -> Option<Vec<FunctionRef>> {
        let pick = |keep: &dyn Fn(&FunctionFacts) -> bool| self.pick(free, keep);
        let exact = pick(&|f| f.module == module);
        if !exact.is_empty() {
            return Some(exact);
        }
        if !module.is_empty() {
            // Re-exported from a child module (`pub use amend::run_amend;` in
            // `cli::git`): the child's function, when a file re-exports the name
            // from that child.
            let child = pick(&|f| {
                f.module.len() == module.len() + 1
                    && f.module.starts_with(module)
                    && f.module
                        .last()
                        .is_some_and(|child| self.reexports_from(name, Some(child)))
            });
            if !child.is_empty() || self.reexports_from(name, None) {
                return Some(child);
            }
            let last = pick(&|f| f.module.last() == module.last());
            if !last.is_empty() {
                return Some(last);
            }
            // Re-exported by globs down the tree (`pub use migrations::*;` in
            // `database` and in `database::migrations`): the one function of the
            // name under the module, when there is one only.
            let under = pick(&|f| f.module.len() > module.len() && f.module.starts_with(module));
            return Some(if under.len() == 1 { under } else { Vec::new() });
        }
        None
    }

    /// A call by a relative path (`a::b::f()`): a child module of the caller's when there is one
    /// (as Rust resolves a relative path: `server::run()` in `mcp` is `mcp::server::run`, not
    /// the crate's other `server::run`), else a module of this crate whose path ends so (a
    /// `use`d module), else the one function of the name under the caller's child module,
    /// re-exported by globs down it (`cli::run_mcp_server()` with `pub use commands::*;` in
    /// `cli`: batch 104's code-indexer), as for a path anchored at a module, else the function
    /// that module imports from elsewhere ([`CrateGraph::reexported_by_module`]); none when
    /// there are several (another crate's path).
    fn in_relative_module(
        &self,
        free: &[FunctionRef],
        (caller_ref, name): (FunctionRef, &str),
        modules: &[String],
    ) -> Vec<FunctionRef> {
        let caller = self.function(caller_ref);
        let pick = |keep: &dyn Fn(&FunctionFacts) -> bool| self.pick(free, keep);
        let depth = caller.module.len();
        let child = pick(&|f| {
            f.module.len() == depth + modules.len()
                && f.module.starts_with(&caller.module)
                && f.module.ends_with(modules)
        });
        if !child.is_empty() {
            return child;
        }
        let used = pick(&|f| f.module.ends_with(modules));
        if !used.is_empty() {
            return used;
        }
        let under = pick(&|f| {
            f.module.len() > depth + modules.len()
                && f.module.starts_with(&caller.module)
                && f.module[depth..].starts_with(modules)
        });
        if under.len() == 1 {
            return under;
        }
        let child_module: Vec<String> = caller.module.iter().chain(modules).cloned().collect();
        let found = self.reexported_by_module(caller_ref, free, name, &child_module);
        if !found.is_empty() || caller.module.is_empty() {
            return found;
        }
        self.reexported_by_module(caller_ref, free, name, modules)
    }

    /// A call through a module that re-exports the function from elsewhere (batch 118's
    /// devbase: `commands::simple::run_mcp()`, where `commands/simple.rs` holds only `pub use
    /// crate::commands::system::{run_mcp, ..};`): the functions of `free` in the module that
    /// `module`'s file imports `name` from, by a path anchored at the crate (`crate`, the
    /// crate's name) or at that file's module (`self`, `super`).
    fn reexported_by_module(
        &self,
        caller: FunctionRef,
        free: &[FunctionRef],
        name: &str,
        module: &[String],
    ) -> Vec<FunctionRef> {
        // No function of the name: nothing to find (most such calls are another crate's).
        if free.is_empty() {
            return Vec::new();
        }
        // A library's call sees only the library's files (as [`CrateGraph::lookup_from`]).
        let from = self.library_from.filter(|&from| caller.file >= from);
        for (index, (_, file)) in self.files.iter().enumerate() {
            if from.is_some_and(|from| index < from) || file.module != module {
                continue;
            }
            let Some((_, path)) = file.imports.iter().find(|(n, _)| n == name) else {
                continue;
            };
            let Some((last, modules)) = path.split_last() else {
                continue;
            };
            if last != name {
                continue;
            }
            let Some(target) = self.anchored_at(&file.module, modules) else {
                continue;
            };
            let found = self.pick(free, &|f| f.module == target);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// The crate functions a call by path (`f()`, `Type::f()`, `module::f()`) may reach.
    fn resolve_path(
        &self,
        caller: FunctionRef,
        name: &str,
        segments: &[String],
    ) -> Vec<FunctionRef> {
        // `commands::run_mcp()` after `use my_crate::cli::{commands, ..};`: the path the
        // caller's file imports its first module by (Rust resolves it so), when that path is
        // anchored at this crate (another crate's module is none of the crate's).
        let expanded = self.through_imported_module(caller, segments);
        let segments = expanded.as_deref().unwrap_or(segments);
        let caller_facts = self.function(caller);
        let trait_fns =
            |trait_name: &str| self.lookup_from(caller, &|i| i.trait_fns.get(&(trait_name, name)));
        if segments.len() >= 2 {
            let qualifier = &segments[segments.len() - 2];
            if is_type_name(qualifier) {
                let ty = if qualifier == "Self" {
                    caller_facts.self_ty.as_deref()
                } else {
                    Some(qualifier.as_str())
                };
                let mut found: Vec<FunctionRef> = ty
                    .map(|ty| self.lookup_from(caller, &|i| i.by_type.get(&(ty, name))))
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
            let free = self.lookup_from(caller, &|i| i.free_by_name.get(name));
            match self.anchored(caller_facts, modules) {
                // `crate::a::f()`, `self::f()`, `super::a::f()`, `my_crate::a::f()`: the module
                // the path names; a function re-exported there (`pub use`) is found by its
                // last module, as a relative path is.
                Some(module) => {
                    if let Some(found) = self.in_anchored_module(&free, name, &module) {
                        return found;
                    }
                    // At the crate's root, which defines no function of the name: what its
                    // `use` of the name re-exports (`pub use cli::run;`, called as
                    // `my_crate::run()` by the crate's binary), none when that is not a
                    // function of the files read; else re-exported by a glob, found by name
                    // below.
                    if let Some(found) = self.reexported_at_root(caller, &modules[0], &free, name) {
                        return found;
                    }
                }
                // `a::b::f()`: relative to the caller's module (see `in_relative_module`).
                None => return self.in_relative_module(&free, (caller, name), modules),
            }
        }
        let free = self.lookup_from(caller, &|i| i.free_by_name.get(name));
        let same_module: Vec<FunctionRef> = free
            .iter()
            .copied()
            .filter(|&c| self.function(c).module == caller_facts.module)
            .collect();
        if !same_module.is_empty() {
            return same_module;
        }
        // Of several functions of the name, the one the caller's file imports (`use
        // crate::mcp::cue::handle_cue_generate;` beside a CLI's own `handle_cue_generate`).
        if free.len() > 1 {
            let chosen = self.imported_of(caller, name, &free);
            if !chosen.is_empty() {
                return chosen;
            }
        }
        free
    }

    /// Of `candidates` (free functions named `name`), those in the module the caller's file
    /// imports the name from (`use crate::mcp::cue::generate;`): none when it imports nothing
    /// of the name.
    fn imported_of(
        &self,
        caller: FunctionRef,
        name: &str,
        candidates: &[FunctionRef],
    ) -> Vec<FunctionRef> {
        let Some(path) = self.imported_path(caller, name) else {
            return Vec::new();
        };
        let mut modules = &path[..path.len().saturating_sub(1)];
        // `use super::{run, LintReport};`, `use crate::cli::run;`: the module the anchor names,
        // when a candidate is there (not every function of the name, whose module ends
        // anywhere).
        if let Some(module) = self.anchored(self.function(caller), modules) {
            let exact: Vec<FunctionRef> = candidates
                .iter()
                .copied()
                .filter(|&c| self.function(c).module == module)
                .collect();
            if !exact.is_empty() {
                return exact;
            }
        }
        // `use my_crate::cli::run;` in a target of the crate: the crate's own module.
        if let Some((first, rest)) = modules.split_first() {
            if self.crate_name.as_deref() == Some(first.as_str()) && !rest.is_empty() {
                modules = rest;
            }
        }
        if modules
            .iter()
            .all(|m| matches!(m.as_str(), "crate" | "self" | "super"))
        {
            return Vec::new();
        }
        candidates
            .iter()
            .copied()
            .filter(|&c| super::syntax::module_ends_with(&self.function(c).module, modules))
            .collect()
    }

    /// The path the caller's file imports `name` by (`use crate::mcp::cue::generate;`), if any.
    fn imported_path(&self, caller: FunctionRef, name: &str) -> Option<&'a Vec<String>> {
        let (_, file) = self.files.get(caller.file)?;
        file.imports
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, path)| path)
    }

    /// A call's path whose first module the caller's file imports by a path anchored at this
    /// crate (`use crate::cli::commands;`, `use my_crate::cli::{commands, Cli};`), written from
    /// that anchor (`crate::cli::commands::run_mcp`, `my_crate::cli::commands::run_mcp`).
    fn through_imported_module(
        &self,
        caller: FunctionRef,
        segments: &[String],
    ) -> Option<Vec<String>> {
        let (first, rest) = segments.split_first()?;
        if rest.is_empty() || is_type_name(first) {
            return None;
        }
        let path = self.imported_path(caller, first)?;
        let anchor = path.first()?;
        let anchored = anchor == "crate" || self.crate_name.as_deref() == Some(anchor.as_str());
        if !anchored || path.len() < 2 {
            return None;
        }
        Some(path.iter().chain(rest).cloned().collect())
    }

    /// Of `free` (free functions named `name`), those that the crate root's `use` of `name`
    /// brings in (`pub use cli::run;`, `pub use crate::cli::dispatch::run;`, followed through
    /// a module's own re-export as a path anchored at the root is), for a call by a path
    /// anchored at the root by `anchor` (`crate`, or the crate's name from one of its targets).
    /// `None` when the root's file does not `use` the name (or is not known).
    fn reexported_at_root(
        &self,
        caller: FunctionRef,
        anchor: &str,
        free: &[FunctionRef],
        name: &str,
    ) -> Option<Vec<FunctionRef>> {
        // A target's own files come first, its root first; its library's files follow, from
        // `library_from`, the library's root first.
        let in_library = self.library_from.is_some_and(|from| caller.file >= from);
        let root = match (anchor, self.library_from) {
            ("crate", _) if !in_library => 0,
            (_, Some(from)) => from,
            ("crate", None) => 0,
            // The library's name from a graph that does not know where its files start.
            _ => return None,
        };
        let (_, file) = self.files.get(root)?;
        let path = file
            .imports
            .iter()
            .find(|(n, path)| n == name && path.len() >= 2)
            .map(|(_, path)| path)?;
        let modules = match path.first().map(String::as_str) {
            Some("crate") => &path[1..path.len() - 1],
            Some("self") => &path[1..path.len() - 1],
            Some(first) if self.crate_name.as_deref() == Some(first) => &path[1..path.len() - 1],
            // Not a module the root declares out of line (another crate's item, an inline
            // module): not followed.
            Some(first) if !file.mod_decls.iter().any(|m| m.name == first) => return None,
            _ => &path[..path.len() - 1],
        };
        if modules.is_empty() {
            return None;
        }
        Some(
            self.in_anchored_module(free, name, modules)
                .unwrap_or_default(),
        )
    }

    /// Whether a file of the graph brings `name` in from a module `child` of its own (`pub use
    /// amend::{run_amend, ..};`, `pub use self::amend::run_amend;`), or from any child module
    /// of its own when `child` is `None`.
    fn reexports_from(&self, name: &str, child: Option<&str>) -> bool {
        let from = |module: &String| child.is_none_or(|child| module == child);
        self.files.iter().any(|(_, file)| {
            file.imports.iter().any(|(n, path)| {
                n == name
                    && match path.as_slice() {
                        [first, module, _] if first == "self" => from(module),
                        [module, _] => {
                            !matches!(module.as_str(), "crate" | "super" | "self") && from(module)
                        }
                        _ => false,
                    }
            })
        })
    }

    /// The module a path's modules name from an anchor (`crate`, `self`, `super`, the crate's
    /// own name), relative to the caller's module; None for a path without one.
    fn anchored(&self, caller: &FunctionFacts, modules: &[String]) -> Option<Vec<String>> {
        self.anchored_at(&caller.module, modules)
    }

    /// [`CrateGraph::anchored`] from the module `from`.
    fn anchored_at(&self, from: &[String], modules: &[String]) -> Option<Vec<String>> {
        let (first, rest) = modules.split_first()?;
        let mut module = match first.as_str() {
            "crate" => Vec::new(),
            "self" => from.to_vec(),
            "super" => {
                let mut parent = from.to_vec();
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
        if ty.starts_with(super::syntax::TRAIT_OBJECT) {
            // A call through a trait object may reach any implementation: no one target (see
            // [`CrateGraph::implementations`]).
            return Vec::new();
        }
        let mut found = self.lookup(&|i| i.by_type.get(&(ty, name)));
        found.retain(|&r| self.function(r).has_receiver);
        found
    }

    /// The type of a method call's receiver, when the code makes it evident: named, or the type
    /// of the caller's field.
    fn receiver_type<'r>(
        &'r self,
        caller: FunctionRef,
        receiver: Option<&'r ReceiverType>,
    ) -> Option<&'r str> {
        match receiver? {
            ReceiverType::Named(ty) => Some(ty.as_str()),
            ReceiverType::SelfField(field) => {
                let owner = self.function(caller).self_ty.as_deref()?;
                self.field_type(owner, field)
            }
            ReceiverType::FieldOf(base, field) => {
                let owner = self.receiver_type(caller, Some(base))?;
                self.field_type(owner, field)
            }
            // The type every target of the call declares it returns, when they agree; only for a
            // call the code resolves (by its path, or on a value of a known type), not one
            // guessed by its name alone (`flag.then(..)` is `bool`'s).
            ReceiverType::Returned(callee) => {
                if let Callee::Method {
                    on_self: false,
                    receiver,
                    ..
                } = &**callee
                {
                    self.receiver_type(caller, receiver.as_ref())?;
                }
                let targets = self.resolve(caller, callee);
                let mut types = targets
                    .iter()
                    .map(|&t| self.function(t).returns_type.as_deref());
                let first = types.next()??;
                types.all(|t| t == Some(first)).then_some(first)
            }
        }
    }

    /// Whether a receiver is the value of a method call on a value of a type the crate does not
    /// define (a foreign type's method), or of a method call on such a value: another crate's
    /// code made it, so the crate's methods do not apply to it.
    fn foreign_value(
        &self,
        caller: FunctionRef,
        receiver: Option<&ReceiverType>,
        depth: usize,
    ) -> bool {
        let Some(ReceiverType::Returned(callee)) = receiver else {
            return false;
        };
        let Callee::Method {
            name,
            on_self: false,
            receiver: inner,
        } = &**callee
        else {
            return false;
        };
        match self.receiver_type(caller, inner.as_ref()) {
            Some(ty) => {
                !ty.starts_with(super::syntax::TRAIT_OBJECT)
                    && !self.defines_type(ty)
                    && self.methods_of(ty, name).is_empty()
            }
            None => depth < 8 && self.foreign_value(caller, inner.as_ref(), depth + 1),
        }
    }

    /// Every implementation a method call through a trait object (`self.port.deliver(..)` with
    /// `port: Box<dyn Port>`) may reach, with the trait's default body: when the crate defines
    /// the trait (another crate's may be implemented anywhere: then `None`), and the call is
    /// through a trait object at all. The call reaches one of them, not all: a question that
    /// holds only if it holds of each (does the call send?) may ask them; reachability (does the
    /// code run?) may not.
    pub fn implementations(
        &self,
        caller: FunctionRef,
        callee: &Callee,
    ) -> Option<Vec<FunctionRef>> {
        let Callee::Method { name, receiver, .. } = callee else {
            return None;
        };
        let ty = self.receiver_type(caller, receiver.as_ref())?;
        let tr = ty.strip_prefix(super::syntax::TRAIT_OBJECT)?;
        if !self.defines_trait(tr) {
            return None;
        }
        let mut found = self.lookup(&|i| i.methods_by_name.get(name.as_str()));
        found.retain(|&r| self.function(r).trait_name.as_deref() == Some(tr));
        Some(found)
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
        if let Some(ty) = self.receiver_type(caller, receiver) {
            // The receiver's type is known: its methods, or nothing (a foreign type).
            return self.methods_of(ty, name);
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
            let defaults = self.lookup(&|i| i.defaults_by_name.get(name));
            if !defaults.is_empty() {
                return defaults;
            }
        }
        // A method of a value another crate's code made (`OpenOptions::new().read(true)
        // .open(path)`: std's `open`, not the crate's only `open`; batch 129's aizen).
        if self.foreign_value(caller, receiver, 0) {
            return Vec::new();
        }
        if vocab::COMMON_METHODS.contains(&name) {
            return Vec::new();
        }
        // The crate's only method of that name, if it has just one and it is no trait's: a
        // call through a trait object or a generic (`out.line(..)` on `&mut dyn Output`) runs
        // whichever implementation the caller was handed, maybe one in a file not read, or one
        // the crate's tests alone define.
        match self.lookup(&|i| i.methods_by_name.get(name)).as_slice() {
            [only] if self.function(*only).trait_name.is_none() => vec![*only],
            _ => Vec::new(),
        }
    }

    /// Whether a function returns a response message (see
    /// [`CrateGraph::compute_returns_response`]).
    pub fn returns_response(&self, f: FunctionRef) -> bool {
        self.per_function(f, |graph| &graph.returns_response, false)
    }

    /// A per-function answer of the graph that works `f` out (its library's, for one of the
    /// library's functions), from that graph's `table`; `missing` when it has none.
    fn per_function<T: Copy>(
        &self,
        f: FunctionRef,
        table: for<'g> fn(&'g CrateGraph<'a>) -> &'g [T],
        missing: T,
    ) -> T {
        match self.in_base(f) {
            Some((base, g)) => base.per_function(g, table, missing),
            None => table(self).get(self.number(f)).copied().unwrap_or(missing),
        }
    }

    /// Which own functions return a response message: those that build one in their tail or a
    /// `return`, and, to a fixed point, those that return what such a function returns.
    fn compute_returns_response(&mut self) {
        let functions: Vec<FunctionRef> = self.own_functions().collect();
        let mut set: Vec<bool> = functions
            .iter()
            .map(|&f| self.function(f).returns_response)
            .collect();
        let holds = |graph: &Self, set: &[bool], g: FunctionRef| match graph.in_base(g) {
            Some((base, g)) => base.returns_response(g),
            None => set[graph.number(g)],
        };
        loop {
            let mut grew = false;
            for (n, &f) in functions.iter().enumerate() {
                if set[n] {
                    continue;
                }
                let returns_one = (0..self.function(f).returns_calls.len()).any(|index| {
                    self.returned_targets(f, index)
                        .iter()
                        .any(|&g| holds(self, &set, g))
                });
                if returns_one {
                    set[n] = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        self.returns_response = set;
    }

    /// The parameters (a mask of their positions, the receiver not counted) whose value a
    /// function writes to the wire: itself (see [`FunctionFacts::writes_params`]) or, to a
    /// fixed point, by handing them to a function that does.
    pub fn writes_params(&self, f: FunctionRef) -> u64 {
        self.per_function(f, |graph| &graph.writes_params, 0)
    }

    /// The arguments (a mask of their positions in `call`) that a callee `g` writes to the
    /// wire, given the parameters it writes: a method called by path (`Type::m(&x, v)`) takes
    /// its receiver as the first argument.
    fn written_args(&self, call: &Callee, g: FunctionRef, written: u64) -> u64 {
        match call {
            Callee::Path(_) if self.function(g).has_receiver => written << 1,
            _ => written,
        }
    }

    fn compute_writes_params(&mut self) {
        let functions: Vec<FunctionRef> = self.own_functions().collect();
        let mut set: Vec<u64> = functions
            .iter()
            .map(|&f| self.function(f).writes_params)
            .collect();
        let of = |graph: &Self, set: &[u64], g: FunctionRef| match graph.in_base(g) {
            Some((base, g)) => base.writes_params(g),
            None => set[graph.number(g)],
        };
        loop {
            let mut grew = false;
            for (n, &f) in functions.iter().enumerate() {
                let facts = self.function(f);
                let mut mask = set[n];
                for (index, call) in facts.calls.iter().enumerate() {
                    if call.arg_params.is_empty() {
                        continue;
                    }
                    for &g in self.own_call_targets(f, index) {
                        let args = self.written_args(&call.callee, g, of(self, &set, g));
                        for (position, params) in call.arg_params.iter().enumerate().take(64) {
                            if args & (1 << position) != 0 {
                                mask |= params;
                            }
                        }
                    }
                }
                if mask != set[n] {
                    set[n] = mask;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        self.writes_params = set;
    }

    /// Whether a recorded send is a send: unconditional ones are; a send of a call's value is
    /// one when the call returns a response.
    pub fn sink_active(&self, f: FunctionRef, sink: &SinkSite) -> bool {
        let sinks = &self.function(f).sinks;
        let index = index_in(sinks, sink);
        if let (Some(_), Some((base, g))) = (index, self.in_base(f)) {
            return base.sink_active(g, sink);
        }
        match index {
            Some(index) if !self.resolved.first_sink.is_empty() => {
                self.resolved.active[self.resolved.first_sink[self.number(f)] + index]
            }
            _ => self.compute_sink_active(f, sink),
        }
    }

    fn compute_sink_active(&self, f: FunctionRef, sink: &SinkSite) -> bool {
        let returned = sink.if_returns_response.is_empty()
            || sink.if_returns_response.iter().any(|callee| {
                self.resolve(f, callee)
                    .iter()
                    .any(|&g| self.returns_response(g))
            });
        // Every function the call may reach writes the message (a call through a trait object
        // reaches each implementation): certain, or not a send.
        let written = sink.through.as_ref().is_none_or(|(callee, messages)| {
            let targets = self
                .implementations(f, callee)
                .unwrap_or_else(|| self.resolve(f, callee));
            !targets.is_empty()
                && targets
                    .iter()
                    .all(|&g| self.written_args(callee, g, self.writes_params(g)) & messages != 0)
        });
        returned && written
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

    /// What rule families work out over the graph, kept with it (see [`Summaries`]).
    pub fn summaries(&self) -> &Summaries {
        &self.summaries
    }

    /// The name the unit's library is used by, if known (`my_server` for `my-server`).
    pub fn crate_name(&self) -> Option<&str> {
        self.crate_name.as_deref()
    }

    /// The library graph this one extends, if it does: it answers for the library's functions
    /// (see [`CrateGraph::in_base`]).
    pub fn library(&self) -> Option<&'a CrateGraph<'a>> {
        self.layer.as_ref().map(|layer| layer.graph)
    }

    /// Whether the crate has a string constant of this name, and if so whether one of that
    /// name holds a value that `holds` accepts (the own files' and the library's).
    pub fn const_holds(&self, name: &str, holds: &dyn Fn(&str) -> bool) -> Option<bool> {
        let own = self
            .index
            .consts
            .get(name)
            .map(|values| values.iter().any(|v| holds(v)));
        let library = self
            .layer
            .as_ref()
            .and_then(|layer| layer.graph.const_holds(name, holds));
        match (own, library) {
            (None, None) => None,
            (own, library) => Some(own.unwrap_or(false) || library.unwrap_or(false)),
        }
    }
}

/// What rule families work out over a graph (a summary per function, say), each kind built once
/// per graph when first asked for and kept with the graph: a library's graph serves all its
/// targets' graphs (on any thread), and so do its summaries. Keyed by the value's type, so a
/// family keeps its types to itself.
#[derive(Default)]
pub struct Summaries(std::sync::Mutex<Vec<std::sync::Arc<dyn std::any::Any + Send + Sync>>>);

impl Summaries {
    /// The graph's value of type `T`, built by `init` the first time one is asked for. `init`
    /// runs without the table held (it may ask another graph, or this one, for another
    /// value); if two threads build the same value at once, the first one kept is the one
    /// both get.
    pub fn get_or_init<T: std::any::Any + Send + Sync>(
        &self,
        init: impl FnOnce() -> T,
    ) -> std::sync::Arc<T> {
        if let Some(known) = self.find::<T>() {
            return known;
        }
        let value = std::sync::Arc::new(init());
        let mut table = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(known) = table.iter().find_map(|v| v.clone().downcast::<T>().ok()) {
            return known;
        }
        table.push(value.clone());
        value
    }

    fn find<T: std::any::Any + Send + Sync>(&self) -> Option<std::sync::Arc<T>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .find_map(|v| v.clone().downcast::<T>().ok())
    }
}

#[cfg(test)]
/// Everything the graph answers about each function (its calls' targets, whether it
/// returns a response, which of its sends are sends), by file and name.
pub(crate) fn describe(graph: &CrateGraph<'_>) -> Vec<String> {
    let name = |f: FunctionRef| format!("{}:{}", graph.file_id(f), graph.function(f).name);
    let mut out = Vec::new();
    for f in graph.all_functions() {
        let facts = graph.function(f);
        let calls: Vec<Vec<String>> = facts
            .calls
            .iter()
            .map(|call| {
                let mut to: Vec<String> = graph.callees(f, call).into_iter().map(name).collect();
                to.sort();
                to
            })
            .collect();
        let sinks: Vec<bool> = facts
            .sinks
            .iter()
            .map(|s| graph.sink_active(f, s))
            .collect();
        out.push(format!(
            "{} calls {calls:?} returns {} sinks {sinks:?}",
            name(f),
            graph.returns_response(f),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{describe, CrateGraph, FunctionRef};
    use crate::analysis::facts::FileFacts;
    use crate::source::FileId;

    fn facts(text: &str, module: &[&str]) -> FileFacts {
        crate::analysis::facts_of(text, module, &crate::analysis::sends::marks::Unmarked)
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
    /// the target defines a function of a name the library calls; a library's call by path
    /// reaches only the library's functions.
    #[test]
    fn a_graph_over_its_librarys_is_the_graph_built_anew() {
        let lib = facts(
            "pub fn helper() {}\n\
             pub fn run(s: Sender) { helper(); s.poke(); self::helper(); Worker::start(); }\n\
             struct Worker;\n\
             impl Worker { fn start() { helper(); } fn poke(&self) {} }\n\
             fn drain() { make_queue().poke(); }\n",
            &[],
        );
        let main = facts(
            "fn helper() {}\nstruct Local;\nimpl Local { fn poke(&self) {} }\nfn main() { my_crate::run(); helper(); }\n",
            &[],
        );
        let crate_name = || Some("my_crate".to_string());
        let base = CrateGraph::named(vec![(1, &lib)], crate_name()).as_base();
        let plain = CrateGraph::named(vec![(1, &lib)], crate_name());
        let files = || vec![(0, &main), (1, &lib)];
        let anew = CrateGraph::named_over(files(), crate_name(), Some(&plain));
        let over = CrateGraph::named_over(files(), crate_name(), Some(&base));
        // The target's `Local::poke` may be what the library's `make_queue().poke()` reaches (a
        // method of a type it does not know): the graph cannot extend the library's, and works
        // the library's calls out again.
        assert!(over.layer.is_none());
        let targets = all_targets(&anew);
        assert_eq!(all_targets(&over), targets);
        assert_eq!(describe(&over), describe(&anew));
        // The library's `helper()` reaches the library's `helper`, not the target's; the
        // target's reaches its own.
        let to = |caller: &str, file| {
            targets
                .iter()
                .any(|(c, _, to)| c == caller && to.contains(&(file, "helper".to_string())))
        };
        assert!(to("run", 1) && !to("run", 0) && to("main", 0));
        // A graph with no library: every file sees every other.
        let flat = CrateGraph::named(files(), crate_name());
        assert!(all_targets(&flat)
            .iter()
            .any(|(c, _, to)| c == "run" && to.contains(&(0, "helper".to_string()))));
        // A base whose crate name differs is not used, and the graph is the flat one.
        let other = CrateGraph::named(vec![(1, &lib)], None).as_base();
        let unrelated = CrateGraph::named_over(files(), crate_name(), Some(&other));
        assert_eq!(all_targets(&unrelated), all_targets(&flat));
    }
}
