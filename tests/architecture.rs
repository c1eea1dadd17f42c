//! Architecture checks on `src/` (issue 12): imports run one way, down the layers of [`LAYERS`];
//! every folder's files (`src/analysis/`, `src/engine/`, `src/discovery/`, ...) form no import cycle;
//! no function is longer than [`MAX_FUNCTION_LINES`] beyond the shrinking [`LONG_FUNCTIONS`].
//!
//! The sources are parsed with `syn`. A dependency is any path that names an item of the crate:
//! `crate::..`, `super::..` and `self::..` (resolved against the module the path is written in,
//! inline modules such as `mod tests` included), and a bare path that starts with a child module
//! of the current module (`facts::collect` in `analysis/mod.rs`). Paths are read in `use` items,
//! in code, in types and patterns, and in the tokens of macro calls (`matches!(x, crate::..)`);
//! visibilities (`pub(super)`) are not dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// The layers of the top-level modules of `src/`, lowest first. A module may import from its own
/// layer or a lower one, never from a higher one, and imports inside a layer must not form a
/// cycle. A new module must be given a layer here.
const LAYERS: &[(&str, u32)] = &[
    // 0. Leaf types and helpers that know nothing of the analysis: sources and spans,
    //    diagnostics and edits' data, lexical regions of a text, fingerprints, the protocol
    //    versions, the units and files to lint, the MCP SDK a package uses and the features its
    //    default build enables, suppression
    //    comments, reads held to a size limit, the external programs run (git, cargo), the escaping of text from
    //    the tree.
    ("source", 0),
    ("bounded", 0),
    ("tree", 0),
    ("programs", 0),
    ("escape", 0),
    ("diagnostic", 0),
    ("lexical", 0),
    ("fingerprint", 0),
    ("protocol", 0),
    ("unit", 0),
    ("sdk", 0),
    ("features", 0),
    ("suppression", 0),
    ("timings", 0),
    ("result", 0),
    // 1. The analysis: per-file facts and the crate graph.
    ("analysis", 1),
    // 2. What the rules are given besides the facts: the settings of a run, and turning a
    //    removal the analysis found into byte edits.
    ("settings", 2),
    ("edits", 2),
    // 3. What the engine runs: the rules, the policy that applies levels and suppressions, the
    //    configuration loader (which names the rules), the pre-filter, the facts cache, and the
    //    discovery of the files to lint (with rustc's module-tree resolution).
    ("rules", 3),
    ("policy", 3),
    ("config", 3),
    ("prefilter", 3),
    ("cache", 3),
    ("discovery", 3),
    // 4. The engine: read, parse, analyse, run the rules; the units' cached findings and the
    //    groups' records.
    ("engine", 4),
    ("unit_results", 4),
    ("replay", 4),
    // 5. What is done with a result: the report's paths, changed-since filtering, baselines,
    //    statistics.
    ("report", 5),
    ("changed", 5),
    ("baseline", 5),
    ("statistics", 5),
    // 6. Output formats, and fixing (which lints again).
    ("output", 6),
    ("fix", 6),
    // 7. The command line.
    ("cli", 7),
];

/// Imports that go up a layer and are allowed for now. This list can only shrink: an entry that
/// no longer matches an import makes the test fail, so it is removed when its import goes.
/// Each is (file, module imported).
const ALLOWED_UPWARD: &[(&str, &str)] = &[];

/// The longest a function may be, in lines from `fn` to its closing brace (closures count in the
/// function that holds them).
const MAX_FUNCTION_LINES: usize = 100;

/// Folders whose long functions may be allow-listed in [`LONG_FUNCTIONS`] (their restructuring
/// is under way); everywhere else a long function is split, not listed.
const LONG_FUNCTION_FOLDERS: &[&str] = &["src/analysis/", "src/rules/"];

/// Functions longer than [`MAX_FUNCTION_LINES`], allowed for now. This list can only shrink: an
/// entry whose function is gone or short enough makes the test fail, so it is removed then.
const LONG_FUNCTIONS: &[&str] = &[];

// ---------------------------------------------------------------------------------------------
// Reading the sources.

/// A parsed file of the crate.
struct SourceFile {
    /// `src/analysis/facts.rs`.
    path: String,
    /// The module the file is, from the crate root (`["analysis", "facts"]`); `None` for the
    /// binary's root, which is a crate of its own.
    module: Option<Vec<String>>,
    syntax: syn::File,
}

