//! Which function of a workspace library a call of the unit reaches: the one place where a
//! call's path or receiver is matched against another package's library (the serving path
//! follows a tool handler into the library code it runs; see
//! [`super::server_model::ServingPath`]).

use crate::analysis::crate_graph::{CrateGraph, FunctionRef};
use crate::analysis::facts::{CallSite, Callee, FileFacts, ReceiverType};
use crate::rules::contract::Library;

/// The function of one of `libraries` that the call `call`, made in `file` of the unit whose
/// graph is `graph`, reaches, with the library's index: only when exactly one function of the
/// libraries may be reached, and none of the unit's own.
///
/// - A path through a library (`other::dfg::Analyzer::analyze(..)`, or a name a `use` of the
///   file brings from there): a free function by its modules exactly; an associated function by
///   its type, in any module of that library.
/// - A method of a type the unit does not define, when the receiver's type is evident (a typed
///   binding, a `Type::new(..)` value, or the value of a library function that declares it):
///   the library's one method of that type and name.
pub fn library_callee(
    graph: &CrateGraph<'_>,
    file: &FileFacts,
    call: &CallSite,
    libraries: &[Library<'_>],
    own_types: &dyn Fn(&str) -> bool,
) -> Option<(usize, FunctionRef)> {
    match &call.callee {
        Callee::Path(segments) => by_path(graph, file, segments, libraries),
        Callee::Method {
            name,
            on_self: false,
            receiver: Some(receiver),
        } => {
            let ty = match receiver {
                ReceiverType::Named(ty) => ty.clone(),
                ReceiverType::Returned(callee) => match callee.as_ref() {
                    Callee::Path(segments) => {
                        let (index, f) = by_path(graph, file, segments, libraries)?;
                        returned_type(libraries[index].1, f)?
                    }
                    _ => return None,
                },
                _ => return None,
            };
            if own_types(&ty) {
                return None;
            }
            only(
                libraries
                    .iter()
                    .enumerate()
                    .flat_map(|(index, (_, library))| {
                        methods(library, &ty, name).map(move |f| (index, f))
                    }),
            )
        }
        _ => None,
    }
}

/// The type a library function declares it returns (`Self` read as its own type).
fn returned_type(library: &CrateGraph<'_>, f: FunctionRef) -> Option<String> {
    let function = library.function(f);
    match function.returns_type.as_deref()? {
        "Self" => function.self_ty.clone(),
        ty => Some(ty.to_string()),
    }
}

/// The library functions of type `ty` named `name`, but test code.
fn methods<'g>(
    library: &'g CrateGraph<'_>,
    ty: &'g str,
    name: &'g str,
) -> impl Iterator<Item = FunctionRef> + 'g {
    library.all_functions().filter(move |f| {
        let function = library.function(*f);
        !function.in_test && function.name == name && function.self_ty.as_deref() == Some(ty)
    })
}

/// The library a call's path goes through, by its index, and the path inside it: the path as
/// written, or from the `use` of the file that brings its first segment (`use
/// other::dfg::Analyzer;` then `Analyzer::new()`); not a path through the unit's own crate.
pub fn library_path<'s>(
    graph: &CrateGraph<'_>,
    file: &'s FileFacts,
    segments: &'s [String],
    libraries: &[Library<'_>],
) -> Option<(usize, Vec<&'s str>)> {
    let first = segments.first()?;
    let imported = file.imports.iter().find(|(name, _)| name == first);
    let path: Vec<&str> = match imported {
        Some((_, from)) => (from.iter().chain(&segments[1..]))
            .map(String::as_str)
            .collect(),
        None => segments.iter().map(String::as_str).collect(),
    };
    let (root, inside) = path.split_first()?;
    if graph.crate_name() == Some(*root) {
        return None;
    }
    let index = libraries.iter().position(|(name, _)| name == root)?;
    Some((index, inside.to_vec()))
}

/// The function a path through a library reaches (see [`library_callee`]).
fn by_path(
    graph: &CrateGraph<'_>,
    file: &FileFacts,
    segments: &[String],
    libraries: &[Library<'_>],
) -> Option<(usize, FunctionRef)> {
    let (index, inside) = library_path(graph, file, segments, libraries)?;
    let library = libraries[index].1;
    let (name, before) = inside.split_last()?;
    let reached: Vec<FunctionRef> = match before.split_last() {
        Some((ty, _)) if ty.starts_with(|c: char| c.is_ascii_uppercase()) => {
            methods(library, ty, name).collect()
        }
        _ => library
            .all_functions()
            .filter(|f| {
                let function = library.function(*f);
                !function.in_test
                    && function.self_ty.is_none()
                    && function.name == *name
                    && function
                        .module
                        .iter()
                        .map(String::as_str)
                        .eq(before.iter().copied())
            })
            .collect(),
    };
    only(reached.into_iter().map(|f| (index, f)))
}

/// The one item of `items`, when there is exactly one.
fn only<T>(mut items: impl Iterator<Item = T>) -> Option<T> {
    let first = items.next()?;
    items.next().is_none().then_some(first)
}
