//! The items of a file, a hook on the shared walk: the spans a suppression comment can cover,
//! string constants, struct fields' types, and the out-of-line modules it declares.

use super::facts::FileFacts;
use super::syntax::{str_literal, type_name};
use super::walk::{path_attribute, Hook, Node, Scope};
use crate::source::ByteSpan;
use crate::unit::ModDecl;

/// `#[serde(default)]` or `#[serde(default = "..")]` among the attributes.
fn serde_default(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|attr| {
        attr.path().is_ident("serde")
            && attr.meta.require_list().is_ok_and(|list| {
                list.tokens.clone().into_iter().any(
                    |t| matches!(t, proc_macro2::TokenTree::Ident(ident) if ident == "default"),
                )
            })
    })
}

/// The name a field takes on the wire when serde renames it (`#[serde(rename = "id")]`), if it
/// does.
fn serde_rename(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|attr| {
        if !attr.path().is_ident("serde") {
            return None;
        }
        let list = attr.meta.require_list().ok()?;
        let tokens: Vec<proc_macro2::TokenTree> = list.tokens.clone().into_iter().collect();
        tokens.windows(3).find_map(|w| match w {
            [proc_macro2::TokenTree::Ident(key), proc_macro2::TokenTree::Punct(eq), proc_macro2::TokenTree::Literal(value)]
                if key == "rename" && eq.as_char() == '=' =>
            {
                syn::parse_str::<syn::LitStr>(&value.to_string())
                    .ok()
                    .map(|lit| lit.value())
            }
            _ => None,
        })
    })
}

/// The hook that collects a file's items.
#[derive(Default)]
pub struct Items {
    spans: Vec<ByteSpan>,
    string_consts: Vec<(String, String)>,
    struct_fields: Vec<(String, String, String)>,
    private_structs: Vec<String>,
    optional_fields: Vec<(String, String, String)>,
    defaulted_fields: Vec<(String, String)>,
    renamed_fields: Vec<(String, String, String)>,
    traits: Vec<String>,
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
                test: item.attrs.iter().any(super::syntax::is_test_cfg),
                cfg_paths: super::syntax::cfg_attr_paths(&item.attrs),
                include: false,
                features: super::syntax::cfg_required_features(&item.attrs),
                public: !matches!(item.vis, syn::Visibility::Inherited),
            });
        }
    }
}

