//! What Cargo.toml claims about the locked dependency graph (for the host platform): its
//! `rust-version` is at least that of every locked package the crate builds, and the installed
//! binary builds none of the test-only crates.

use std::collections::{BTreeSet, HashMap};

mod support;

/// `1.88` or `1.88.0` as numbers.
fn version(text: &str) -> Vec<u64> {
    let mut parts: Vec<u64> = text
        .split('.')
        .map(|p| {
            p.parse()
                .unwrap_or_else(|_| panic!("a rust-version: {text}"))
        })
        .collect();
    parts.resize(3, 0);
    parts
}

struct Graph {
    metadata: serde_json::Value,
    root: String,
    /// Package id -> (dependency id, its kinds: "normal", "build", "dev").
    edges: HashMap<String, Vec<(String, Vec<String>)>>,
}

impl Graph {
    fn load() -> Graph {
        let metadata = support::metadata();
        let root = metadata["resolve"]["root"]
            .as_str()
            .expect("metadata names the root package")
            .to_string();
        let mut edges = HashMap::new();
        for node in metadata["resolve"]["nodes"].as_array().expect("nodes") {
            let id = node["id"].as_str().unwrap_or_default().to_string();
            let deps = node["deps"]
                .as_array()
                .expect("deps")
                .iter()
                .map(|dep| {
                    let kinds = dep["dep_kinds"]
                        .as_array()
                        .expect("dep_kinds")
                        .iter()
                        .map(|k| k["kind"].as_str().unwrap_or("normal").to_string())
                        .collect();
                    (dep["pkg"].as_str().unwrap_or_default().to_string(), kinds)
                })
                .collect();
            edges.insert(id, deps);
        }
        Graph {
            metadata,
            root,
            edges,
        }
    }

    /// The packages built: from the root along normal and build edges, and along dev edges
    /// too from the root itself when `with_dev` (what `cargo test` builds).
    fn built(&self, with_dev: bool) -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![self.root.clone()];
        while let Some(id) = stack.pop() {
            if !seen.insert(id.clone()) {
                continue;
            }
            for (dep, kinds) in self.edges.get(&id).into_iter().flatten() {
                let follows = kinds.iter().any(|k| {
                    k == "normal" || k == "build" || (k == "dev" && with_dev && id == self.root)
                });
                if follows {
                    stack.push(dep.clone());
                }
            }
        }
        seen.remove(&self.root);
        seen
    }

    fn package(&self, id: &str) -> &serde_json::Value {
        self.metadata["packages"]
            .as_array()
            .and_then(|packages| packages.iter().find(|p| p["id"] == id))
            .unwrap_or_else(|| panic!("package {id} in metadata"))
    }

    fn names(&self, ids: &BTreeSet<String>) -> BTreeSet<String> {
        ids.iter()
            .map(|id| {
                self.package(id)["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect()
    }
}

#[test]
fn rust_version_is_at_least_that_of_every_built_dependency() {
    let graph = Graph::load();
    let own = graph.package(&graph.root)["rust_version"]
        .as_str()
        .expect("Cargo.toml sets rust-version")
        .to_string();
    let (highest, by) = graph
        .built(true)
        .iter()
        .filter_map(|id| {
            let package = graph.package(id);
            let wanted = package["rust_version"].as_str()?;
            Some((
                version(wanted),
                format!(
                    "{} {} ({wanted})",
                    package["name"].as_str().unwrap_or_default(),
                    package["version"].as_str().unwrap_or_default()
                ),
            ))
        })
        .max()
        .expect("some dependency declares a rust-version");
    assert!(
        version(&own) >= highest,
        "rust-version = \"{own}\" in Cargo.toml, but the locked {by} needs more: raise it"
    );
}

#[test]
fn the_binary_builds_no_test_only_crate() {
    let graph = Graph::load();
    let for_binary = graph.names(&graph.built(false));
    let for_tests = graph.names(&graph.built(true));
    for name in [
        "proptest",
        "jsonschema",
        "serde-sarif",
        "insta",
        "assert_cmd",
        "tokio",
    ] {
        assert!(for_tests.contains(name), "{name} is a dev-dependency");
        assert!(
            !for_binary.contains(name),
            "the binary builds {name}, which only the tests use"
        );
    }
    for name in ["syn", "similar", "tempfile"] {
        assert!(for_binary.contains(name), "the binary builds {name}");
    }
}
