//! The shared walk over a file's syntax tree.
//!
//! The walker visits every node once, in `syn`'s order, keeps the scope the node lies in
//! (enclosing functions, impls and traits, test code, the parent node, macro bodies) and
//! hands each node to every hook, once when it is entered and once when it is left. A hook is
//! the facts one rule (or the shared layer) collects from a file: it reads the node, looks at
//! the scope, keeps its own state, and writes its facts when the walk ends. A rule that is not
//! enabled gives no hook, so it costs nothing.

use syn::visit::{self, Visit};

use super::facts::FileFacts;
use super::spans::Bounds;
use super::syntax::{self, MacroBody, SelectArm};
use super::vocabulary::{self as vocab, Vocabulary};
use crate::source::ByteSpan;
use crate::unit::InlineModule;

/// A node of the syntax tree, as hooks see it.
#[derive(Clone, Copy)]
pub enum Node<'ast> {
    Item(&'ast syn::Item),
    ImplItem(&'ast syn::ImplItem),
    TraitItem(&'ast syn::TraitItem),
    Block(&'ast syn::Block),
    Stmt(&'ast syn::Stmt),
    Local(&'ast syn::Local),
    Expr(&'ast syn::Expr),
    Arm(&'ast syn::Arm),
    /// A macro invocation's path and tokens (in an expression, a statement or an item).
    Macro(&'ast syn::Macro),
    LitStr(&'ast syn::LitStr),
    /// Every path: in expressions, types, patterns and attributes.
    Path(&'ast syn::Path),
    UsePath(&'ast syn::UsePath),
    /// A macro's body read as code (the child of its [`Node::Macro`], see
    /// [`Hook::reads_macro_body`]): its expressions or statements are its children.
    Body(&'ast ParsedBody),
    /// A branch of a `select!` (the children of its [`Node::Body`]).
    SelectArm(&'ast SelectArm),
}

/// A function (free, in an impl, or a trait's) that encloses the current node.
#[derive(Clone, Copy)]
pub struct Function<'ast> {
    pub sig: &'ast syn::Signature,
    pub attrs: &'ast [syn::Attribute],
    /// The whole function, attributes included.
    pub span: ByteSpan,
}

impl Function<'_> {
    pub fn name(&self) -> String {
        self.sig.ident.to_string()
    }
}

/// An enclosing `impl` (its self type's last segment, its trait's) or `trait` (its name).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImplScope {
    pub self_ty: Option<String>,
    pub trait_name: Option<String>,
}

/// Where the current node lies.
pub struct Scope<'ast> {
    /// Added to every byte offset (a byte order mark or shebang line cut off before parsing).
    pub base: usize,
    parents: Vec<Node<'ast>>,
    functions: Vec<Function<'ast>>,
    impls: Vec<ImplScope>,
    test_depth: usize,
    macro_depth: usize,
    /// How many expansions of the file's own macros the current node lies in.
    expansion_depth: usize,
    /// The inline modules (`mod x { .. }`) around the current node, outermost first.
    modules: Vec<InlineModule>,
    /// Per enclosing region: whether it is a function's body (see
    /// [`Scope::in_function_body`]).
    regions: Vec<bool>,
    /// The macro being entered is a `vec![..]` whose elements the walk visits as code.
    plain_macro: bool,
}

impl<'ast> Scope<'ast> {
    fn new(base: usize) -> Self {
        Scope {
            base,
            parents: Vec::new(),
            functions: Vec::new(),
            impls: Vec::new(),
            test_depth: 0,
            macro_depth: 0,
            expansion_depth: 0,
            modules: Vec::new(),
            regions: Vec::new(),
            plain_macro: false,
        }
    }

    /// The same scope, for nodes that live less long (a macro body parsed during the walk).
    fn narrowed<'b>(&self) -> Scope<'b>
    where
        'ast: 'b,
    {
        Scope {
            base: self.base,
            parents: self.parents.clone(),
            functions: self.functions.clone(),
            impls: self.impls.clone(),
            test_depth: self.test_depth,
            macro_depth: self.macro_depth,
            expansion_depth: self.expansion_depth,
            modules: self.modules.clone(),
            regions: self.regions.clone(),
            plain_macro: false,
        }
    }

    /// Whether the current node is part of a function's body: code that runs when the function
    /// is called. Not a function's signature or attributes, a constant's or static's
    /// initialiser, a struct, a type, an item macro, nor a macro in a type or a pattern.
    pub fn in_function_body(&self) -> bool {
        self.regions.last().copied().unwrap_or(false)
    }

    /// The inline modules (`mod x { .. }`) around the current node, outermost first.
    pub fn inline_modules(&self) -> &[InlineModule] {
        &self.modules
    }

    /// Whether the macro being entered is a `vec![..]` whose elements the walk visits as code,
    /// as an array's (its tokens need not be read on their own).
    pub fn macro_body_is_code(&self) -> bool {
        self.plain_macro
    }

    /// Whether the current node lies in a macro's body, read as code (see
    /// [`Hook::reads_macro_body`]).
    pub fn in_macro_body(&self) -> bool {
        self.macro_depth > 0
    }

    /// Whether the current node lies in the body of a macro that is not one of the file's own
    /// (`println!`, `select!`, a crate's macro), read as code: inside expansions of the file's
    /// own macros alone, the node is code as the compiler sees it.
    pub fn in_foreign_macro_body(&self) -> bool {
        self.macro_depth > self.expansion_depth
    }

    /// How many bodies of macros that are not the file's own the current node lies in (see
    /// [`Scope::in_foreign_macro_body`]): a hook that reads some of them as code (the branches
    /// of a `select!`) counts those it entered against this.
    pub fn foreign_macro_depth(&self) -> usize {
        self.macro_depth.saturating_sub(self.expansion_depth)
    }

    /// Whether the current node is code a macro of the file stands for (its expansion, see
    /// [`super::macros`]): removing it means removing the invocation, whatever else it does.
    pub fn in_expansion(&self) -> bool {
        self.expansion_depth > 0
    }

    /// The byte span of a node in the file's text.
    pub fn span(&self, node: &impl Bounds) -> ByteSpan {
        let (first, last) = node.bounds();
        self.raw_span(first, last)
    }

    /// The byte span from one token to another.
    pub fn raw_span(&self, first: proc_macro2::Span, last: proc_macro2::Span) -> ByteSpan {
        super::spans::byte_span(first, last, self.base)
    }

    /// For a macro that stands for code (the current node, in a statement or an expression),
    /// the span of that statement or expression.
    pub fn macro_site(&self, mac: &syn::Macro) -> Option<ByteSpan> {
        match self.parent()? {
            Node::Stmt(syn::Stmt::Macro(_)) => Some(self.span(mac)),
            Node::Expr(expr @ syn::Expr::Macro(_)) => Some(self.span(expr)),
            _ => None,
        }
    }

    /// The node `n` levels above the current one (`0` is its parent).
    pub fn ancestor(&self, n: usize) -> Option<Node<'ast>> {
        let len = self.parents.len();
        len.checked_sub(n + 1)
            .and_then(|i| self.parents.get(i).copied())
    }

    /// The node that holds the current one.
    pub fn parent(&self) -> Option<Node<'ast>> {
        self.parents.last().copied()
    }

    /// The innermost enclosing function.
    pub fn function(&self) -> Option<&Function<'ast>> {
        self.functions.last()
    }

    /// The innermost enclosing impl or trait.
    pub fn impl_scope(&self) -> Option<&ImplScope> {
        self.impls.last()
    }

    /// Whether the current node is test code: inside an item (function, module, impl, trait)
    /// marked `#[test]`, `#[cfg(test)]` or a test macro attribute.
    pub fn in_test(&self) -> bool {
        self.test_depth > 0
    }

    /// The features the statements and functions around the current node require
    /// (`#[cfg(feature = "console")] { .. }`, `#[cfg(feature = "mcp")] fn serve() { .. }`).
    pub fn required_features(&self) -> Vec<String> {
        let mut features = Vec::new();
        for n in 0.. {
            let attrs: &[syn::Attribute] = match self.ancestor(n) {
                None => break,
                Some(Node::Stmt(stmt)) => stmt_attrs(stmt),
                Some(Node::Item(syn::Item::Fn(f))) => &f.attrs,
                Some(Node::ImplItem(syn::ImplItem::Fn(f))) => &f.attrs,
                Some(_) => continue,
            };
            features.extend(super::syntax::cfg_required_features(attrs));
        }
        features
    }
}

/// What one rule (or the shared layer) collects from a file during the walk. Nodes are lent for
/// the call only (those of macro bodies live no longer than the macro's visit).
pub trait Hook {
    /// Whether the walk must read the body of the macro `name` (`select`, `println`, ...) as
    /// code: reading costs a parse, so a hook asks only for the macros it needs. When a hook
    /// wants a body, all hooks are shown it ([`Scope::in_macro_body`] tells them apart).
    fn reads_macro_body(&self, name: &str) -> bool {
        let _ = name;
        false
    }

    /// Whether the walk must expand the file's own `macro_rules!` macros where they are invoked
    /// for this hook, whatever their names (see [`super::macros`]).
    fn reads_expansions(&self) -> bool {
        false
    }

    /// A node is entered: its children have not been visited yet.
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let _ = (node, scope);
    }

    /// A node is left: its children have been visited.
    fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        let _ = (node, scope);
    }

    /// The walk is over: write what was collected.
    fn finish(self: Box<Self>, facts: &mut FileFacts);
}

/// Makes a rule's hook for a file. `text` is the whole file and `base` where its code starts
/// (to add to every byte offset); a collector that can tell from the text that it will find
/// nothing gives no hook.
pub trait Collects: Sync {
    /// The key of its facts in [`FileFacts::rules`] (the rule's code), also part of the cache key.
    fn key(&self) -> &'static str;

    fn hook<'a>(
        &self,
        text: &'a str,
        base: usize,
        vocabulary: &'a Vocabulary,
    ) -> Option<Box<dyn Hook + 'a>>;
}

use super::syntax::is_test_item;

/// The attributes of a statement: a `let`'s, a macro statement's, or an expression statement's
/// (for the expressions that statements with attributes usually are).
fn stmt_attrs(stmt: &syn::Stmt) -> &[syn::Attribute] {
    match stmt {
        syn::Stmt::Local(local) => &local.attrs,
        syn::Stmt::Macro(mac) => &mac.attrs,
        syn::Stmt::Expr(expr, _) => match expr {
            syn::Expr::Block(e) => &e.attrs,
            syn::Expr::Call(e) => &e.attrs,
            syn::Expr::MethodCall(e) => &e.attrs,
            syn::Expr::Macro(e) => &e.attrs,
            syn::Expr::If(e) => &e.attrs,
            syn::Expr::Match(e) => &e.attrs,
            syn::Expr::Assign(e) => &e.attrs,
            syn::Expr::ForLoop(e) => &e.attrs,
            syn::Expr::While(e) => &e.attrs,
            syn::Expr::Loop(e) => &e.attrs,
            _ => &[],
        },
        syn::Stmt::Item(_) => &[],
    }
}

/// Walk a file once, handing every node to every hook, then let each hook write its facts.
pub fn walk<'h>(
    file: &syn::File,
    base: usize,
    hooks: Vec<Box<dyn Hook + 'h>>,
    facts: &mut FileFacts,
) {
    if hooks.is_empty() {
        return;
    }
    let mut walker = Walker {
        scope: Scope::new(base),
        hooks,
        macros: super::macros::LocalMacros::default(),
        expansions: 0,
    };
    walker.visit_file(file);
    for hook in walker.hooks {
        hook.finish(facts);
    }
}

struct Walker<'ast, 'h> {
    scope: Scope<'ast>,
    hooks: Vec<Box<dyn Hook + 'h>>,
    /// The file's own `macro_rules!` macros defined so far (a macro is known after its
    /// definition, as in the compiler), expanded where invoked.
    macros: super::macros::LocalMacros,
    /// How many expansions the walk did so far (see [`super::macros::MAX_EXPANSIONS`]).
    expansions: usize,
}

/// A macro's body read as code.
pub enum ParsedBody {
    Select(Vec<SelectArm>),
    Exprs(Vec<syn::Expr>),
    Stmts(Vec<syn::Stmt>),
}

/// How the walk reads a macro's body: `select!` as its branches; the writing macros
/// (`println!`, `write!`) as their arguments; every other macro in an expression or a statement
/// as expressions or statements, except those that only log, format or assert; `json!` as the
/// values of its JSON that do something (see [`syntax::json_values`]). Macros that stand for items (`macro_rules!` definitions, `cfg_x! { fn
/// .. }` in a module or an impl), types or patterns are not read.
fn parse_body(mac: &syn::Macro, in_code: bool, hooks: &[Box<dyn Hook + '_>]) -> Option<ParsedBody> {
    if !in_code {
        return None;
    }
    let name = syntax::macro_name(mac);
    // A `json!`'s values that do something are code, whoever reads macro bodies (its JSON
    // structure is not).
    if name == "json" {
        let values = syntax::json_values(&mac.tokens);
        return (!values.is_empty()).then_some(ParsedBody::Exprs(values));
    }
    if vocab::QUIET_MACROS.contains(&name.as_str()) {
        return None;
    }
    // A `vec![..]`'s elements are code as an array's are, whoever reads macro bodies.
    if name != "vec" && !hooks.iter().any(|h| h.reads_macro_body(&name)) {
        return None;
    }
    if syntax::is_select_macro(&name) {
        if let Some(arms) = syntax::parse_select(mac) {
            return Some(ParsedBody::Select(arms));
        }
    }
    match syntax::parse_macro_body(&mac.tokens)? {
        MacroBody::Exprs(exprs) => Some(ParsedBody::Exprs(exprs)),
        MacroBody::Stmts(_) if vocab::WRITE_MACROS.contains(&name.as_str()) => None,
        MacroBody::Stmts(stmts) => Some(ParsedBody::Stmts(stmts)),
    }
}

/// How entering a node changed the scope, to be undone when it is left.
#[derive(Default)]
struct Entered {
    function: bool,
    impl_scope: bool,
    test: bool,
    module: bool,
    /// The node opens a region: a function's body (`true`) or code that is not one (`false`).
    region: Option<bool>,
    /// The node is a `vec![..]` whose elements are visited as code.
    plain_macro: bool,
}

impl<'ast, 'h> Walker<'ast, 'h> {
    /// The code an invocation of one of the file's own macros stands for, read as statements
    /// or expressions (see [`super::macros`]), within the walk's bounds.
    fn expansion(&mut self, mac: &syn::Macro, in_code: bool) -> Option<ParsedBody> {
        if !in_code
            || self.macros.is_empty()
            || self.scope.macro_depth >= super::macros::MAX_DEPTH
            || self.expansions >= super::macros::MAX_EXPANSIONS
        {
            return None;
        }
        let name = mac.path.get_ident()?.to_string();
        if !self.macros.defines(&name)
            || !self
                .hooks
                .iter()
                .any(|h| h.reads_expansions() || h.reads_macro_body(&name))
        {
            return None;
        }
        self.expansions += 1;
        let tokens = self.macros.expand(mac)?;
        match syntax::parse_macro_body(&tokens)? {
            MacroBody::Exprs(exprs) => Some(ParsedBody::Exprs(exprs)),
            MacroBody::Stmts(stmts) => Some(ParsedBody::Stmts(stmts)),
        }
    }

    /// Visit a macro body parsed during the walk, with the hooks and a copy of the scope. The
    /// elements of a `vec![..]` are code as an array's are (`plain`): they are not a macro's body.
    fn visit_body(&mut self, body: &ParsedBody, expansion: bool, plain: bool) {
        let mut inner = Walker {
            scope: self.scope.narrowed(),
            hooks: std::mem::take(&mut self.hooks),
            macros: std::mem::take(&mut self.macros),
            expansions: self.expansions,
        };
        inner.scope.macro_depth += usize::from(!plain);
        inner.scope.expansion_depth += usize::from(expansion);
        inner.around(Node::Body(body), Entered::default(), |inner| match body {
            ParsedBody::Select(arms) => {
                for arm in arms {
                    inner.around(Node::SelectArm(arm), Entered::default(), |w| {
                        if let Some(pattern) = &arm.pattern {
                            w.visit_pat(pattern);
                        }
                        if let Some(future) = &arm.future {
                            w.visit_expr(future);
                        }
                        if let Some(guard) = &arm.guard {
                            w.visit_expr(guard);
                        }
                        w.visit_expr(&arm.handler);
                    });
                }
            }
            ParsedBody::Exprs(exprs) => exprs.iter().for_each(|e| inner.visit_expr(e)),
            ParsedBody::Stmts(stmts) => stmts.iter().for_each(|s| inner.visit_stmt(s)),
        });
        self.hooks = inner.hooks;
        self.macros = inner.macros;
        self.expansions = inner.expansions;
    }

    /// Hand `node` to the hooks, visit its children with `children`, and hand it to them again.
    fn around(&mut self, node: Node<'ast>, entered: Entered, children: impl FnOnce(&mut Self)) {
        if entered.test {
            self.scope.test_depth += 1;
        }
        if let Some(region) = entered.region {
            self.scope.regions.push(region);
        }
        self.scope.plain_macro = entered.plain_macro;
        for hook in &mut self.hooks {
            hook.enter(node, &self.scope);
        }
        self.scope.plain_macro = false;
        self.scope.parents.push(node);
        children(self);
        self.scope.parents.pop();
        for hook in &mut self.hooks {
            hook.leave(node, &self.scope);
        }
        if entered.test {
            self.scope.test_depth -= 1;
        }
        if entered.region.is_some() {
            self.scope.regions.pop();
        }
        if entered.module {
            self.scope.modules.pop();
        }
        if entered.function {
            self.scope.functions.pop();
        }
        if entered.impl_scope {
            self.scope.impls.pop();
        }
    }

    fn enter_function(
        &mut self,
        sig: &'ast syn::Signature,
        attrs: &'ast [syn::Attribute],
        span: ByteSpan,
    ) -> Entered {
        self.scope.functions.push(Function { sig, attrs, span });
        Entered {
            function: true,
            test: is_test_item(attrs),
            region: Some(false),
            ..Entered::default()
        }
    }

    fn enter_impl(&mut self, self_ty: Option<String>, trait_name: Option<String>) {
        self.scope.impls.push(ImplScope {
            self_ty,
            trait_name,
        });
    }
}

/// A macro's identity while it is visited (its address), to tell its body from another's.
pub fn macro_key(mac: &syn::Macro) -> usize {
    mac as *const syn::Macro as usize
}

/// Whether `node` is the body of the function its parent `parent` is.
pub fn is_function_body(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    let Node::Block(block) = node else {
        return false;
    };
    match parent {
        Some(Node::Item(syn::Item::Fn(f))) => std::ptr::eq(&*f.block, block),
        Some(Node::ImplItem(syn::ImplItem::Fn(f))) => std::ptr::eq(&f.block, block),
        Some(Node::TraitItem(syn::TraitItem::Fn(f))) => {
            f.default.as_ref().is_some_and(|b| std::ptr::eq(b, block))
        }
        _ => false,
    }
}

/// The value of a `#[path = ".."]` attribute.
pub fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| match &attr.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => syntax::str_literal(&nv.value),
        _ => None,
    })
}

