#!/usr/bin/env bash
# The real-servers check: lint public MCP server repositories from GitHub, each pinned at a commit
# (scripts/real-servers/repos.txt), in cargo mode from the repository's root (or its `cwd=`), every member of its workspace, and
# compare every finding with the triaged verdicts (scripts/real-servers/verdicts.json: true and
# false findings, and known violations the tool must find). Prints each rule's precision and
# recall, the findings nobody has triaged yet and the known violations missed.
#
#   scripts/real-servers-check.sh CHECKOUTS [OUTPUT_DIR]     (default: target/real-servers/out)
#
# CHECKOUTS holds one directory per repository, named like its repos.txt key (`owner+name`)
# (a line may add `cwd=DIR`, where cargo mode runs, or `paths=a,b` for a repository with no
# manifest, linted in path mode),
# with the pinned commit's files. To make one from a clone or a mirror of the repository:
#
#   scripts/export-checkout.py <git dir> <commit> CHECKOUTS/<owner+name>
#
# (the search tool's `fetch github:owner/name` brings a mirror to /work/.mirror/owner+name/repo).
# Nothing is written into the checkouts; the network is not used. MCP_LINT_BIN=/path/to/binary lints
# with that binary instead of building this tree (first contact is measured with the build of the
# commit named in the batch's line of repos.txt).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
checkouts=$(cd "${1:?usage: real-servers-check.sh CHECKOUTS [OUTPUT_DIR]}" && pwd)
out=${2:-"$root/target/real-servers/out"}
mkdir -p "$out"
out=$(cd "$out" && pwd)
repos="$root/scripts/real-servers/repos.txt"

if [[ -n "${MCP_LINT_BIN:-}" ]]; then
  # A binary built earlier (say, at the commit a batch's first contact is measured with).
  lint=$MCP_LINT_BIN
else
  echo "building cargo-mcp-lint (release)"
  cargo build --release --quiet --manifest-path "$root/Cargo.toml"
  lint="$root/target/release/cargo-mcp-lint"
fi

missing=0
while read -r key commit rest; do
  [[ -z "$key" || "$key" == \#* ]] && continue
  cwd=""
  paths=""
  for field in $rest; do
    case "$field" in
      cwd=*) cwd=${field#cwd=} ;;
      # A repository with no manifest at all: its files are linted in path mode, as its users
      # must (`paths=src,examples`).
      paths=*) paths=${field#paths=} ;;
    esac
  done
  dir="$checkouts/$key"
  if [[ ! -d "$dir" ]]; then
    echo "missing checkout: $dir (commit $commit)" >&2
    missing=$((missing + 1))
    continue
  fi
  if [[ -n "$paths" ]]; then
    echo "linting $key (path mode: $paths)"
    IFS=, read -r -a named <<< "$paths"
    (cd "$dir/$cwd" && "$lint" --format json --exit-zero --no-cache "${named[@]}" > "$out/$key.json")
    (cd "$dir/$cwd" && "$lint" --format json --exit-zero --no-cache --preview "${named[@]}" > "$out/$key.preview.json")
    continue
  fi
  if [[ ! -f "$dir/$cwd/Cargo.toml" ]]; then
    # Cargo mode would look for a manifest in the directories above, outside the checkout.
    echo "no Cargo.toml in $dir/$cwd: skipped" >&2
    continue
  fi
  echo "linting $key"
  # Cargo mode over the whole workspace (examples are product), by default and with --preview (preview rules and shapes are
  # measured too); no cache, so that each run measures the analysis as built.
  (cd "$dir/$cwd" && "$lint" --workspace --format json --exit-zero --no-cache > "$out/$key.json")
  (cd "$dir/$cwd" && "$lint" --workspace --format json --exit-zero --no-cache --preview > "$out/$key.preview.json")
done < "$repos"

python3 "$root/scripts/real-servers-report.py" "$out" "$repos" "$root/scripts/real-servers/verdicts.json" \
  > "$out/report.md"
cat "$out/report.md"
if [[ $missing -gt 0 ]]; then
  echo "$missing checkouts missing: their findings are not counted" >&2
fi