/// The module a file under `src/` is, from its path relative to `src/`.
fn module_of(relative: &str) -> Option<Vec<String>> {
    let stem = relative.strip_suffix(".rs")?;
    let mut parts: Vec<String> = stem.split('/').map(str::to_string).collect();
    match parts.as_slice() {
        [only] if only == "main" => return None,
        [only] if only == "lib" => return Some(Vec::new()),
        _ => {}
    }
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    Some(parts)
}

fn parse(path: &str, text: &str) -> SourceFile {
    let relative = path.strip_prefix("src/").unwrap_or(path);
    SourceFile {
        path: path.to_string(),
        module: module_of(relative),
        syntax: syn::parse_file(text).unwrap_or_else(|e| panic!("{path} does not parse: {e}")),
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every `.rs` file under `src/`, parsed, sorted by path.
fn crate_sources() -> Vec<SourceFile> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut paths = Vec::new();
    rust_files(&root.join("src"), &mut paths);
    paths.sort();
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).expect("a readable source file");
            let relative = path.strip_prefix(root).expect("a file under the crate");
            parse(&relative.to_string_lossy().replace('\\', "/"), &text)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Dependencies.

/// A path to an item of the crate, resolved from the crate root.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Reference {
    /// As written, e.g. `super::facts::is_test_item`.
    written: String,
    /// From the crate root, e.g. `["analysis", "facts", "is_test_item"]`.
    target: Vec<String>,
    line: usize,
}

/// Resolve a written path in `module`: `crate::`, `super::` (any number), `self::`, or a child
/// module of `module` that is one of `modules`. `None` for anything else (another crate, a local
/// item).
fn resolve(
    written: &[String],
    module: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let first = written.first()?;
    let (mut base, rest): (Vec<String>, &[String]) = match first.as_str() {
        "crate" | "$crate" => (Vec::new(), &written[1..]),
        "self" => (module.to_vec(), &written[1..]),
        "super" => {
            let supers = written.iter().take_while(|s| *s == "super").count();
            if supers > module.len() {
                return None;
            }
            (module[..module.len() - supers].to_vec(), &written[supers..])
        }
        _ => {
            let mut child = module.to_vec();
            child.push(first.clone());
            if !modules.contains(&child) {
                return None;
            }
            (module.to_vec(), written)
        }
    };
    base.extend(rest.iter().cloned());
    Some(base)
}

/// Collects the crate paths of a file.
struct PathCollector<'a> {
    module: Vec<String>,
    modules: &'a BTreeSet<Vec<String>>,
    found: Vec<Reference>,
}

impl PathCollector<'_> {
    fn add(&mut self, written: Vec<String>, line: usize) {
        if let Some(target) = resolve(&written, &self.module, self.modules) {
            self.found.push(Reference {
                written: written.join("::"),
                target,
                line,
            });
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree, line: usize) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree, line);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.use_leaf(prefix, &n.ident, line),
            syn::UseTree::Rename(r) => self.use_leaf(prefix, &r.ident, line),
            syn::UseTree::Glob(_) => self.add(prefix.clone(), line),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    self.use_tree(prefix, tree, line);
                }
            }
        }
    }

    fn use_leaf(&mut self, prefix: &[String], ident: &syn::Ident, line: usize) {
        let mut path = prefix.to_vec();
        if ident != "self" || path.is_empty() {
            path.push(ident.to_string());
        }
        self.add(path, line);
    }

    /// Paths in macro tokens: `crate`, `super` or `self` followed by `::` segments.
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(group) => self.tokens(group.stream()),
                // `crate::..`, `super::..`, `self::..`, or a child module's `name::..`
                // (resolved as any bare path is: only a child module of the file counts).
                TokenTree::Ident(ident)
                    if ident == "crate"
                        || ident == "super"
                        || ident == "self"
                        || is_path_start(&trees, i) =>
                {
                    let mut path = vec![ident.to_string()];
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (trees.get(i + 1), trees.get(i + 2), trees.get(i + 3))
                    {
                        if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':'
                        {
                            break;
                        }
                        path.push(next.to_string());
                        i += 3;
                    }
                    if path.len() > 1 {
                        self.add(path, ident.span().start().line);
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// Whether the identifier at `i` starts a path (`name::..`) that is not the tail of one.
fn is_path_start(trees: &[TokenTree], i: usize) -> bool {
    let joint_colons = |at: usize| {
        matches!(
            (trees.get(at), trees.get(at + 1)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
                if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
        )
    };
    joint_colons(i + 1) && (i < 2 || !joint_colons(i - 2))
}

impl<'ast> Visit<'ast> for PathCollector<'_> {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        if item.content.is_some() {
            self.module.push(item.ident.to_string());
            visit::visit_item_mod(self, item);
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        let line = item.use_token.span.start().line;
        self.use_tree(&mut Vec::new(), &item.tree, line);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        let written: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = path
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.add(written, line);
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }

    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}
}

