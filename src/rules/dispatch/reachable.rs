//! Whether a dispatcher's function runs in the product at all: it, or a function that calls it
//! (transitively), is a root the program or another crate may start from. What is not shown to
//! be unreachable is reachable: a root is `main`, any method (a trait's or a type's: called
//! through values the graph does not follow), a function exported or registered otherwise than
//! by a call (an ABI, `#[no_mangle]`, an attribute macro), a public function every module
//! around which is public or re-exported (another crate may call it), and any function the
//! crate's code names otherwise than by a call its facts record (`spawn(run)`, a macro's input,
//! a `use`). Test code is no root. First contact: a Tauri app whose private `mcp_server`
//! module's stdio loop nothing in the crate starts.

use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::{Callee, FileFacts, FunctionFacts};
use crate::prefilter::{MODULE_FILES, STANDALONE};

/// The functions of a unit that may run in its product (see the module's documentation).
pub(super) struct Live(HashSet<FunctionRef>);

/// What the unit's files say of the modules a function's path goes through.
struct Modules<'a> {
    /// Per module name, whether every declaration of it the files hold is private (`mod x;`).
    private: HashMap<&'a str, bool>,
    /// The identifiers of the files' `pub use` items.
    reexported: HashSet<&'a str>,
}

impl<'a> Modules<'a> {
    /// What `files` say of the modules whose names `wanted` takes (every one, or only those of
    /// one function's path).
    fn of(
        files: impl Iterator<Item = &'a FileFacts> + Clone,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Self {
        let mut private: HashMap<&str, bool> = HashMap::new();
        for decl in files.clone().flat_map(|f| &f.mod_decls) {
            if !decl.include && wanted(&decl.name) {
                let all_private = private.entry(decl.name.as_str()).or_insert(true);
                *all_private &= !decl.public;
            }
            // An inline module around a declaration: its visibility is not known.
            for inline in decl.inline.iter().filter(|i| wanted(&i.name)) {
                private.insert(inline.name.as_str(), false);
            }
        }
        let reexported = files
            .flat_map(|f| &f.pub_uses)
            .map(String::as_str)
            .filter(|n| wanted(n))
            .collect();
        Modules {
            private,
            reexported,
        }
    }

    /// Whether code outside the crate may reach into `module`: no module on its path is
    /// certainly private (declared, each time, without `pub`, and not re-exported). A module
    /// the files declare nowhere (an inline one, or one whose parent was not read) may be public.
    fn exported(&self, module: &[String]) -> bool {
        module.iter().all(|m| {
            self.reexported.contains(m.as_str())
                || !self.private.get(m.as_str()).copied().unwrap_or(false)
        })
    }
}

/// Whether a function is a root by its own facts, whatever the rest of the unit says (a method,
/// the crate root's `main`, one registered otherwise than by a call, one whose name is not a
/// function's as code writes it): the unit's walk is not needed for it. A `main` in a module is
/// no program's entry (batch 119's mcpapp-test-dx: `mod standalone { #[tokio::main] async fn
/// main() { .. } }` in the file a `[[bin]]` and the application both load): only calls reach it.
fn root_by_itself(f: &FunctionFacts) -> bool {
    (f.name == "main" && f.module.is_empty())
        || f.self_ty.is_some()
        || f.trait_name.is_some()
        || f.has_receiver
        || f.registered
        || !f
            .name
            .starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
}

/// A `main` in a module (see [`root_by_itself`]): the word `main` the files name is the crate
/// root's entry or an attribute's path (`#[tokio::main]`), not a value that runs this one.
fn module_main(f: &FunctionFacts) -> bool {
    f.name == "main" && !f.module.is_empty()
}

/// Whether a function is a root by what the unit's files say (see [`is_root`]), read for this
/// one function (the files' `named` lists are sorted): the walk of
/// [`Live::of`], which resolves every call of the unit, is needed only when it is not.
pub(super) fn root_in(graph: &CrateGraph<'_>, f: &FunctionFacts) -> bool {
    let files = graph.files();
    let sorted_has =
        |list: &[String], word: &str| list.binary_search_by(|n| n.as_str().cmp(word)).is_ok();
    if root_by_itself(f)
        || (!module_main(f) && files.iter().any(|(_, x)| sorted_has(&x.named, &f.name)))
    {
        return true;
    }
    f.public
        && Modules::of(files.iter().map(|(_, x)| *x), &|n| {
            f.module.iter().any(|m| m == n)
        })
        .exported(&f.module)
}

