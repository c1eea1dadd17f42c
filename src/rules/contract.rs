//! The rules' contract: what a rule is ([`Rule`]) and what it sees ([`RuleContext`]). The rules
//! import it; the registry (`rules/mod.rs`) imports the rules.

use std::collections::BTreeSet;

use crate::analysis::crate_graph::CrateGraph;
use crate::analysis::facts::FileFacts;
use crate::analysis::vocabulary::Vocabulary;
use crate::analysis::walk::Collects;
use crate::diagnostic::{Diagnostic, RuleMeta};
use crate::source::SourceMap;

/// What a rule sees: one crate's joined facts and the sources.
pub struct RuleContext<'a> {
    pub graph: &'a CrateGraph<'a>,
    pub sources: &'a SourceMap,
    pub settings: &'a crate::settings::Settings,
    /// The MCP SDK the crate uses, if known.
    pub sdk: Option<&'a crate::sdk::Sdk>,
    /// The unit is a cargo target (its first file is the target's root), not a set of paths.
    pub is_target: bool,
    /// The unit holds its whole crate: a target whose module tree was followed from its root
    /// (cargo mode), so a function no file of the unit calls or names is called from nowhere
    /// (not a set of paths, which may leave out the files that call it).
    pub whole_crate: bool,
    /// The unit is a test or bench target (test code throughout).
    pub is_test_target: bool,
    /// What the rules of a family share about the unit, built when one of them first asks
    /// (see [`Memo`]).
    pub memo: Memo,
    /// The files that `#[cfg(test)] mod x;` declarations load, and their children: test code.
    pub test_files: &'a std::collections::HashSet<crate::source::FileId>,
    /// The files compiled only with a feature the package's default build leaves off (loaded by
    /// a `#[cfg(feature = "x")] mod m;`): whether their code runs in the program users build is
    /// not shown.
    pub gated_files: &'a std::collections::HashSet<crate::source::FileId>,
    /// The files more than one program of the run compiles (two binaries' module trees, or a
    /// library several binaries use): a fix there changes each of them.
    pub shared_files: &'a std::collections::HashSet<crate::source::FileId>,
    /// The graphs of the libraries of the workspace's packages that the unit's package depends
    /// on by `path`, each with the crate name its code calls it by (`my_server` in
    /// `my_server::serve_stdio()`); none outside cargo mode.
    pub libraries: &'a [Library<'a>],
    /// The features the unit's package enables by default (`None`: unknown, or no manifest).
    pub default_features: crate::features::Enabled,
}

/// A library of the workspace by the crate name code calls it by, and its graph (see
/// [`RuleContext::libraries`]).
pub type Library<'a> = (&'a str, &'a CrateGraph<'a>);

impl RuleContext<'_> {
    /// Whether preview mode is on (`--preview`, or `preview = true` in the configuration). A
    /// preview rule runs only then, so it need not ask; a stable rule asks before reporting a
    /// shape that is still in preview (a new shape starts there, as ruff's do), so the shape is
    /// reported only in preview mode:
    ///
    /// ```text
    /// if shape_is_new && !context.preview() {
    ///     continue;
    /// }
    /// ```
    pub fn preview(&self) -> bool {
        self.settings.preview
    }

    /// Whether the unit serves MCP: it depends on an MCP SDK (its manifest, or its code's
    /// paths: `use rmcp::..`), holds a method dispatcher, or builds JSON-RPC messages
    /// (`"jsonrpc"`, `"2.0"`) for MCP methods (`"initialize"`, `"tools/list"`), the signature of
    /// a hand-written server: literals of code, not of a doc comment nor of a private constant
    /// nothing reads (see [`crate::analysis::dispatchers::DispatchFacts`]). The protocol rules
    /// other than MCP001 run only on such units, so ordinary crates of a workspace never get
    /// them.
    pub fn serves_mcp(&self) -> bool {
        self.sdk.is_some() || code_serves_mcp(self.graph)
    }

    /// Whether a dispatcher found in the code dispatches MCP methods: by the method names its
    /// arms spell out, or (for one that names them by constants) by the constants' values.
    pub fn is_method_dispatcher(
        &self,
        dispatcher: &crate::analysis::dispatch::MethodDispatcher,
    ) -> bool {
        is_method_dispatcher_in(self.graph, dispatcher)
    }

    /// Whether `file` is test or bench code: the unit is a test or bench target, or the file is
    /// loaded by a `#[cfg(test)] mod x;` declaration (or by one of such a file's children).
    /// What a directory is called (`tests/`, `benches/`) decides nothing: a product module in
    /// `src/server/tests/mod.rs` is product code (path mode places the files under a package's
    /// `tests/` and `benches/` in test targets of their own).
    pub fn is_test_file(&self, file: crate::source::FileId) -> bool {
        self.is_test_target || self.test_files.contains(&file)
    }

    /// Whether `file` is compiled only with a feature its package's default build leaves off.
    pub fn is_feature_gated(&self, file: crate::source::FileId) -> bool {
        self.gated_files.contains(&file)
    }

    /// Whether code that requires these features (`#[cfg(feature = "console")]` on a statement)
    /// is left out of the package's default build: one of them is not on by default. Unknown
    /// features (no manifest) leave nothing out.
    pub fn needs_features_off_by_default(&self, features: &[String]) -> bool {
        self.default_features
            .as_ref()
            .is_some_and(|on| features.iter().any(|f| !on.contains(f)))
    }

    /// Whether more than one program of the run compiles `file` (see
    /// [`RuleContext::shared_files`]).
    pub fn is_shared(&self, file: crate::source::FileId) -> bool {
        self.shared_files.contains(&file)
    }

    /// The method the unit reads into an enum variant (`Type::Variant`), if its code says one
    /// ([`crate::analysis::facts::FileFacts::method_variants`]; the first file's word counts
    /// where two disagree).
    pub fn variant_method(&self, variant: &str) -> Option<&str> {
        variant_method_in(self.graph, variant)
    }

    /// The value of a string constant of the unit, by name.
    pub fn string_const(&self, name: &str) -> Option<&str> {
        string_const_in(self.graph, name)
    }
}