/// The crate paths of a file that is `module`.
fn references(
    syntax: &syn::File,
    module: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Vec<Reference> {
    let mut collector = PathCollector {
        module: module.to_vec(),
        modules,
        found: Vec::new(),
    };
    collector.visit_file(syntax);
    collector.found
}

/// An import of one node of a graph by another, with where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edge {
    from: String,
    to: String,
    file: String,
    line: usize,
    written: String,
}

impl Edge {
    fn place(&self) -> String {
        format!("{}:{}: `{}`", self.file, self.line, self.written)
    }
}

/// The module every file is, for resolving bare child paths.
fn modules_of(files: &[SourceFile]) -> BTreeSet<Vec<String>> {
    files.iter().filter_map(|f| f.module.clone()).collect()
}

/// The file module a target lies in: its longest prefix that is a file.
fn file_module<'m>(target: &[String], modules: &'m BTreeSet<Vec<String>>) -> Option<&'m [String]> {
    (0..=target.len())
        .rev()
        .find_map(|n| modules.get(&target[..n]).map(Vec::as_slice))
}

/// The imports between the nodes of `folder` (a module path, e.g. `["analysis"]`): its child
/// modules, each with what lies under it, and `mod` for the folder's own file. For `None`, the
/// imports between the top-level modules. Imports of a node by itself are left out.
fn dependency_edges(files: &[SourceFile], folder: Option<&[String]>) -> Vec<Edge> {
    let modules = modules_of(files);
    let node = |module: &[String]| -> Option<String> {
        match folder {
            None => module.first().cloned(),
            Some(folder) if module.starts_with(folder) => Some(
                module
                    .get(folder.len())
                    .cloned()
                    .unwrap_or_else(|| "mod".to_string()),
            ),
            Some(_) => None,
        }
    };
    let mut edges = Vec::new();
    for file in files {
        let Some(module) = &file.module else { continue };
        let Some(from) = node(module) else { continue };
        for reference in references(&file.syntax, module, &modules) {
            let Some(to) = file_module(&reference.target, &modules).and_then(node) else {
                continue;
            };
            if to != from {
                edges.push(Edge {
                    from: from.clone(),
                    to,
                    file: file.path.clone(),
                    line: reference.line,
                    written: reference.written,
                });
            }
        }
    }
    edges
}

// ---------------------------------------------------------------------------------------------
// Checks.

/// Whether `to` is reachable from `from` along `edges`.
fn reaches(edges: &[Edge], from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from];
    while let Some(node) = stack.pop() {
        if node == to {
            return true;
        }
        if seen.insert(node) {
            stack.extend(
                edges
                    .iter()
                    .filter(|e| e.from == node)
                    .map(|e| e.to.as_str()),
            );
        }
    }
    false
}

/// The edges that lie on a cycle: those whose target reaches back to their source.
fn cycle_edges(edges: &[Edge]) -> Vec<&Edge> {
    edges
        .iter()
        .filter(|e| reaches(edges, &e.to, &e.from))
        .collect()
}

/// Imports that go up a layer (unless allowed), modules without a layer, and allow-list entries
/// that match nothing any more.
fn layer_violations(
    edges: &[Edge],
    layers: &[(&str, u32)],
    allowed: &[(&str, &str)],
) -> Vec<String> {
    let layer = |m: &str| layers.iter().find(|(name, _)| *name == m).map(|(_, l)| *l);
    let mut problems = BTreeSet::new();
    let mut used = BTreeSet::new();
    for edge in edges {
        for module in [&edge.from, &edge.to] {
            if layer(module).is_none() {
                problems.insert(format!("module `{module}` has no layer: add it to LAYERS"));
            }
        }
        let (Some(from), Some(to)) = (layer(&edge.from), layer(&edge.to)) else {
            continue;
        };
        if to <= from {
            continue;
        }
        let key = (edge.file.as_str(), edge.to.as_str());
        if allowed.contains(&key) {
            used.insert(key);
            continue;
        }
        problems.insert(format!(
            "{}: `{}` (layer {from}) imports from `{}` (layer {to}), a higher layer",
            edge.place(),
            edge.from,
            edge.to
        ));
    }
    for entry in allowed {
        if !used.contains(entry) {
            problems.insert(format!(
                "ALLOWED_UPWARD entry {entry:?} matches no import any more: remove it"
            ));
        }
    }
    problems.into_iter().collect()
}

