//! Every name the fixture defines, renamed to a neutral one (`zz4`, `Zz7`, `ZZ2`): functions,
//! methods, types, fields, variants, constants, statics, traits, its own `macro_rules!`, locals
//! and parameters. Every use of the name is renamed with it (paths, method calls, field accesses,
//! struct literals and patterns, tokens inside macro calls, `{name}` captures in format strings),
//! so the renamed file means what the original meant. A field or variant of a type that derives
//! serde's traits keeps its wire name with `#[serde(rename = "..")]`.
//!
//! Names that are not the fixture's alone stay: the methods of a trait the fixture implements but
//! does not define (an SDK's `ServerHandler::call_tool`), names used after the path of a type or
//! module the fixture does not define (`Arc::new`), names a `use` brings from another crate,
//! field names in literals and patterns of other crates' structs, the fields of serde containers
//! with `rename_all`, module names (they name files), `main`, and the names in [`EXTERNAL`]:
//! methods and fields of std, tokio, serde_json and the SDKs that fixtures call on values whose
//! type the rewrite cannot see (a fixture defining its own `send` also calls an mpsc sender's).

use std::collections::{BTreeMap, BTreeSet};

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use syn::visit::Visit;
use syn::{Attribute, Fields, ImplItem, Item, Member, TraitItem, UseTree};

use crate::edit::{each_token, is_punct, Edits};
use crate::Input;

/// Method and field names of other crates' types that fixtures use on values of unknown type.
const EXTERNAL: &[&str] = &[
    // std, tokio, futures
    "abort",
    "and_then",
    "as_mut",
    "as_ref",
    "as_str",
    "await",
    "borrow",
    "borrow_mut",
    "call",
    "cancel",
    "cancelled",
    "cancelled_owned",
    "child_token",
    "clone",
    "contains",
    "contains_key",
    "default",
    "drop",
    "entry",
    "err",
    "expect",
    "fetch_add",
    "flush",
    "from",
    "get",
    "get_mut",
    "insert",
    "into",
    "is_cancelled",
    "is_empty",
    "is_finished",
    "iter",
    "join",
    "len",
    "load",
    "lock",
    "map",
    "map_err",
    "next",
    "next_line",
    "notified",
    "notify",
    "notify_one",
    "notify_waiters",
    "ok",
    "or_insert",
    "poll",
    "pop",
    "push",
    "read",
    "read_line",
    "recv",
    "remove",
    "replace",
    "reserve",
    "run",
    "send",
    "set",
    "spawn",
    "store",
    "swap",
    "take",
    "to_owned",
    "to_string",
    "try_recv",
    "try_send",
    "unwrap",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "write",
    "write_all",
    "write_fmt",
    "write_str",
    "new",
    "with_capacity",
    "then",
    "start",
    "stop",
    "close",
    "shutdown",
    "wait",
    "handle",
    "state",
    // serde_json, JSON-RPC and MCP message fields
    "as_i64",
    "as_object",
    "as_u64",
    "code",
    "data",
    "error",
    "id",
    "jsonrpc",
    "message",
    "meta",
    "method",
    "params",
    "progress",
    "progress_token",
    "reason",
    "request_id",
    "result",
    "total",
    "name",
    "arguments",
    "content",
    "is_error",
    "value",
    "kind",
    "token",
    "ct",
    "peer",
    "context",
    "extensions",
    "notify_progress",
    "notify_cancelled",
    "send_notification",
    "send_request",
    "send_response",
    "send_message",
    "respond",
    "reply",
    "serve",
    "waiting",
    "cancellation_token",
    "receive",
    "drain",
    "send_error",
];

/// Words that are never renamed.
const KEYWORD_LIKE: &[&str] = &["self", "Self", "crate", "super", "main", "_"];

#[derive(Default)]
struct Names {
    /// Names the fixture defines.
    defined: BTreeSet<String>,
    /// Of them, the methods and fields (a `.name` is one of these, never a local).
    members: BTreeSet<String>,
    /// Types, traits and modules the fixture defines (a path through them stays in the crate).
    crate_paths: BTreeSet<String>,
    /// Names that must stay.
    keep: BTreeSet<String>,
    /// Fields and variants of serde containers: where a `#[serde(rename)]` goes, and the name.
    serde: Vec<(usize, String)>,
}

