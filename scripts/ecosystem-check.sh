#!/usr/bin/env bash
# Ecosystem check (in the spirit of clippy's lintcheck and ruff's ecosystem check): lint pinned
# versions of real crates, compare every finding with the checked-in verdicts
# (scripts/ecosystem-verdicts.tsv) and print each rule's precision and the findings nobody has
# triaged yet. It downloads the crates from crates.io, so it is not part of the default CI.
#
#   scripts/ecosystem-check.sh [OUTPUT_DIR]     (default: target/ecosystem)
#
# Writes OUTPUT_DIR/<crate>-<version>.json (the JSON report of each crate), OUTPUT_DIR/report.md
# (counts per rule, precision per rule, untriaged findings) and prints the report.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-"$root/target/ecosystem"}
mkdir -p "$out"
out=$(cd "$out" && pwd)
verdicts="$root/scripts/ecosystem-verdicts.tsv"

# The corpus, pinned: "key name =version kind". MCP SDKs (old and new); published servers written
# by hand (a `match` over method names, JSON-RPC built with serde_json, one message per stdin
# line); servers on rmcp from 0.1 to 3.x and on other SDKs; multi-command CLIs that also serve
# MCP; HTTP servers; and large non-MCP crates as negative controls.
crates=(
  "rmcp_2_1 rmcp =2.1.0 sdk"
  "rmcp_newest rmcp =3.11.0 sdk"
  "rust_mcp_sdk rust-mcp-sdk =2.0.0 sdk"
  "pmcp pmcp =2.23.0 sdk"
  "turbomcp turbomcp =4.0.0-alpha.5 sdk"
  "code_baseline code-baseline =1.6.0 hand-written"
  "mushroomdb_server mushroomdb-server =0.10.1 hand-written"
  "rust_fs_mcp rust-fs-mcp =0.3.4 hand-written"
  "ripgrepx ripgrepx =0.4.0 cli+hand-written"
  "cratesio_mcp cratesio-mcp =0.4.4 tower-mcp"
  "docs_mcp docs-mcp =0.1.2 rmcp-3"
  "agentic_codebase agentic-codebase =0.3.0 hand-written"
  "seekr_code seekr-code =2.0.1 cli+hand-written"
  "rust_bash rust-bash =0.3.0 cli+hand-written"
  "jev_repl jev-repl =0.11.0 cli+hand-written"
  "lex_api lex-api =0.11.76 hand-written"
  "zenith_tool zenith-tool =0.0.14 cli+hand-written"
  "khive_mcp khive-mcp =0.2.8 rmcp-1"
  "lean_host_mcp lean-host-mcp =0.14.2 rmcp-3"
  "context_mcp context-mcp =0.1.6 hand-written+http"
  "rust_docs_mcp rust-docs-mcp =0.1.1 rmcp-0.7"
  "kaizen_cli kaizen-cli =0.1.46 cli+rmcp-1"
  "rust_mcp_filesystem rust-mcp-filesystem =0.4.5 rust-mcp-sdk"
  "pmcp_server pmcp-server =0.2.5 pmcp+http"
  "mcp_server_filesystem mcp-server-filesystem =0.1.2 rmcp-0.6"
  "postgres_mcp postgres-mcp =0.3.2 cli+rmcp-0.1"
  "rust_mcp_server rust-mcp-server =0.4.0 rmcp-2.2"
  "scc_cli scc-cli =0.2.11 cli+hand-written"
  "hyper_mcp hyper-mcp =0.8.3 rmcp-1"
  "nu_mcp nu-mcp =0.116.1 rmcp-3"
  "rusty_commit rusty-commit =1.0.27 cli+rmcp-0.13"
  "innate innate =0.2.0 cli+hand-written"
  "firstpass_proxy firstpass-proxy =0.9.2 cli+hand-written"
  "bito bito =1.0.0 cli+rmcp-1"
  "mcp_server_gdb mcp-server-gdb =0.2.3 mcp-core"
  "mcp_stdio_proxy mcp-stdio-proxy =0.2.10 cli+rmcp-http"
  "staticmcp_stdio_bridge staticmcp_stdio_bridge =0.0.1 hand-written"
  "cmdhub_mcp cmdhub-mcp =0.1.6 hand-written"
  "kintsugi_intercept kintsugi-intercept =0.3.0 hand-written"
  "mcpd mcpd =1.0.7 cli+hand-written"
  "faucet_cli faucet-cli =1.17.0 cli+hand-written"
  "modelcontextprotocol modelcontextprotocol =0.2.4 rmcp-3"
  "mcpls_core mcpls-core =0.9.1 rmcp-3+http"
  "rtb_mcp rtb-mcp =0.9.5 cli+rmcp-2.2"
  "apicentric apicentric =1.0.0 cli+rmcp-0.8"
  "mcp_utils mcp-utils =0.1.4 rust-mcp-sdk"
  "httpmcp_rust httpmcp-rust =0.1.4 http"
  "mcpserver mcpserver =0.3.1 http"
  "git_paw git-paw =0.18.0 cli+rmcp-1"
  "grr_cli grr-cli =2.5.1 cli+hand-written"
  "aprender_mcp aprender-mcp =0.72.3 hand-written"
  "anamnesis_mcp_server anamnesis-mcp-server =0.1.0 hand-written"
  "trusty_memory trusty-memory =0.36.4 cli+hand-written"
  "fastmcp_server fastmcp-server =0.13.0 sdk"
  "solidmcp solidmcp =0.5.0-alpha.3 http"
  "rs_fast_mcp rs-fast-mcp =0.2.0 sdk+cli"
  "crates_docs crates-docs =1.0.0 cli+rust-mcp-sdk"
  "rust_mcp_server_syncable_cli rust-mcp-server-syncable-cli =0.1.13 rust-mcp-sdk"
  "ferro_api_mcp ferro-api-mcp =0.3.10 rmcp-0.12"
  "origin_mcp_core origin-mcp-core =0.2.1 hand-written"
  "codanna codanna =0.16.0 cli+rmcp-3"
  "mq_mcp mq-mcp =0.2.1 rmcp-3+http"
  "todo_mcp todo-mcp =0.1.1 cli+rmcp-0.14"
  "ck_search ck-search =0.8.1 cli+rmcp-1"
  "fallow_mcp fallow-mcp =3.38.1 rmcp-3"
  "aletheiadb aletheiadb =0.2.0 rmcp-1+http"
  "engram_core engram-core =0.21.1 hand-written+http"
  "seite seite =0.20.2 cli+hand-written"
  "depyler_mcp depyler-mcp =3.23.0 pmcp"
  "mcp_discovery mcp-discovery =0.3.2 rust-mcp-sdk"
  "terraphim_mcp_server terraphim_mcp_server =1.0.0 rmcp-0.9+sse"
  "mcp_rust_docs mcp-rust-docs =1.0.0-alpha.1 rmcp-1+http"
  "tokio tokio =1.54.1 control"
  "serde serde =1.0.229 control"
  "syn syn =2.0.119 control"
)