/// Imports that lie on a cycle and are not in `allowed` (one problem per pair of nodes, naming
/// every import of the pair), and entries of `allowed` that lie on no cycle any more.
fn cycle_violations(edges: &[Edge], allowed: &[(&str, &str)]) -> Vec<String> {
    let on_cycle = cycle_edges(edges);
    let mut pairs: BTreeMap<(&str, &str), Vec<&Edge>> = BTreeMap::new();
    for edge in &on_cycle {
        pairs
            .entry((edge.from.as_str(), edge.to.as_str()))
            .or_default()
            .push(edge);
    }
    let mut problems = BTreeSet::new();
    for ((from, to), imports) in &pairs {
        if allowed.contains(&(*from, *to)) {
            continue;
        }
        let places: Vec<String> = imports.iter().map(|e| e.place()).collect();
        problems.insert(format!(
            "`{from}` imports from `{to}`, which imports back from it ({from} -> {}), a cycle:\n      {}",
            path_back(edges, to, from).join(" -> "),
            places.join("\n      ")
        ));
    }
    for (from, to) in allowed {
        if !pairs.contains_key(&(*from, *to)) {
            problems.insert(format!(
                "allowed cycle edge ({from:?}, {to:?}) lies on no cycle any more: remove it"
            ));
        }
    }
    problems.into_iter().collect()
}

/// A shortest path of nodes from `from` to `to` (both included), for messages.
fn path_back(edges: &[Edge], from: &str, to: &str) -> Vec<String> {
    let mut previous: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from]);
    let mut seen = BTreeSet::from([from]);
    while let Some(node) = queue.pop_front() {
        if node == to {
            let mut path = vec![to.to_string()];
            let mut at = to;
            while let Some(p) = previous.get(at) {
                path.push(p.to_string());
                at = p;
            }
            path.reverse();
            return path;
        }
        for edge in edges.iter().filter(|e| e.from == node) {
            if seen.insert(&edge.to) {
                previous.insert(&edge.to, node);
                queue.push_back(&edge.to);
            }
        }
    }
    Vec::new()
}

/// A function's length in lines.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FunctionLength {
    /// `src/engine/waves.rs::Analysed::analyse`: the file, inline modules, the impl's type or the
    /// trait, enclosing functions, and the function.
    name: String,
    line: usize,
    lines: usize,
}

struct FunctionCollector {
    file: String,
    scope: Vec<String>,
    found: Vec<FunctionLength>,
}

impl FunctionCollector {
    fn function(&mut self, sig: &syn::Signature, block: &syn::Block, body: impl FnOnce(&mut Self)) {
        let start = sig.fn_token.span.start().line;
        let end = block.brace_token.span.close().end().line;
        let mut name = vec![self.file.clone()];
        name.extend(self.scope.iter().cloned());
        name.push(sig.ident.to_string());
        self.found.push(FunctionLength {
            name: name.join("::"),
            line: start,
            lines: end + 1 - start,
        });
        self.scope.push(sig.ident.to_string());
        body(self);
        self.scope.pop();
    }
}

impl<'ast> Visit<'ast> for FunctionCollector {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        self.scope.push(item.ident.to_string());
        visit::visit_item_mod(self, item);
        self.scope.pop();
    }

    fn visit_item_impl(&mut self, item: &'ast syn::ItemImpl) {
        let name = match &*item.self_ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or("impl".to_string(), |s| s.ident.to_string()),
            _ => "impl".to_string(),
        };
        self.scope.push(name);
        visit::visit_item_impl(self, item);
        self.scope.pop();
    }

    fn visit_item_trait(&mut self, item: &'ast syn::ItemTrait) {
        self.scope.push(item.ident.to_string());
        visit::visit_item_trait(self, item);
        self.scope.pop();
    }

    fn visit_item_fn(&mut self, item: &'ast syn::ItemFn) {
        self.function(&item.sig, &item.block, |c| visit::visit_item_fn(c, item));
    }

    fn visit_impl_item_fn(&mut self, item: &'ast syn::ImplItemFn) {
        self.function(&item.sig, &item.block, |c| {
            visit::visit_impl_item_fn(c, item)
        });
    }

    fn visit_trait_item_fn(&mut self, item: &'ast syn::TraitItemFn) {
        match &item.default {
            Some(block) => {
                self.function(&item.sig, block, |c| visit::visit_trait_item_fn(c, item));
            }
            None => visit::visit_trait_item_fn(self, item),
        }
    }
}

