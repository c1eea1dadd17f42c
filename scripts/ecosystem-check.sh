#!/usr/bin/env bash
# Ecosystem check (in the spirit of clippy's lintcheck and ruff's ecosystem check): lint pinned
# versions of real crates and write a report of every finding, to be triaged in
# docs/ecosystem.md. It downloads the crates with cargo, so it is not part of the default CI.
#
#   scripts/ecosystem-check.sh [OUTPUT_DIR]     (default: target/ecosystem)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-"$root/target/ecosystem"}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The corpus: MCP SDKs (old and new); published servers written by hand (a `match` over method
# names, JSON-RPC built with serde_json, read from stdin lines), where the dispatcher rules
# (MCP003, MCP004) fire; and large non-MCP crates as negative controls.
crates=(
  "rmcp_2_1 rmcp =2.1.0"
  "rmcp_newest rmcp =3.11.0"
  "rust_mcp_sdk rust-mcp-sdk =2.0.0"
  "pmcp pmcp =2.23.0"
  "turbomcp turbomcp =4.0.0-alpha.5"
  "code_baseline code-baseline =1.6.0"
  "mushroomdb_server mushroomdb-server =0.10.1"
  "rust_fs_mcp rust-fs-mcp =0.3.4"
  "ripgrepx ripgrepx =0.4.0"
  "tokio tokio =1.54.1"
  "serde serde =1.0.229"
  "syn syn =2.0.119"
)

echo "building cargo-mcp-lint (release)"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
lint="$root/target/release/cargo-mcp-lint"

corpus="$out/corpus"
mkdir -p "$corpus/src"
{
  echo '[package]'
  echo 'name = "ecosystem-corpus"'
  echo 'version = "0.0.0"'
  echo 'edition = "2021"'
  echo 'publish = false'
  echo
  echo '[workspace]'
  echo
  echo '[dependencies]'
  for entry in "${crates[@]}"; do
    read -r key name version <<<"$entry"
    echo "$key = { package = \"$name\", version = \"$version\", default-features = false }"
  done
} > "$corpus/Cargo.toml"
echo "fn main() {}" > "$corpus/src/main.rs"

echo "downloading the corpus"
(cd "$corpus" && cargo fetch --quiet)
metadata="$out/metadata.json"
(cd "$corpus" && cargo metadata --format-version 1 --quiet > "$metadata")

report="$out/report.md"
# The rules counted in the table's columns, one each.
rules=(MCP001 MCP002 MCP003 MCP004 MCP005 MCP006 MCP007)
{
  echo "# Ecosystem check"
  echo
  echo "cargo-mcp-lint $("$lint" --version | awk '{print $NF}'), $(date -u +%Y-%m-%d)"
  echo
  echo "| crate | version | files | findings |$(printf ' %s |' "${rules[@]}")"
  echo "|---|---|---:|---:|$(printf -- '---:|%.0s' "${rules[@]}")"
} > "$report"
details=""
for entry in "${crates[@]}"; do
  read -r _ name version <<<"$entry"
  version=${version#=}
  dir=$(python3 -c '
import json, sys
data = json.load(open(sys.argv[1]))
for p in data["packages"]:
    if p["name"] == sys.argv[2] and p["version"] == sys.argv[3]:
        print(p["manifest_path"].rsplit("/", 1)[0])
        break
' "$metadata" "$name" "$version")
  if [ -z "$dir" ]; then
    echo "| $name | $version | - | not found |$(printf ' |%.0s' "${rules[@]}")" >> "$report"
    continue
  fi
  json="$out/$name-$version.json"
  # --no-cache: the facts are those of this build (a cache is keyed by the tool's version, not
  # by each change to the analysis), and nothing is written into the downloaded sources.
  # --preview: the rules and shapes in preview are measured too (their precision here decides
  # when they become stable).
  (cd "$dir" && "$lint" . --format json --exit-zero --no-cache --preview > "$json")
  read -r files count by_rule < <(python3 -c '
import collections, json, sys
data = json.load(open(sys.argv[1]))
codes = collections.Counter(d["code"] for d in data["diagnostics"])
cells = " | ".join(str(codes.get(rule, 0)) for rule in sys.argv[2:])
print(data["summary"]["files"], data["summary"]["diagnostics"], cells)
' "$json" "${rules[@]}")
  echo "| $name | $version | $files | $count | $by_rule |" >> "$report"
  if [ "$count" != "0" ]; then
    details+=$'\n'"## $name $version"$'\n\n'
    details+=$(cd "$dir" && "$lint" . --format concise --exit-zero --no-cache --preview | sed 's/^/- /')
    details+=$'\n'
  fi
done
printf '%s\n' "$details" >> "$report"
echo "wrote $report"
cat "$report"
