//! Which functions are request handlers, whose return value an SDK sends as the response (read by
//! shape B): a hook on the shared walk that knows the SDKs' handler traits and attributes.

use crate::analysis::facts::{FactKey, FileFacts};
use crate::analysis::vocabulary::Vocabulary;
use crate::analysis::walk::{Collects, Hook, Node, Scope};
use crate::source::ByteSpan;

/// The request handlers of a file, by their item's span (MCP001).
pub static FACTS: FactKey<Vec<ByteSpan>> = FactKey::new("MCP001");

/// MCP001's collector: the request handlers of a file, by their item's span.
pub struct Handlers;

impl Collects for Handlers {
    fn key(&self) -> &'static str {
        FACTS.name()
    }

    fn hook<'a>(
        &self,
        text: &'a str,
        _base: usize,
        vocabulary: &'a Vocabulary,
    ) -> Option<Box<dyn Hook + 'a>> {
        // Every kind of handler names one of these: `#[tool]`, a `..Handler` trait, a
        // `handle_.._request` function, or a configured handler name.
        let might = ["tool", "Handler", "handle_"]
            .iter()
            .any(|w| text.contains(w))
            || vocabulary
                .request_handlers
                .iter()
                .any(|h| text.contains(h.as_str()));
        might.then(|| -> Box<dyn Hook + 'a> {
            Box::new(Collector {
                vocabulary,
                handlers: Vec::new(),
            })
        })
    }
}

/// The spans of the request handlers' items in a file's facts.
pub fn handlers(facts: &FileFacts) -> Vec<ByteSpan> {
    facts.rules.get(&FACTS)
}

struct Collector<'v> {
    vocabulary: &'v Vocabulary,
    handlers: Vec<ByteSpan>,
}

impl Hook for Collector<'_> {
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        // The trait a function is defined for: a free function has none, even inside an impl's
        // method.
        let trait_name = match node {
            Node::Item(syn::Item::Fn(_)) => None,
            Node::ImplItem(syn::ImplItem::Fn(_)) => {
                scope.impl_scope().and_then(|i| i.trait_name.clone())
            }
            Node::TraitItem(syn::TraitItem::Fn(f)) if f.default.is_some() => {
                scope.impl_scope().and_then(|i| i.trait_name.clone())
            }
            _ => return,
        };
        let Some(function) = scope.function() else {
            return;
        };
        let name = function.name();
        if is_request_handler(
            self.vocabulary,
            &name,
            function.attrs,
            trait_name.as_deref(),
        ) {
            self.handlers.push(function.span);
        }
    }

    fn finish(self: Box<Self>, facts: &mut FileFacts) {
        if !self.handlers.is_empty() {
            facts.rules.put(&FACTS, &self.handlers);
        }
    }
}

/// Whether a function is a request handler: a `#[tool]`, a method of an SDK's handler trait, a
/// configured handler name, or a `handle_.._request` function.
fn is_request_handler(
    vocabulary: &Vocabulary,
    name: &str,
    attrs: &[syn::Attribute],
    trait_name: Option<&str>,
) -> bool {
    let tool_attribute = attrs
        .iter()
        .any(|a| a.path().segments.last().is_some_and(|s| s.ident == "tool"));
    tool_attribute
        || vocabulary.request_handlers.iter().any(|h| h == name)
        || match trait_name {
            Some("ServerHandler" | "ClientHandler") => {
                !name.starts_with("on_") && name != "get_info"
            }
            Some("ToolHandler" | "PromptHandler" | "ResourceHandler") => name == "handle",
            _ => false,
        }
        || (name.starts_with("handle_") && name.ends_with("_request"))
}