/// Whether a function is a root: see the module's documentation. `named`: what the files name
/// otherwise than by a recorded call.
fn is_root(f: &FunctionFacts, named: &HashSet<&str>, modules: &Modules<'_>) -> bool {
    root_by_itself(f)
        || (!module_main(f) && named.contains(f.name.as_str()))
        || (f.public && modules.exported(&f.module))
}

impl Live {
    pub(super) fn of(graph: &CrateGraph<'_>) -> Self {
        let files = graph.files();
        let modules = Modules::of(files.iter().map(|(_, f)| *f), &|_| true);
        let named: HashSet<&str> = files
            .iter()
            .flat_map(|(_, f)| &f.named)
            .map(String::as_str)
            .collect();
        let mut free: HashMap<&str, Vec<FunctionRef>> = HashMap::new();
        let mut live: HashSet<FunctionRef> = HashSet::new();
        let mut work: Vec<FunctionRef> = Vec::new();
        for r in graph.all_functions() {
            let f = graph.function(r);
            if f.in_test {
                continue;
            }
            if f.self_ty.is_none() && f.trait_name.is_none() {
                free.entry(f.name.as_str()).or_default().push(r);
            }
            if is_root(f, &named, &modules) && live.insert(r) {
                work.push(r);
            }
        }
        // Each name's functions are reached once: the walk is linear in the calls.
        let mut expanded: HashSet<&str> = HashSet::new();
        while let Some(caller) = work.pop() {
            for call in &graph.function(caller).calls {
                let mut reached = graph.callees(caller, call);
                if let Callee::Path(segments) = &call.callee {
                    let name = segments.last().map(String::as_str).unwrap_or("");
                    if expanded.insert(name) {
                        reached.extend(free.get(name).into_iter().flatten().copied());
                    }
                }
                for r in reached {
                    if live.insert(r) {
                        work.push(r);
                    }
                }
            }
        }
        Live(live)
    }

    pub(super) fn contains(&self, f: FunctionRef) -> bool {
        self.0.contains(&f)
    }
}

/// What the family looks for in the skipped files so that [`Live`] sees every function that may
/// reach a dispatcher: the files that name a dispatcher's function, or (transitively) a function
/// of the parsed files that calls one of those by name, and the files that declare modules
/// (whether each module is public).
pub(super) fn needles(facts: &[&FileFacts], needles: &mut BTreeSet<String>) {
    // A function that is a root by what the files read so far show (a method, `main`, a public
    // function whose modules they do not show private, one they name) ends the search: the
    // files that name it or its callers are not needed, and following a common name (`run`,
    // `call`, `handle`) would read every file that says it. The engine asks again after each
    // wave, when the files that declare modules have been read: a public function of a private
    // module is followed then.
    let modules = Modules::of(facts.iter().copied(), &|_| true);
    let named: HashSet<&str> = facts
        .iter()
        .flat_map(|f| &f.named)
        .map(String::as_str)
        .collect();
    let root = |f: &FunctionFacts| f.in_test || is_root(f, &named, &modules);
    let mut callers: HashMap<&str, Vec<&str>> = HashMap::new();
    for f in facts.iter().flat_map(|f| &f.functions) {
        if root(f) {
            continue;
        }
        for call in &f.calls {
            if let Callee::Path(segments) = &call.callee {
                if let Some(name) = segments.last() {
                    callers
                        .entry(name.as_str())
                        .or_default()
                        .push(f.name.as_str());
                }
            }
        }
    }
    let mut work: Vec<&str> = facts
        .iter()
        .flat_map(|file| {
            file.dispatch
                .dispatchers
                .iter()
                .filter_map(|d| file.function_at(d.whole()))
        })
        .filter(|f| !root(f))
        .map(|f| f.name.as_str())
        .collect();
    if work.is_empty() {
        return;
    }
    needles.insert(MODULE_FILES.to_string());
    let mut seen: HashSet<&str> = HashSet::new();
    while let Some(name) = work.pop() {
        if !seen.insert(name) {
            continue;
        }
        needles.insert(format!("{STANDALONE}{name}"));
        work.extend(callers.get(name).into_iter().flatten().copied());
    }
}