impl Hook for Items {
    fn enter(&mut self, node: Node<'_>, scope: &Scope<'_>) {
        match node {
            Node::Item(syn::Item::Fn(f)) => self.spans.push(scope.span(f)),
            Node::Item(syn::Item::Impl(i)) => self.spans.push(scope.span(i)),
            Node::Item(syn::Item::Trait(t)) => {
                self.spans.push(scope.span(t));
                self.traits.push(t.ident.to_string());
            }
            Node::Item(syn::Item::Mod(m)) => self.module(m, scope),
            // `include!("send.rs");` among the items: that file's items are read in place.
            Node::Item(syn::Item::Macro(m))
                if scope.function().is_none()
                    && m.mac
                        .path
                        .segments
                        .last()
                        .is_some_and(|s| s.ident == "include") =>
            {
                if let Ok(path) = m.mac.parse_body::<syn::LitStr>() {
                    self.mod_decls.push(ModDecl {
                        name: String::new(),
                        path_attr: Some(path.value()),
                        inline: scope.inline_modules().to_vec(),
                        test: m.attrs.iter().any(super::syntax::is_test_cfg),
                        cfg_paths: Vec::new(),
                        include: true,
                        features: super::syntax::cfg_required_features(&m.attrs),
                        // Not a module: its items stand in the including file's.
                        public: false,
                    });
                }
            }
            Node::Item(syn::Item::Const(c)) => self.string_const(&c.ident, &c.expr),
            Node::Item(syn::Item::Static(s)) => self.string_const(&s.ident, &s.expr),
            Node::Item(syn::Item::Struct(s)) => {
                let owner = s.ident.to_string();
                // Private to the file's own module: not in an inline module or a function.
                if matches!(s.vis, syn::Visibility::Inherited)
                    && scope.inline_modules().is_empty()
                    && scope.function().is_none()
                {
                    self.private_structs.push(owner.clone());
                }
                let all_defaulted = serde_default(&s.attrs);
                for field in &s.fields {
                    let Some(ident) = &field.ident else { continue };
                    if let Some(wire) = serde_rename(&field.attrs) {
                        self.renamed_fields
                            .push((owner.clone(), ident.to_string(), wire));
                    }
                    if all_defaulted || serde_default(&field.attrs) {
                        self.defaulted_fields
                            .push((owner.clone(), ident.to_string()));
                    }
                    if let Some(ty) = super::syntax::optional_type_name(&field.ty) {
                        let field = (owner.clone(), ident.to_string(), ty);
                        self.optional_fields.push(field);
                    }
                    if let Some(ty) = type_name(&field.ty) {
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
        facts.private_structs = self.private_structs;
        facts.optional_fields = self.optional_fields;
        facts.defaulted_fields = self.defaulted_fields;
        facts.renamed_fields = self.renamed_fields;
        facts.traits = self.traits;
        facts.mod_decls = self.mod_decls;
    }
}

/// A private constant or static (`const X: &str = "ping";` without `pub`) whose name appears
/// nowhere else in the file's code: nothing reads its value, which is words, not behaviour. A
/// `pub` one, or a trait's, may be read where the analysis does not look, and counts as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnreadConst {
    pub name: String,
    /// From `const` (or `static`) to the `;`.
    pub span: ByteSpan,
}

/// Whether a text may declare a constant or a static: it holds `const`, or `static` that is not
/// a lifetime's name.
fn may_declare_constants(text: &str) -> bool {
    text.contains("const")
        || text
            .match_indices("static")
            .any(|(at, _)| !text[..at].ends_with('\''))
}

/// The file's unread private constants and statics (see [`UnreadConst`]), in free, inline
/// module, function and `impl` scope. `text` is the whole file and `base` where the parsed code
/// starts in it. A name is read when it appears (as a whole identifier, outside comments) more
/// than once: at its definition and somewhere else.
pub fn unread_constants(file: &syn::File, text: &str, base: usize) -> Vec<UnreadConst> {
    use proc_macro2::Span;
    use syn::visit::Visit;

    #[derive(Default)]
    struct Private {
        found: Vec<UnreadConst>,
        /// In a trait's `impl`, whose constants code reads through the trait (maybe in another
        /// file): they count as read.
        in_trait_impl: bool,
    }

    impl Private {
        fn add(&mut self, vis: &syn::Visibility, ident: &syn::Ident, first: Span, last: Span) {
            if matches!(vis, syn::Visibility::Inherited) {
                self.found.push(UnreadConst {
                    name: ident.to_string(),
                    span: super::spans::byte_span(first, last, 0),
                });
            }
        }
    }

    impl<'ast> Visit<'ast> for Private {
        fn visit_item_const(&mut self, c: &'ast syn::ItemConst) {
            self.add(&c.vis, &c.ident, c.const_token.span, c.semi_token.span);
            syn::visit::visit_item_const(self, c);
        }
        fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
            self.add(&s.vis, &s.ident, s.static_token.span, s.semi_token.span);
            syn::visit::visit_item_static(self, s);
        }
        fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
            let outer = std::mem::replace(&mut self.in_trait_impl, i.trait_.is_some());
            syn::visit::visit_item_impl(self, i);
            self.in_trait_impl = outer;
        }
        fn visit_impl_item_const(&mut self, c: &'ast syn::ImplItemConst) {
            if !self.in_trait_impl {
                self.add(&c.vis, &c.ident, c.const_token.span, c.semi_token.span);
            }
            syn::visit::visit_impl_item_const(self, c);
        }
    }

    // Without a `const` or `static` keyword (a `'static` lifetime is none) there is no constant
    // to find, and the visit over every expression is spared.
    if !may_declare_constants(text) {
        return Vec::new();
    }
    let mut private = Private::default();
    private.visit_file(file);
    if private.found.is_empty() {
        return Vec::new();
    }
    let mut seen: std::collections::HashMap<&str, usize> =
        private.found.iter().map(|c| (c.name.as_str(), 0)).collect();
    let code = super::text::strip_comments(text);
    for word in code.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if let Some(count) = seen.get_mut(word) {
            *count += 1;
        }
    }
    let unread: Vec<String> = seen
        .into_iter()
        .filter(|(_, count)| *count <= 1)
        .map(|(name, _)| name.to_string())
        .collect();
    private
        .found
        .into_iter()
        .filter(|c| unread.contains(&c.name))
        .map(|c| UnreadConst {
            span: ByteSpan::new(c.span.start + base, c.span.end + base),
            ..c
        })
        .collect()
}