fn last_ident(path: &syn::Path) -> Option<String> {
    path.segments.last().map(|s| s.ident.to_string())
}

impl<'ast> Visit<'ast> for Walker<'ast, '_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let entered = match item {
            syn::Item::Fn(f) => {
                let span = self.scope.span(f);
                self.enter_function(&f.sig, &f.attrs, span)
            }
            syn::Item::Impl(i) => {
                let self_ty = match &*i.self_ty {
                    syn::Type::Path(p) => last_ident(&p.path),
                    _ => None,
                };
                let trait_name = i.trait_.as_ref().and_then(|(_, path, _)| last_ident(path));
                self.enter_impl(self_ty, trait_name);
                Entered {
                    impl_scope: true,
                    test: is_test_item(&i.attrs),
                    ..Entered::default()
                }
            }
            syn::Item::Trait(t) => {
                self.enter_impl(None, Some(t.ident.to_string()));
                Entered {
                    impl_scope: true,
                    test: is_test_item(&t.attrs),
                    ..Entered::default()
                }
            }
            syn::Item::Mod(m) => {
                if m.content.is_some() {
                    self.scope.modules.push(InlineModule {
                        name: m.ident.to_string(),
                        path_attr: path_attribute(&m.attrs),
                    });
                }
                Entered {
                    test: is_test_item(&m.attrs),
                    module: m.content.is_some(),
                    ..Entered::default()
                }
            }
            syn::Item::Const(_) | syn::Item::Static(_) | syn::Item::Struct(_) => Entered {
                region: Some(false),
                ..Entered::default()
            },
            _ => Entered::default(),
        };
        self.around(Node::Item(item), entered, |w| visit::visit_item(w, item));
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let entered = match item {
            syn::ImplItem::Fn(f) => {
                let span = self.scope.span(f);
                self.enter_function(&f.sig, &f.attrs, span)
            }
            syn::ImplItem::Const(_) => Entered {
                region: Some(false),
                ..Entered::default()
            },
            _ => Entered::default(),
        };
        self.around(Node::ImplItem(item), entered, |w| {
            visit::visit_impl_item(w, item)
        });
    }

    fn visit_trait_item(&mut self, item: &'ast syn::TraitItem) {
        let entered = match item {
            syn::TraitItem::Fn(f) => {
                let span = self.scope.span(f);
                self.enter_function(&f.sig, &f.attrs, span)
            }
            _ => Entered::default(),
        };
        self.around(Node::TraitItem(item), entered, |w| {
            visit::visit_trait_item(w, item)
        });
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        let entered = Entered {
            region: is_function_body(Node::Block(block), self.scope.parent()).then_some(true),
            ..Entered::default()
        };
        self.around(Node::Block(block), entered, |w| {
            visit::visit_block(w, block)
        });
    }

    /// A statement compiled only for tests (`#[cfg(test)] println!(..);`) is test code.
    fn visit_stmt(&mut self, stmt: &'ast syn::Stmt) {
        let entered = Entered {
            test: stmt_attrs(stmt).iter().any(super::syntax::is_test_cfg),
            ..Entered::default()
        };
        self.around(Node::Stmt(stmt), entered, |w| visit::visit_stmt(w, stmt));
    }

    fn visit_local(&mut self, local: &'ast syn::Local) {
        self.around(Node::Local(local), Entered::default(), |w| {
            visit::visit_local(w, local)
        });
    }

    fn visit_expr(&mut self, expr: &'ast syn::Expr) {
        self.around(Node::Expr(expr), Entered::default(), |w| {
            visit::visit_expr(w, expr)
        });
    }

    /// A type is not code that runs (a constant expression in it is evaluated when compiling).
    fn visit_type(&mut self, ty: &'ast syn::Type) {
        self.scope.regions.push(false);
        visit::visit_type(self, ty);
        self.scope.regions.pop();
    }

    /// An assignment's value is visited before the place it is assigned to, in the order they
    /// are evaluated.
    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        for attr in &assign.attrs {
            self.visit_attribute(attr);
        }
        self.visit_expr(&assign.right);
        self.visit_expr(&assign.left);
    }

    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.around(Node::Arm(arm), Entered::default(), |w| {
            visit::visit_arm(w, arm)
        });
    }

    fn visit_item_macro(&mut self, item: &'ast syn::ItemMacro) {
        self.macros.define(item);
        visit::visit_item_macro(self, item);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        // A macro in a type or a pattern (or an item macro) is not code that runs.
        let in_code = matches!(
            self.scope.parent(),
            Some(Node::Stmt(syn::Stmt::Macro(_)) | Node::Expr(syn::Expr::Macro(_)))
        );
        let expanded = self.expansion(mac, in_code);
        let is_expansion = expanded.is_some();
        let body = expanded.or_else(|| parse_body(mac, in_code, &self.hooks));
        let exprs = !is_expansion && matches!(body, Some(ParsedBody::Exprs(_)));
        let plain = exprs && mac.path.is_ident("vec");
        // A `json!`'s values are code as well, but its tokens are still read on their own (its
        // keys and literals, which the walk does not visit).
        let as_code = plain || (exprs && syntax::macro_name(mac) == "json");
        let entered = Entered {
            region: (!in_code).then_some(false),
            plain_macro: plain,
            ..Entered::default()
        };
        self.around(Node::Macro(mac), entered, |w| {
            visit::visit_macro(w, mac);
            if let Some(body) = &body {
                w.visit_body(body, is_expansion, as_code);
            }
        });
    }

    /// A doc comment (`///`, `//!`, `/** */`, which `syn` reads as `#[doc = ".."]`) is a
    /// comment: no hook is shown its text, whatever words it holds.
    fn visit_attribute(&mut self, attr: &'ast syn::Attribute) {
        if !attr.path().is_ident("doc") {
            visit::visit_attribute(self, attr);
        }
    }

    fn visit_lit_str(&mut self, lit: &'ast syn::LitStr) {
        self.around(Node::LitStr(lit), Entered::default(), |_| {});
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        self.around(Node::Path(path), Entered::default(), |w| {
            visit::visit_path(w, path)
        });
    }

    fn visit_use_path(&mut self, path: &'ast syn::UsePath) {
        self.around(Node::UsePath(path), Entered::default(), |w| {
            visit::visit_use_path(w, path)
        });
    }
}