struct Collect<'a, 'i> {
    input: &'a Input<'i>,
    /// The file being collected is the one rewritten (its serde members get a `rename`).
    own: bool,
    names: Names,
    /// Field names of struct literals and patterns, with their struct's path's last segment.
    literal_fields: Vec<(String, Vec<String>)>,
}

fn derives_serde(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("derive") && {
            let text = a
                .meta
                .require_list()
                .map(|l| l.tokens.to_string())
                .unwrap_or_default();
            text.contains("Serialize") || text.contains("Deserialize")
        }
    })
}

fn serde_says(attrs: &[Attribute], word: &str) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("serde")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().contains(word))
    })
}

impl Collect<'_, '_> {
    fn define(&mut self, name: &syn::Ident) {
        self.names.defined.insert(name.to_string());
    }

    fn serde_member(
        &mut self,
        container: &[Attribute],
        attrs: &[Attribute],
        ident: &syn::Ident,
        at: usize,
    ) {
        if !derives_serde(container) {
            return;
        }
        if serde_says(container, "rename_all") {
            self.names.keep.insert(ident.to_string());
        } else if !serde_says(attrs, "rename") && self.own {
            self.names.serde.push((at, ident.to_string()));
        }
    }

    fn define_member(&mut self, name: &syn::Ident) {
        self.define(name);
        self.names.members.insert(name.to_string());
    }

    fn fields(&mut self, container: &[Attribute], fields: &Fields) {
        for field in fields {
            if let Some(ident) = &field.ident {
                self.define_member(ident);
                let at = self.input.text.of(field).0;
                self.serde_member(container, &field.attrs, ident, at);
            }
        }
    }

    fn use_tree(&mut self, tree: &UseTree, external: bool) {
        match tree {
            UseTree::Path(p) => {
                let root = p.ident.to_string();
                let external = external
                    || !(matches!(root.as_str(), "crate" | "self" | "super")
                        || self.names.crate_paths.contains(&root));
                if external {
                    self.names.keep.insert(root);
                }
                self.use_tree(&p.tree, external);
            }
            UseTree::Name(n) if external => {
                self.names.keep.insert(n.ident.to_string());
            }
            UseTree::Rename(r) if external => {
                self.names.keep.insert(r.ident.to_string());
            }
            UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(t, external)),
            _ => {}
        }
    }
}

