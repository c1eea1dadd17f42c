//! The items of a file, a hook on the shared walk: the spans a suppression comment can cover,
//! string constants, struct fields' types, and the out-of-line modules it declares.

use super::facts::FileFacts;
use super::syntax::{str_literal, type_name};
use super::walk::{path_attribute, Hook, Node, Scope};
use crate::source::ByteSpan;
use crate::unit::ModDecl;

/// The hook that collects a file's items.
#[derive(Default)]
pub struct Items {
    spans: Vec<ByteSpan>,
    string_consts: Vec<(String, String)>,
    struct_fields: Vec<(String, String, String)>,
    mod_decls: Vec<ModDecl>,
}

impl Items {
    fn string_const(&mut self, name: &syn::Ident, value: &syn::Expr) {
        if let Some(value) = str_literal(value) {
            self.string_consts.push((name.to_string(), value));
        }
    }

    fn module(&mut self, item: &syn::ItemMod, scope: &Scope<'_>) {
        self.spans.push(scope.span(item));
        // `mod x;` inside a function body declares nothing the module tree reads.
        if item.content.is_none() && scope.function().is_none() {
            self.mod_decls.push(ModDecl {
                name: item.ident.to_string(),
                path_attr: path_attribute(&item.attrs),
                inline: scope.inline_modules().to_vec(),
            });
        }
    }
}

impl Hook for Items {
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        match node {
            Node::Item(syn::Item::Fn(f)) => self.spans.push(scope.span(f)),
            Node::Item(syn::Item::Impl(i)) => self.spans.push(scope.span(i)),
            Node::Item(syn::Item::Trait(t)) => self.spans.push(scope.span(t)),
            Node::Item(syn::Item::Mod(m)) => self.module(m, scope),
            Node::Item(syn::Item::Const(c)) => self.string_const(&c.ident, &c.expr),
            Node::Item(syn::Item::Static(s)) => self.string_const(&s.ident, &s.expr),
            Node::Item(syn::Item::Struct(s)) => {
                let owner = s.ident.to_string();
                for field in &s.fields {
                    if let (Some(ident), Some(ty)) = (&field.ident, type_name(&field.ty)) {
                        let field = (owner.clone(), ident.to_string(), ty);
                        self.struct_fields.push(field);
                    }
                }
            }
            Node::ImplItem(syn::ImplItem::Fn(f)) => self.spans.push(scope.span(f)),
            Node::ImplItem(syn::ImplItem::Const(c)) => self.string_const(&c.ident, &c.expr),
            Node::TraitItem(syn::TraitItem::Fn(f)) if f.default.is_some() => {
                self.spans.push(scope.span(f))
            }
            _ => {}
        }
    }

    fn finish(self: Box<Self>, facts: &mut FileFacts) {
        facts.items = self.spans;
        facts.string_consts = self.string_consts;
        facts.struct_fields = self.struct_fields;
        facts.mod_decls = self.mod_decls;
    }
}
