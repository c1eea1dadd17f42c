//! Whether a binary or an example can be built at all: a target whose root file `use`s a crate
//! its package does not depend on (`use mcp_server::prelude::*;` in an example of a package
//! whose library is `mcp_sdk` and that has no `mcp_server` dependency: batch 45's ryht) fails to
//! compile, so it never runs, and what it would do is no finding. Certain or silent: the check
//! says a target cannot be built only when every name its root file could bring a crate's
//! name from is known (edition 2018 or later, no glob import of a crate, no item a macro makes).

use std::path::Path;

/// The crates a package's targets may name: its dependencies of every kind (by the name code
/// uses: a rename, `-` written `_`), its library's name, and the ones the compiler provides.
pub fn known_crates(
    dependencies: impl IntoIterator<Item = String>,
    library: Option<&str>,
) -> Vec<String> {
    let mut names: Vec<String> = ["std", "core", "alloc", "proc_macro", "test"]
        .into_iter()
        .map(str::to_string)
        .chain(dependencies.into_iter().map(|n| n.replace('-', "_")))
        .chain(library.map(|l| l.replace('-', "_")))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// The crate a target's root file `use`s that is none of `known` (see [`known_crates`]), if the
/// file shows it; `None` when every root resolves or the file does not show (it cannot be read
/// or parsed, a glob import of a known crate or a macro-made item may bring the name).
pub fn unknown_crate(root: &Path, known: &[String]) -> Option<String> {
    let text = crate::bounded::read_text_capped(root, crate::settings::MAX_FILE_SIZE_CEILING)?;
    let file = syn::parse_file(&text).ok()?;
    let mut declared: Vec<String> = Vec::new();
    let mut roots: Vec<(String, bool)> = Vec::new();
    for item in &file.items {
        match item {
            syn::Item::Use(u) => use_roots(&u.tree, true, &mut roots, &mut declared),
            syn::Item::ExternCrate(e) => {
                // `extern crate foo;` names the crate it needs; `as bar` binds another name.
                if let Some((_, alias)) = &e.rename {
                    declared.push(alias.to_string());
                }
                if e.ident != "self" && !known.iter().any(|k| e.ident == k) {
                    roots.push((e.ident.to_string(), false));
                }
            }
            // A macro invocation may make items of any name.
            syn::Item::Macro(m) if m.ident.is_none() => return None,
            other => declared.extend(item_name(other)),
        }
    }
    // A dependency's library may be named otherwise than the package (`prettytable-rs` is
    // `prettytable`, `md-5` is `md5`, `rust-crypto` is `crypto`), which only its own manifest
    // says: a root that a dependency's name holds (`_` and `-` aside) may be that library.
    let squash = |name: &str| name.replace(['_', '-'], "");
    let resolves = |name: &str| {
        known
            .iter()
            .any(|k| k == name || squash(k).contains(&squash(name)))
            || declared.iter().any(|d| d == name)
    };
    // A glob import of a crate that resolves may bring any name.
    if roots.iter().any(|(root, glob)| *glob && resolves(root)) {
        return None;
    }
    roots
        .into_iter()
        .map(|(root, _)| root)
        .find(|root| !resolves(root))
}

/// The first segment of each path a `use` tree names, with whether it ends in a glob; and the
/// names it binds (`use a::b;` binds `b`).
fn use_roots(
    tree: &syn::UseTree,
    top: bool,
    roots: &mut Vec<(String, bool)>,
    bound: &mut Vec<String>,
) {
    let root = |name: &syn::Ident| !matches!(name.to_string().as_str(), "crate" | "self" | "super");
    match tree {
        syn::UseTree::Path(path) => {
            if top && root(&path.ident) {
                roots.push((path.ident.to_string(), ends_in_glob(&path.tree)));
            }
            use_roots(&path.tree, false, roots, bound);
        }
        syn::UseTree::Name(name) => {
            if top && root(&name.ident) {
                roots.push((name.ident.to_string(), false));
            }
            bound.push(name.ident.to_string());
        }
        syn::UseTree::Rename(rename) => {
            if top && root(&rename.ident) {
                roots.push((rename.ident.to_string(), false));
            }
            bound.push(rename.rename.to_string());
        }
        syn::UseTree::Group(group) => {
            for tree in &group.items {
                use_roots(tree, top, roots, bound);
            }
        }
        syn::UseTree::Glob(_) => {}
    }
}

fn ends_in_glob(tree: &syn::UseTree) -> bool {
    match tree {
        syn::UseTree::Glob(_) => true,
        syn::UseTree::Path(path) => ends_in_glob(&path.tree),
        syn::UseTree::Group(group) => group.items.iter().any(ends_in_glob),
        _ => false,
    }
}

/// The name an item declares.
fn item_name(item: &syn::Item) -> Option<String> {
    let ident = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => i.ident.as_ref()?,
        syn::Item::Mod(i) => &i.ident,
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        _ => return None,
    };
    Some(ident.to_string())
}