impl<'a> Visit<'a> for Collect<'a, '_> {
    fn visit_item(&mut self, item: &'a Item) {
        match item {
            Item::Fn(f) => self.define(&f.sig.ident),
            Item::Struct(s) => {
                self.define(&s.ident);
                self.names.crate_paths.insert(s.ident.to_string());
                self.fields(&s.attrs, &s.fields);
            }
            Item::Enum(e) => {
                self.define(&e.ident);
                self.names.crate_paths.insert(e.ident.to_string());
                for variant in &e.variants {
                    self.define(&variant.ident);
                    let at = self.input.text.of(variant).0;
                    self.serde_member(&e.attrs, &variant.attrs, &variant.ident, at);
                    self.fields(&e.attrs, &variant.fields);
                }
            }
            Item::Union(u) => {
                self.define(&u.ident);
                self.names.crate_paths.insert(u.ident.to_string());
            }
            Item::Const(c) => self.define(&c.ident),
            Item::Static(s) => self.define(&s.ident),
            Item::Type(t) => {
                self.define(&t.ident);
                self.names.crate_paths.insert(t.ident.to_string());
            }
            Item::Trait(t) => {
                self.define(&t.ident);
                self.names.crate_paths.insert(t.ident.to_string());
                for trait_item in &t.items {
                    match trait_item {
                        TraitItem::Fn(f) => self.define_member(&f.sig.ident),
                        TraitItem::Const(c) => self.define(&c.ident),
                        TraitItem::Type(t) => self.define(&t.ident),
                        _ => {}
                    }
                }
            }
            Item::Macro(m) => {
                if let Some(ident) = &m.ident {
                    self.define(ident);
                }
            }
            Item::Mod(m) => {
                self.names.keep.insert(m.ident.to_string());
                self.names.crate_paths.insert(m.ident.to_string());
            }
            Item::Impl(i) => {
                let foreign = i.trait_.as_ref().is_some_and(|(_, path, _)| {
                    path.segments
                        .last()
                        .is_none_or(|s| !self.names.crate_paths.contains(&s.ident.to_string()))
                });
                for impl_item in &i.items {
                    let ident = match impl_item {
                        ImplItem::Fn(f) => &f.sig.ident,
                        ImplItem::Const(c) => &c.ident,
                        ImplItem::Type(t) => &t.ident,
                        _ => continue,
                    };
                    if foreign {
                        self.names.keep.insert(ident.to_string());
                    } else {
                        self.define_member(ident);
                    }
                }
            }
            _ => {}
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_use(&mut self, u: &'a syn::ItemUse) {
        self.use_tree(&u.tree, false);
    }

    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        // `None` in a pattern is the variant, not a binding.
        if p.ident != "None" {
            self.define(&p.ident);
        }
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_expr_struct(&mut self, e: &'a syn::ExprStruct) {
        self.note_literal(&e.path, e.fields.iter().map(|f| &f.member));
        syn::visit::visit_expr_struct(self, e);
    }

    fn visit_pat_struct(&mut self, p: &'a syn::PatStruct) {
        self.note_literal(&p.path, p.fields.iter().map(|f| &f.member));
        syn::visit::visit_pat_struct(self, p);
    }
}

impl Collect<'_, '_> {
    /// A struct literal or pattern: its type's last segment and the field names it spells.
    fn note_literal<'m>(&mut self, path: &syn::Path, members: impl Iterator<Item = &'m Member>) {
        let fields = members
            .filter_map(|m| match m {
                Member::Named(n) => Some(n.to_string()),
                Member::Unnamed(_) => None,
            })
            .collect();
        if let Some(last) = path.segments.last() {
            self.literal_fields.push((last.ident.to_string(), fields));
        }
    }
}

/// The neutral name for the `index`th renamed name, in the case style of `name` (a leading `_`,
/// which tells rustc the binding is meant to be unused, stays).
fn neutral(name: &str, index: usize) -> String {
    let (prefix, name) = match name.strip_prefix('_') {
        Some(rest) => ("_", rest),
        None => ("", name),
    };
    let upper_first = name.chars().next().is_some_and(char::is_uppercase);
    let has_lower = name.chars().any(char::is_lowercase);
    match (upper_first, has_lower) {
        (true, true) => format!("{prefix}Zz{index}"),
        (true, false) => format!("{prefix}ZZ{index}"),
        _ => format!("{prefix}zz{index}"),
    }
}

/// A string literal's text with `{name}` / `{name:..}` captures renamed.
fn captures(literal: &str, renamed: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(literal.len());
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        if let Some(stripped) = rest.strip_prefix('{') {
            out.push('{');
            rest = stripped;
            continue;
        }
        let name_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..name_len];
        let closes = rest[name_len..].starts_with('}') || rest[name_len..].starts_with(':');
        match renamed.get(name) {
            Some(new) if closes => out.push_str(new),
            _ => out.push_str(name),
        }
        rest = &rest[name_len..];
    }
    out.push_str(rest);
    out
}