/// The text with the unread constants blanked (each byte of them a space, so every offset
/// stays): what the file says in code that runs or is read.
pub fn without_unread<'a>(text: &'a str, unread: &[UnreadConst]) -> std::borrow::Cow<'a, str> {
    if unread.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut bytes = text.as_bytes().to_vec();
    for constant in unread {
        let end = constant.span.end.min(bytes.len());
        let start = constant.span.start.min(end);
        bytes[start..end].fill(b' ');
    }
    // Blanking whole tokens keeps the text UTF-8; should a span ever cut a character, the text
    // is left whole (its words then count, as they did before).
    match String::from_utf8(bytes) {
        Ok(blanked) => std::borrow::Cow::Owned(blanked),
        Err(_) => std::borrow::Cow::Borrowed(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unread(code: &str) -> Vec<String> {
        let file = syn::parse_file(code).expect("test code parses");
        let _locating = super::super::spans::Locating::new(code);
        let found = unread_constants(&file, code, 0);
        for constant in &found {
            let text = &code[constant.span.start..constant.span.end];
            assert!(
                text.starts_with("const") || text.starts_with("static"),
                "{text}"
            );
            assert!(text.ends_with(';'), "{text}");
        }
        found.into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn private_constants_no_code_reads() {
        let code = "const A: &str = \"jsonrpc\";\n\
                    pub const B: &str = \"2.0\";\n\
                    static C: &str = \"ping\"; // read as C only in this comment\n\
                    const D: &str = \"initialize\";\n\
                    const E: &str = \"tools/list\";\n\
                    struct S;\n\
                    impl S { const F: &str = \"ping\"; fn f(&self) -> &str { Self::F } }\n\
                    impl Named for S { const H: &str = \"ping\"; }\n\
                    mod m { const G: u8 = 1; }\n\
                    fn main() { let _ = json!({\"method\": D}); println!(\"{}\", E); }";
        let mut found = unread(code);
        found.sort();
        assert_eq!(found, ["A", "C", "G"]);
    }

    #[test]
    fn only_a_text_with_the_keywords_may_declare_constants() {
        assert!(may_declare_constants("fn f() { const X: u8 = 1; }"));
        assert!(may_declare_constants("static S: u8 = 1;"));
        assert!(may_declare_constants(
            "fn f(s: &'static str) {} static\nT: u8 = 2;"
        ));
        assert!(!may_declare_constants(
            "fn f(s: &'static str) -> &'static str { s }"
        ));
        assert_eq!(
            unread("fn f(s: &'static str) -> &'static str { s }"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn blanking_keeps_every_offset() {
        let code = "const A: &str = \"é\";\nfn f() {}\n";
        let file = syn::parse_file(code).expect("parses");
        let _locating = super::super::spans::Locating::new(code);
        let found = unread_constants(&file, code, 0);
        let blanked = without_unread(code, &found);
        assert_eq!(blanked.len(), code.len());
        assert!(blanked.trim_start().starts_with("fn f() {}"), "{blanked:?}");
    }
}