/// Whether the code of a graph's files serves MCP, whatever its manifest says (see
/// [`RuleContext::serves_mcp`]): it names an SDK's paths (`use rmcp::..`), holds a method
/// dispatcher, or builds JSON-RPC messages for MCP methods.
pub fn code_serves_mcp(graph: &CrateGraph<'_>) -> bool {
    let files = graph.files();
    files.iter().any(|(_, f)| f.dispatch.names_sdk)
        || files
            .iter()
            .flat_map(|(_, f)| &f.dispatch.dispatchers)
            .any(|d| is_method_dispatcher_in(graph, d))
        || (files.iter().any(|(_, f)| f.dispatch.jsonrpc_literals)
            && files.iter().any(|(_, f)| f.dispatch.mcp_method_literals))
}

/// See [`RuleContext::is_method_dispatcher`].
fn is_method_dispatcher_in(
    graph: &CrateGraph<'_>,
    dispatcher: &crate::analysis::dispatch::MethodDispatcher,
) -> bool {
    if dispatcher.by_variants {
        return dispatcher
            .arms
            .iter()
            .flat_map(|arm| &arm.variants)
            .filter_map(|v| variant_method_in(graph, v))
            .any(crate::analysis::dispatch::is_mcp_method);
    }
    !dispatcher.by_constants
        || dispatcher
            .arms
            .iter()
            .flat_map(|arm| &arm.constants)
            .filter_map(|c| string_const_in(graph, c))
            .any(crate::analysis::dispatch::is_mcp_method)
}

/// See [`RuleContext::variant_method`].
fn variant_method_in<'g>(graph: &CrateGraph<'g>, variant: &str) -> Option<&'g str> {
    graph.files().iter().find_map(|(_, f)| {
        let pairs = &f.method_variants;
        let at = pairs.partition_point(|(v, _)| v.as_str() < variant);
        pairs
            .get(at)
            .filter(|(v, _)| v == variant)
            .map(|(_, m)| m.as_str())
    })
}

/// See [`RuleContext::string_const`].
fn string_const_in<'g>(graph: &CrateGraph<'g>, name: &str) -> Option<&'g str> {
    graph.files().iter().find_map(|(_, f)| {
        f.string_consts
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    })
}

pub trait Rule: Sync {
    fn meta(&self) -> &'static RuleMeta;
    fn check(&self, context: &RuleContext<'_>, out: &mut Vec<Diagnostic>);

    /// The facts only this rule reads, collected by its hook on the shared walk.
    fn collectors(&self) -> &'static [&'static dyn Collects] {
        &[]
    }

    /// Words without which a file holds nothing for this rule: a file that holds one is parsed
    /// (see [`crate::prefilter`]).
    fn words(&self, vocabulary: &Vocabulary) -> Vec<String> {
        let _ = vocabulary;
        Vec::new()
    }

    /// Words that make a file worth parsing for this rule only when it also speaks MCP.
    fn mcp_words(&self) -> &'static [&'static str] {
        &[]
    }

    /// What the parsed files say must be looked for in the files the pre-filter skipped (see
    /// [`crate::prefilter`]).
    fn follow_up(&self, facts: &[&FileFacts], vocabulary: &Vocabulary) -> BTreeSet<String> {
        let _ = (facts, vocabulary);
        BTreeSet::new()
    }
}

/// What the rules of a family share about a unit (the stdio family's serving path, say): each
/// kind of value built once per unit, when a rule first asks for it, and handed out again to the
/// family's other rules. Keyed by the value's type, so a family keeps its types to itself.
#[derive(Default)]
pub struct Memo(std::cell::RefCell<Vec<std::rc::Rc<dyn std::any::Any>>>);

impl Memo {
    /// The unit's value of type `T`, built by `init` the first time one is asked for.
    pub fn get_or_init<T: 'static>(&self, init: impl FnOnce() -> T) -> std::rc::Rc<T> {
        let known = self
            .0
            .borrow()
            .iter()
            .find_map(|value| value.clone().downcast::<T>().ok());
        if let Some(value) = known {
            return value;
        }
        // Built without holding the table: `init` may ask for another value.
        let value = std::rc::Rc::new(init());
        self.0.borrow_mut().push(value.clone());
        value
    }
}