fn function_lengths(path: &str, syntax: &syn::File) -> Vec<FunctionLength> {
    let mut collector = FunctionCollector {
        file: path.to_string(),
        scope: Vec::new(),
        found: Vec::new(),
    };
    collector.visit_file(syntax);
    collector.found
}

/// Functions over `max` lines that are not allowed, allowed ones outside `folders`, and allowed
/// ones that are gone or short enough now.
fn long_function_violations(
    functions: &[FunctionLength],
    max: usize,
    allowed: &[&str],
    folders: &[&str],
) -> Vec<String> {
    let mut problems = BTreeSet::new();
    for f in functions.iter().filter(|f| f.lines > max) {
        if !allowed.contains(&f.name.as_str()) {
            problems.insert(format!(
                "{} (line {}) is {} lines long, more than {max}: split it",
                f.name, f.line, f.lines
            ));
        }
    }
    for name in allowed {
        if !folders.iter().any(|folder| name.starts_with(folder)) {
            problems.insert(format!(
                "{name} is allow-listed outside {folders:?}: split it instead"
            ));
        }
        if !functions.iter().any(|f| f.name == *name && f.lines > max) {
            problems.insert(format!(
                "allow-listed {name} is no longer over {max} lines (or is gone): remove it"
            ));
        }
    }
    problems.into_iter().collect()
}

fn report(what: &str, problems: &[String]) {
    assert!(problems.is_empty(), "{what}:\n  {}", problems.join("\n  "));
}

// ---------------------------------------------------------------------------------------------
// The checks on `src/`.

#[test]
fn imports_go_down_the_layers() {
    let files = crate_sources();
    let edges = dependency_edges(&files, None);
    report(
        "imports that go up a layer",
        &layer_violations(&edges, LAYERS, ALLOWED_UPWARD),
    );
}

#[test]
fn the_top_level_modules_form_no_cycle() {
    let files = crate_sources();
    let edges = dependency_edges(&files, None);
    report("cycles between modules", &cycle_violations(&edges, &[]));
}

#[test]
fn every_top_level_module_has_a_layer() {
    let modules: BTreeSet<String> = crate_sources()
        .iter()
        .filter_map(|f| f.module.as_ref()?.first().cloned())
        .collect();
    let mut problems: Vec<String> = modules
        .iter()
        .filter(|m| !LAYERS.iter().any(|(name, _)| name == m))
        .map(|m| format!("module `{m}` has no layer: add it to LAYERS"))
        .collect();
    problems.extend(
        LAYERS
            .iter()
            .filter(|(name, _)| !modules.contains(*name))
            .map(|(name, _)| format!("LAYERS names `{name}`, which is no module: remove it")),
    );
    report("LAYERS and the modules of src/", &problems);
}

/// The folders of `src/`: every module path that has files under it (`analysis`,
/// `analysis::sends`, `rules::cancel_sends_response`, ...), and the crate root.
fn folders(files: &[SourceFile]) -> BTreeSet<Vec<String>> {
    files
        .iter()
        .filter_map(|f| f.module.as_ref())
        .flat_map(|m| (0..m.len()).map(move |n| m[..n].to_vec()))
        .collect()
}

#[test]
fn no_folder_has_an_import_cycle() {
    let files = crate_sources();
    let mut problems = Vec::new();
    let folders = folders(&files);
    assert!(
        folders.contains(&vec!["analysis".to_string()]),
        "{folders:?}"
    );
    assert!(folders.contains(&vec!["engine".to_string()]), "{folders:?}");
    for folder in &folders {
        let edges = dependency_edges(&files, Some(folder));
        let name = if folder.is_empty() {
            "src".to_string()
        } else {
            format!("src/{}", folder.join("/"))
        };
        problems.extend(
            cycle_violations(&edges, &[])
                .into_iter()
                .map(|p| format!("{name}/: {p}")),
        );
    }
    report("cycles between the files of a folder", &problems);
}

/// The file modules a file's paths reach (itself left out).
fn file_imports(files: &[SourceFile]) -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let modules = modules_of(files);
    let mut imports: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for file in files {
        let Some(module) = &file.module else { continue };
        let entry = imports.entry(module.clone()).or_default();
        for reference in references(&file.syntax, module, &modules) {
            if let Some(to) = file_module(&reference.target, &modules) {
                if to != module.as_slice() {
                    entry.insert(to.to_vec());
                }
            }
        }
    }
    imports
}