if [[ -n "${MCP_LINT_BIN:-}" ]]; then
  # A binary built earlier (to compare builds, or to keep working while this runs).
  lint=$MCP_LINT_BIN
else
  echo "building cargo-mcp-lint (release)"
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
  lint="$root/target/release/cargo-mcp-lint"
fi

# Each crate's published source, as cargo would download it: the `.crate` file from crates.io,
# checked against the SHA-256 the registry's index records, unpacked under OUTPUT_DIR/sources.
# (Not with `cargo fetch`: a crate that is only a program cannot be a dependency, and some of the
# servers' dependency trees cannot be resolved together.) "name version dir" lines:
locations="$out/locations.txt"
: > "$locations"
for entry in "${crates[@]}"; do
  read -r _ name version _ <<<"$entry"
  python3 "$root/scripts/fetch-crate.py" "$name" "${version#=}" "$out/sources" >> "$locations"
done

while read -r name version dir; do
  json="$out/$name-$version.json"
  # --no-cache: the facts are those of this build (a cache is keyed by the tool's version, not
  # by each change to the analysis), and nothing is written into the downloaded sources.
  # --preview: the rules and shapes in preview are measured too (their precision here decides
  # when they become stable).
  (cd "$dir" && "$lint" . --format json --exit-zero --no-cache --preview > "$json")
done < "$locations"

python3 "$root/scripts/ecosystem-report.py" "$out" "$locations" "$verdicts" > "$out/report.md"
echo "wrote $out/report.md"
cat "$out/report.md"
