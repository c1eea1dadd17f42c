//! Compiles the facts' shape (a hash of the sources that shape the cached facts, see
//! `build/facts_shape.rs`) into `$OUT_DIR/facts_shape.rs`, which `src/cache.rs` includes. No
//! network, no dependencies: the standard library only.

#[path = "build/facts_shape.rs"]
mod facts_shape;

use std::path::PathBuf;

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| ".".into()));
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build/facts_shape.rs");
    for input in facts_shape::INPUTS {
        // A directory is scanned whole for changes (files added, removed or edited).
        if root.join(input).exists() {
            println!("cargo:rerun-if-changed={input}");
        }
    }
    // A build script reports failure by panicking: cargo shows the message and stops the build.
    let shape = facts_shape::hash(&root)
        .unwrap_or_else(|error| panic!("cannot hash the sources that shape the facts: {error}"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_else(|| ".".into()));
    let code = format!(
        "/// A hash of the sources that shape the cached facts (`build/facts_shape.rs`).\n\
         const FACTS_SHAPE: u64 = {shape:#018x};\n"
    );
    if let Err(error) = std::fs::write(out.join("facts_shape.rs"), code) {
        panic!(
            "cannot write {}: {error}",
            out.join("facts_shape.rs").display()
        );
    }
}