/// Who reads a file of `src/analysis/`: the rule families (`rules::<family>`, a folder or a
/// single rule's file) and the core's other readers (anything outside `rules/`, and the rules'
/// contract and registry), through other files of `src/analysis/` too.
fn readers_of_analysis(files: &[SourceFile]) -> BTreeMap<Vec<String>, BTreeSet<String>> {
    let imports = file_imports(files);
    let in_analysis = |m: &[String]| m.first().is_some_and(|f| f == "analysis");
    let reader = |m: &[String]| -> Option<String> {
        match m {
            [first, ..] if first == "analysis" => None,
            [first, family, ..] if first == "rules" && family != "contract" => {
                Some(format!("rules::{family}"))
            }
            _ => Some("core".to_string()),
        }
    };
    let mut readers: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in &imports {
        let Some(who) = reader(from) else { continue };
        // What `from` reads in src/analysis/, and what those files read there in turn.
        let mut stack: Vec<Vec<String>> =
            targets.iter().filter(|t| in_analysis(t)).cloned().collect();
        let mut seen = BTreeSet::new();
        while let Some(module) = stack.pop() {
            if !seen.insert(module.clone()) {
                continue;
            }
            readers
                .entry(module.clone())
                .or_default()
                .insert(who.clone());
            stack.extend(
                imports
                    .get(&module)
                    .into_iter()
                    .flatten()
                    .filter(|t| in_analysis(t))
                    .cloned(),
            );
        }
    }
    readers
}

/// What is wrong with the rule-free core: a file of `src/analysis/` that names a rule code
/// (`MCP` and three digits, in code or comments) or that only one rule family reads (and
/// nothing of the core).
fn core_violations(files: &[SourceFile], texts: &BTreeMap<String, String>) -> Vec<String> {
    let readers = readers_of_analysis(files);
    let mut problems = Vec::new();
    for file in files {
        let Some(module) = &file.module else { continue };
        if module.first().is_none_or(|f| f != "analysis") || module.len() == 1 {
            continue;
        }
        let text = texts
            .get(&file.path)
            .map(String::as_str)
            .unwrap_or_default();
        let names_code = text.match_indices("MCP").any(|(i, _)| {
            text[i + 3..]
                .chars()
                .take(3)
                .filter(char::is_ascii_digit)
                .count()
                == 3
        });
        let who = readers.get(module).cloned().unwrap_or_default();
        let single_family = !who.contains("core") && who.len() == 1;
        if !(names_code || single_family) {
            continue;
        }
        if names_code {
            problems.push(format!(
                "{} names a rule code: the core knows no rule",
                file.path
            ));
        }
        if single_family {
            problems.push(format!(
                "{} is read only by {}: it belongs in that family's room",
                file.path,
                who.iter().next().map(String::as_str).unwrap_or("?")
            ));
        }
    }
    problems.sort();
    problems
}

#[test]
fn the_analysis_core_knows_no_rule() {
    let files = crate_sources();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let texts: BTreeMap<String, String> = files
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(root.join(&f.path)).unwrap_or_default();
            (f.path.clone(), text)
        })
        .collect();
    report(
        "rule knowledge in src/analysis/",
        &core_violations(&files, &texts),
    );
}

#[test]
fn a_core_file_one_family_reads_or_that_names_a_code_is_reported() {
    let files = made_up(&[
        (
            "src/lib.rs",
            "pub mod analysis; pub mod rules; pub mod engine;",
        ),
        (
            "src/analysis/mod.rs",
            "pub mod walk; pub mod only_a; pub mod coded; pub mod shared;",
        ),
        ("src/analysis/walk.rs", "pub fn w() {}"),
        ("src/analysis/only_a.rs", "pub fn a() { super::walk::w(); }"),
        ("src/analysis/coded.rs", "pub fn c() {}"),
        ("src/analysis/shared.rs", "pub fn s() {}"),
        ("src/rules/mod.rs", "pub mod a; pub mod b;"),
        (
            "src/rules/a/mod.rs",
            "fn f() { crate::analysis::only_a::a(); crate::analysis::shared::s(); }",
        ),
        (
            "src/rules/b.rs",
            "fn f() { crate::analysis::shared::s(); crate::analysis::coded::c(); }",
        ),
        (
            "src/engine.rs",
            "fn f() { crate::analysis::walk::w(); crate::analysis::coded::c(); }",
        ),
    ]);
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    texts.insert(
        "src/analysis/coded.rs".into(),
        "// for MCP042\npub fn c() {}".into(),
    );
    let problems = core_violations(&files, &texts);
    assert_eq!(
        problems,
        [
            "src/analysis/coded.rs names a rule code: the core knows no rule",
            "src/analysis/only_a.rs is read only by rules::a: it belongs in that family's room",
        ]
    );
    // `walk` is read by the core (and, through `only_a`, by `rules::a`); `shared` by two
    // families: neither is reported.
}

