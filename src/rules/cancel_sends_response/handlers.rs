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
        let context = takes_a_request_context(function.sig);
        if is_request_handler(
            self.vocabulary,
            &name,
            function.attrs,
            trait_name.as_deref(),
            context,
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
/// configured handler name, a function handed the SDK's request context, or a
/// `handle_.._request` method of a trait it implements.
fn is_request_handler(
    vocabulary: &Vocabulary,
    name: &str,
    attrs: &[syn::Attribute],
    trait_name: Option<&str>,
    context: bool,
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
        // A function handed an SDK's request context, whatever it is called (rust-mcp-core's
        // `handle_.._request` helpers of its rmcp handler); a `handle_.._request` method of a
        // trait the function implements (rust-mcp-sdk's handler traits). The crate's other
        // functions of that name are whatever the crate made them (batch 129's SwarmDrop: a
        // peer-to-peer transfer's chunk request).
        || context
        || (trait_name.is_some() && name.starts_with("handle_") && name.ends_with("_request"))
}

/// Whether a function is handed an SDK's request context (rmcp's `RequestContext<RoleServer>`,
/// pmcp's `RequestHandlerExtra`), by value or by reference.
fn takes_a_request_context(sig: &syn::Signature) -> bool {
    sig.inputs.iter().any(|input| {
        let syn::FnArg::Typed(typed) = input else {
            return false;
        };
        let mut ty = &*typed.ty;
        while let syn::Type::Reference(r) = ty {
            ty = &r.elem;
        }
        matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| {
            s.ident == "RequestContext" || s.ident == "RequestHandlerExtra"
        }))
    })
}