pub fn rewrite(input: &Input<'_>) -> Edits {
    // The names are the fixture's, over all its files: one file defines what another uses.
    let mut names = Names::default();
    let mut literal_fields = Vec::new();
    // Types, traits and modules first (a `use` or an impl may come before them).
    for file in input.fixture {
        for item in &file.items {
            match item {
                Item::Struct(s) => drop(names.crate_paths.insert(s.ident.to_string())),
                Item::Enum(e) => drop(names.crate_paths.insert(e.ident.to_string())),
                Item::Trait(t) => drop(names.crate_paths.insert(t.ident.to_string())),
                Item::Mod(m) => drop(names.crate_paths.insert(m.ident.to_string())),
                Item::Type(t) => drop(names.crate_paths.insert(t.ident.to_string())),
                _ => {}
            }
        }
    }
    for file in input.fixture {
        let mut collect = Collect {
            input,
            own: std::ptr::eq(file, input.syntax),
            names: std::mem::take(&mut names),
            literal_fields: Vec::new(),
        };
        collect.visit_file(file);
        names = collect.names;
        literal_fields.extend(collect.literal_fields);
    }
    for (owner, fields) in literal_fields {
        if !names.crate_paths.contains(&owner) && owner != "Self" {
            names.keep.extend(fields);
        }
    }
    names
        .keep
        .extend(EXTERNAL.iter().chain(KEYWORD_LIKE).map(|s| s.to_string()));

    let mut edits = Edits::default();
    let Ok(stream) = input.text.text.parse::<TokenStream>() else {
        return edits;
    };
    // Names after the path of something the fixture does not define stay (`Arc::new`), in any
    // of its files.
    for file in input.fixture {
        let tokens = if std::ptr::eq(file, input.syntax) {
            stream.clone()
        } else {
            quote::ToTokens::to_token_stream(file)
        };
        each_token(tokens, &mut |token, before| {
            let previous = before.last();
            let TokenTree::Ident(ident) = token else {
                return;
            };
            if !is_punct(previous, ':') {
                return;
            }
            let n = before.len();
            let path_colons = n >= 2 && is_punct(before.get(n - 2), ':');
            if !path_colons {
                return;
            }
            let owner = n.checked_sub(3).and_then(|i| before.get(i));
            let in_crate = match owner {
                Some(TokenTree::Ident(o)) => {
                    let o = o.to_string();
                    matches!(o.as_str(), "self" | "Self" | "crate" | "super")
                        || names.crate_paths.contains(&o)
                }
                // `<T as Trait>::x`, `::std::x`: not the fixture's.
                _ => false,
            };
            if !in_crate {
                names.keep.insert(ident.to_string());
            }
        });
    }
    let renamable: Vec<String> = names
        .defined
        .iter()
        .filter(|n| !names.keep.contains(*n) && !n.starts_with("r#"))
        .cloned()
        .collect();
    let renamed: BTreeMap<String, String> = renamable
        .iter()
        .enumerate()
        .map(|(i, n)| (n.clone(), neutral(n, i)))
        .collect();
    if renamed.is_empty() {
        return edits;
    }

    rename_tokens(input, stream, (&renamed, &names.members), false, &mut edits);
    for (at, name) in &names.serde {
        if renamed.contains_key(name) {
            edits.insert(*at, format!("#[serde(rename = \"{name}\")] "));
        }
    }
    edits
}

/// Rename the idents of `stream` (not inside attributes, not after `$` or `'`); in a macro
/// call's tokens (`in_macro`), the captures of string literals too.
fn rename_tokens(
    input: &Input<'_>,
    stream: TokenStream,
    (renamed, members): (&BTreeMap<String, String>, &BTreeSet<String>),
    in_macro: bool,
    edits: &mut Edits,
) {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    for (i, token) in tokens.iter().enumerate() {
        let previous = i.checked_sub(1).and_then(|p| tokens.get(p));
        match token {
            TokenTree::Ident(ident) => {
                if is_punct(previous, '$') || is_punct(previous, '\'') {
                    continue;
                }
                // `.name`: a method or a field, never a local (another namespace).
                if is_punct(previous, '.') && !members.contains(&ident.to_string()) {
                    continue;
                }
                if let Some(new) = renamed.get(&ident.to_string()) {
                    edits.replace(input.text.range(ident.span()), new.clone());
                }
            }
            TokenTree::Group(group) => {
                // An attribute's brackets: `#[..]`, `#![..]`.
                let attribute = group.delimiter() == Delimiter::Bracket
                    && (is_punct(previous, '#')
                        || (is_punct(previous, '!')
                            && is_punct(i.checked_sub(2).and_then(|p| tokens.get(p)), '#')));
                if attribute {
                    continue;
                }
                let macro_call = is_punct(previous, '!');
                rename_tokens(
                    input,
                    group.stream(),
                    (renamed, members),
                    in_macro || macro_call,
                    edits,
                );
            }
            TokenTree::Literal(literal) if in_macro => {
                let text = literal.to_string();
                if text.starts_with('"') || text.starts_with('r') {
                    let new = captures(&text, renamed);
                    if new != text {
                        edits.replace(input.text.range(literal.span()), new);
                    }
                }
            }
            _ => {}
        }
    }
}