#[test]
fn no_function_is_too_long() {
    let functions: Vec<FunctionLength> = crate_sources()
        .iter()
        .flat_map(|f| function_lengths(&f.path, &f.syntax))
        .collect();
    report(
        "functions that are too long",
        &long_function_violations(
            &functions,
            MAX_FUNCTION_LINES,
            LONG_FUNCTIONS,
            LONG_FUNCTION_FOLDERS,
        ),
    );
}

// ---------------------------------------------------------------------------------------------
// The checkers on made-up code: each can fail.

fn made_up(files: &[(&str, &str)]) -> Vec<SourceFile> {
    files.iter().map(|(path, text)| parse(path, text)).collect()
}

fn pairs(edges: &[Edge]) -> Vec<(String, String)> {
    edges
        .iter()
        .map(|e| (e.from.clone(), e.to.clone()))
        .collect()
}

#[test]
fn paths_resolve_from_where_they_are_written() {
    let files = made_up(&[
        ("src/lib.rs", "pub mod a; pub mod b;"),
        (
            "src/a/mod.rs",
            "pub mod inner; use inner::X; fn f() { let _ = self::inner::Y; }\n\
             fn r() { let _ = vec![inner::Z, std::inner::W]; }",
        ),
        (
            "src/a/inner.rs",
            "pub(super) fn g() { super::super::b::h(); }\n\
             mod tests { use super::*; fn t() { super::g(); } }",
        ),
        (
            "src/b.rs",
            "pub(crate) fn h() { assert!(matches!(1, crate::a::inner::K)); }",
        ),
    ]);
    let modules = modules_of(&files);
    let targets = |file: &SourceFile| -> Vec<String> {
        references(
            &file.syntax,
            file.module.as_deref().unwrap_or(&[]),
            &modules,
        )
        .into_iter()
        .map(|r| r.target.join("::"))
        .collect()
    };
    // A child module's path in a macro's tokens counts; a path's tail never starts one.
    assert_eq!(
        targets(&files[1]),
        ["a::inner::X", "a::inner::Y", "a::inner::Z"]
    );
    // `super::*` and `super::g` inside `mod tests` are the file's own module; the visibility
    // `pub(super)` is no dependency.
    assert_eq!(targets(&files[2]), ["b::h", "a::inner", "a::inner::g"]);
    assert_eq!(targets(&files[3]), ["a::inner::K"]);
    assert_eq!(
        pairs(&dependency_edges(&files, None)),
        [("a", "b"), ("b", "a")].map(|(a, b)| (a.to_string(), b.to_string()))
    );
    assert_eq!(
        pairs(&dependency_edges(&files, Some(&["a".to_string()]))),
        [("mod", "inner"), ("mod", "inner"), ("mod", "inner")]
            .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // Other crates, locals and a macro's `self.x` are not paths of the crate.
    let other = made_up(&[(
        "src/c.rs",
        "use std::fmt; struct S { x: u8 }\n\
         impl S { fn f(&self) { let x = 1; let _ = x; println!(\"{}\", self.x); } }",
    )]);
    assert!(dependency_edges(&other, None).is_empty());
}

#[test]
fn an_import_up_a_layer_is_reported_with_its_file_and_path() {
    let files = made_up(&[
        ("src/low.rs", "use crate::high::Thing;"),
        ("src/high.rs", "use crate::low::Other;"),
        ("src/side.rs", "fn f() { crate::high::g(); }"),
    ]);
    let edges = dependency_edges(&files, None);
    let layers = [("low", 0), ("high", 1), ("side", 1)];
    assert_eq!(
        layer_violations(&edges, &layers, &[]),
        ["src/low.rs:1: `crate::high::Thing`: `low` (layer 0) imports from `high` (layer 1), a higher layer"]
    );
    // Allowed, it passes; an allowance that matches nothing fails.
    assert!(layer_violations(&edges, &layers, &[("src/low.rs", "high")]).is_empty());
    assert_eq!(
        layer_violations(
            &edges,
            &[("low", 1), ("high", 1), ("side", 1)],
            &[("src/low.rs", "high")]
        ),
        ["ALLOWED_UPWARD entry (\"src/low.rs\", \"high\") matches no import any more: remove it"]
    );
    // A module without a layer.
    assert_eq!(
        layer_violations(&edges, &[("low", 0), ("high", 0)], &[]),
        ["module `side` has no layer: add it to LAYERS"]
    );
}

#[test]
fn a_cycle_inside_a_layer_is_reported_and_a_chain_is_not() {
    let cycle = made_up(&[
        ("src/a.rs", "use crate::b::X;"),
        ("src/b.rs", "use crate::c::Y;"),
        ("src/c.rs", "fn f() -> crate::a::Z { todo!() }"),
        ("src/d.rs", "use crate::a::Z;"),
    ]);
    let edges = dependency_edges(&cycle, None);
    let problems = cycle_violations(&edges, &[]);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert_eq!(
        problems[0],
        "`a` imports from `b`, which imports back from it (a -> b -> c -> a), a cycle:\n      \
         src/a.rs:1: `crate::b::X`"
    );
    // The edge from `d` is on no cycle; allowing the cycle's edges passes.
    assert!(cycle_violations(&edges, &[("a", "b"), ("b", "c"), ("c", "a")]).is_empty());
    // An allowance that lies on no cycle fails, so the list can only shrink.
    assert_eq!(
        cycle_violations(&edges, &[("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")]),
        ["allowed cycle edge (\"d\", \"a\") lies on no cycle any more: remove it"]
    );
    let chain = made_up(&[
        ("src/a.rs", "use crate::b::X;"),
        ("src/b.rs", "use crate::c::Y;"),
        ("src/c.rs", ""),
    ]);
    assert!(cycle_violations(&dependency_edges(&chain, None), &[]).is_empty());
}

#[test]
fn functions_are_measured_from_fn_to_the_closing_brace() {
    let body = |lines: usize| "    let _ = 1;\n".repeat(lines);
    let text = format!(
        "/// Docs do not count.\nfn short() {{\n{}}}\n\
         struct S;\nimpl S {{\n    fn long(&self) {{\n{}    }}\n}}\n\
         trait T {{ fn provided() {{\n{}}} fn required(); }}\n\
         mod m {{ fn outer() {{ let c = || {{\n{}}}; fn inner() {{}} }} }}\n",
        body(98),
        body(99),
        body(99),
        body(3),
    );
    let functions = function_lengths("src/x.rs", &syn::parse_file(&text).expect("parses"));
    let lengths: Vec<(&str, usize)> = functions
        .iter()
        .map(|f| (f.name.as_str(), f.lines))
        .collect();
    assert_eq!(
        lengths,
        [
            ("src/x.rs::short", 100),
            ("src/x.rs::S::long", 101),
            ("src/x.rs::T::provided", 101),
            ("src/x.rs::m::outer", 5),
            ("src/x.rs::m::outer::inner", 1),
        ]
    );
    assert_eq!(
        long_function_violations(&functions, 100, &[], &["src/rules/"]),
        [
            "src/x.rs::S::long (line 104) is 101 lines long, more than 100: split it",
            "src/x.rs::T::provided (line 206) is 101 lines long, more than 100: split it",
        ]
    );
}

#[test]
fn the_long_function_allow_list_only_shrinks_and_stays_in_its_folders() {
    let long = |name: &str, lines| FunctionLength {
        name: name.to_string(),
        line: 1,
        lines,
    };
    let functions = [
        long("src/rules/r.rs::check", 150),
        long("src/rules/r.rs::short", 20),
        long("src/cli.rs::run", 150),
    ];
    let folders = ["src/rules/"];
    assert_eq!(
        long_function_violations(&functions, 100, &["src/rules/r.rs::check"], &folders),
        ["src/cli.rs::run (line 1) is 150 lines long, more than 100: split it"]
    );
    assert_eq!(
        long_function_violations(
            &functions,
            100,
            &["src/rules/r.rs::check", "src/cli.rs::run", "src/rules/r.rs::short"],
            &folders
        ),
        [
            "allow-listed src/rules/r.rs::short is no longer over 100 lines (or is gone): remove it",
            "src/cli.rs::run is allow-listed outside [\"src/rules/\"]: split it instead",
        ]
    );
}