/// The `select!` bodies a hook lies in, for a hook that reads their branches as code (the
/// dispatchers' and the `id` tests' collectors) and no other foreign macro's body: whether each
/// node it enters or leaves is code for it.
#[derive(Debug, Default)]
pub struct SelectBranches {
    depth: usize,
}

impl SelectBranches {
    /// A node is entered: whether it is code (a `select!` body counts from its own node on).
    pub fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) -> bool {
        if let Node::Body(ParsedBody::Select(_)) = node {
            self.depth += 1;
        }
        scope.foreign_macro_depth() <= self.depth
    }

    /// A node is left: whether it was code (as [`SelectBranches::enter`] said).
    pub fn leave(&mut self, node: Node<'_>, scope: &Scope<'_>) -> bool {
        let code = scope.foreign_macro_depth() <= self.depth;
        if let Node::Body(ParsedBody::Select(_)) = node {
            self.depth = self.depth.saturating_sub(1);
        }
        code
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Records what it is shown, as text.
    struct Recorder {
        seen: Vec<String>,
    }

    impl Hook for Recorder {
        fn reads_macro_body(&self, _: &str) -> bool {
            true
        }

        fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
            let function = scope.function().map(|f| f.name()).unwrap_or_default();
            let what = match node {
                Node::Expr(syn::Expr::Call(_)) if scope.in_macro_body() => "call in macro",
                Node::Expr(syn::Expr::Call(_)) => "call",
                Node::LitStr(_) => "str",
                Node::Macro(_) => "macro",
                _ => return,
            };
            self.seen
                .push(format!("{what} in {function} test={}", scope.in_test()));
        }

        fn finish(self: Box<Self>, facts: &mut FileFacts) {
            facts.string_consts = vec![("seen".into(), self.seen.join("; "))];
        }
    }

    #[test]
    fn hooks_see_nodes_with_their_scope() {
        let file: syn::File = syn::parse_str(
            "fn a() { f(\"x\"); }\n#[cfg(test)] mod t { fn b() { g(); } }\nimpl S { fn c() { println!(\"y\"); } }",
        )
        .expect("parses");
        let mut facts = FileFacts::default();
        let hooks: Vec<Box<dyn Hook>> = vec![Box::new(Recorder { seen: Vec::new() })];
        walk(&file, 0, hooks, &mut facts);
        assert_eq!(
            facts.string_consts[0].1,
            "call in a test=false; str in a test=false; call in b test=true; macro in c test=false; str in c test=false"
        );
    }

    #[test]
    fn doc_comments_are_not_shown() {
        let file: syn::File = syn::parse_str(
            "//! ping\n/// initialize\n#[doc = \"jsonrpc\"]\n/** 2.0 */\n#[path = \"x.rs\"]\nfn a() {\n    /// tools/list\n    let _ = 1;\n}",
        )
        .expect("parses");
        let mut facts = FileFacts::default();
        let hooks: Vec<Box<dyn Hook>> = vec![Box::new(Recorder { seen: Vec::new() })];
        walk(&file, 0, hooks, &mut facts);
        // Only the `#[path]` attribute's string.
        assert_eq!(facts.string_consts[0].1, "str in a test=false");
    }

    #[test]
    fn macro_bodies_are_read_as_code() {
        let file: syn::File = syn::parse_str(
            "fn a() { tokio::select! { _ = t.cancelled() => f(1), v = rx.recv() => g(v) } println!(\"{}\", h()); info!(\"{}\", q()); }\nmacro_rules! m { () => { x() } }",
        )
        .expect("parses");
        let mut facts = FileFacts::default();
        let hooks: Vec<Box<dyn Hook>> = vec![Box::new(Recorder { seen: Vec::new() })];
        walk(&file, 0, hooks, &mut facts);
        let seen = &facts.string_consts[0].1;
        // `f(1)`, `g(v)` and `h()`; not `q()` (a log) nor `x()` (a macro definition).
        assert_eq!(seen.matches("call in macro").count(), 3, "{seen}");
        assert!(!seen.contains("call in a"), "{seen}");
    }

    /// Records the calls it is shown in function bodies, by callee, and what holds each.
    struct Calls {
        seen: Vec<String>,
    }

    impl Hook for Calls {
        fn reads_macro_body(&self, _: &str) -> bool {
            true
        }

        fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
            let Node::Expr(syn::Expr::Call(call)) = node else {
                return;
            };
            if !scope.in_function_body() {
                return;
            }
            let callee = quote::ToTokens::to_token_stream(&call.func).to_string();
            let holder = match scope.parent() {
                Some(Node::Body(_)) => " in a macro body",
                _ => "",
            };
            let modules: Vec<String> = scope
                .inline_modules()
                .iter()
                .map(|m| m.name.clone())
                .collect();
            let modules = if modules.is_empty() {
                String::new()
            } else {
                format!(" in {}", modules.join("::"))
            };
            self.seen.push(format!("{callee}{holder}{modules}"));
        }

        fn finish(self: Box<Self>, facts: &mut FileFacts) {
            facts.string_consts = vec![("seen".into(), self.seen.join("; "))];
        }
    }

    fn calls_seen(code: &str) -> String {
        let file: syn::File = syn::parse_str(code).expect("parses");
        let mut facts = FileFacts::default();
        let hooks: Vec<Box<dyn Hook>> = vec![Box::new(Calls { seen: Vec::new() })];
        walk(&file, 0, hooks, &mut facts);
        facts.string_consts[0].1.clone()
    }

    #[test]
    fn only_code_that_runs_is_in_a_function_body() {
        let seen = calls_seen(
            "const C: usize = c();\n\
             #[doc = d()] fn a(x: [u8; g()]) -> [u8; r()] { h(); let y: [u8; k()] = q(); }\n\
             impl S { cfg_x! { fn m() { n(); } } }\n\
             mod inner { fn b() { vec![v()]; } }",
        );
        assert_eq!(seen, "h; q; v in a macro body in inner");
    }

    #[test]
    fn an_assigned_value_is_visited_before_its_place() {
        assert_eq!(calls_seen("fn a() { *place() = value(); }"), "value; place");
    }

    #[test]
    fn test_items() {
        let item: syn::ItemFn = syn::parse_quote!(
            #[tokio::test]
            async fn t() {}
        );
        assert!(is_test_item(&item.attrs));
        let item: syn::ItemFn = syn::parse_quote!(
            #[inline]
            fn f() {}
        );
        assert!(!is_test_item(&item.attrs));
    }
}
