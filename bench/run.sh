#!/usr/bin/env bash
# The benchmark: cargo-mcp-lint against the syn parse-everything floor, ast-grep and semgrep on a
# pinned corpus of real crates (about 1.1M lines of Rust), medians of several runs: 2 threads, and
# 1 thread and every core for the floor, the cold run and ast-grep; x2 and x4 copies of the
# corpus; its crates linted one by one; the phases of a cold and a warm run (--timings).
# It downloads the corpus with cargo and the peers from PyPI, so CI does not run it.
#
#   bench/run.sh [RUNS]      (default 5; results in target/bench/results.md)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-5}
work="$root/target/bench"
mkdir -p "$work"

crates=(
  "tokio =1.54.1" "pmcp =2.23.0" "rmcp =3.11.0" "rmcp_old:rmcp =2.1.0" "rust-mcp-schema =2.0.0"
  "rust-mcp-sdk =2.0.0" "turbomcp =4.0.0-alpha.5" "syn =2.0.119" "regex-automata =0.4.19"
  "tracing =0.1.44" "jsonschema =0.61.2" "time =0.3.55" "serde =1.0.229" "clap_builder =4.6.7"
)

echo "== building cargo-mcp-lint and the floor (release)"
cargo build --release --quiet --manifest-path "$root/Cargo.toml"
cargo build --release --quiet --manifest-path "$root/bench/floor/Cargo.toml"
tool="$root/target/release/cargo-mcp-lint"
floor="$root/bench/floor/target/release/syn-floor"

echo "== fetching the corpus"
fetch="$work/fetch"
mkdir -p "$fetch/src"
{
  printf '[package]\nname = "bench-corpus"\nversion = "0.0.0"\nedition = "2021"\npublish = false\n\n[workspace]\n\n[dependencies]\n'
  for entry in "${crates[@]}"; do
    read -r spec version <<<"$entry"
    key=${spec%%:*}; name=${spec#*:}
    echo "${key//-/_} = { package = \"$name\", version = \"$version\", default-features = false }"
  done
} > "$fetch/Cargo.toml"
echo "fn main() {}" > "$fetch/src/main.rs"
(cd "$fetch" && cargo fetch --quiet && cargo metadata --format-version 1 --quiet > "$work/metadata.json")
corpus="$work/corpus-1"
if [ ! -d "$corpus" ]; then
  mkdir -p "$corpus"
  for entry in "${crates[@]}"; do
    read -r spec version <<<"$entry"
    name=${spec#*:}; version=${version#=}
    dir=$(python3 -c '
import json, sys
for p in json.load(open(sys.argv[1]))["packages"]:
    if p["name"] == sys.argv[2] and p["version"] == sys.argv[3]:
        print(p["manifest_path"].rsplit("/", 1)[0]); break
' "$work/metadata.json" "$name" "$version")
    cp -r "$dir" "$corpus/$name-$version"
  done
  rm -rf "$corpus"/*/target
fi
for copies in 2 4; do
  if [ ! -d "$work/corpus-$copies" ]; then
    mkdir -p "$work/corpus-$copies"
    for i in $(seq 1 "$copies"); do cp -r "$corpus" "$work/corpus-$copies/copy-$i"; done
  fi
done
lines=$(find "$corpus" -name '*.rs' -print0 | xargs -0 cat | wc -l)
files=$(find "$corpus" -name '*.rs' | wc -l)
echo "corpus: $files files, $lines lines"

echo "== installing the peers (PyPI, pinned) into a virtual environment"
venv="$work/venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "ast-grep-cli==0.51.1" "semgrep==1.185.0"

cache="$work/cache"
rm -rf "$cache"
cores=$(nproc)
echo "== measuring ($runs runs each after a warm-up; 2 threads unless named: -t1, -tall = $cores)"
lint=("$tool" --format concise --exit-zero --quiet)
python3 "$root/bench/measure.py" "$runs" "$work/results.json" \
  floor -- "$floor" "$corpus" :: \
  floor-t1 -- threads=1 "$floor" "$corpus" :: \
  floor-tall -- threads="$cores" "$floor" "$corpus" :: \
  cold-t1 -- cwd="$work" threads=1 "${lint[@]}" --no-cache "$corpus" :: \
  cold-tall -- cwd="$work" threads="$cores" "${lint[@]}" --no-cache "$corpus" :: \
  ast-grep-t1 -- threads=1 "$venv/bin/ast-grep" scan --rule "$root/bench/rules/ast-grep.yml" --threads 1 "$corpus" :: \
  ast-grep-tall -- threads="$cores" "$venv/bin/ast-grep" scan --rule "$root/bench/rules/ast-grep.yml" --threads "$cores" "$corpus" :: \
  one-by-one -- cwd="$work" sh -c 'for d in "$1"/*/; do "$2" --format concise --exit-zero --quiet --no-cache "$d"; done' sh "$corpus" "$tool" :: \
  cold -- cwd="$work" "${lint[@]}" --no-cache "$corpus" :: \
  warm -- cwd="$corpus" "${lint[@]}" . :: \
  ast-grep -- "$venv/bin/ast-grep" scan --rule "$root/bench/rules/ast-grep.yml" --threads 2 "$corpus" :: \
  semgrep -- "$venv/bin/semgrep" scan --config "$root/bench/rules/semgrep.yml" --jobs 2 --metrics off --quiet --disable-version-check "$corpus" :: \
  cold-x2 -- cwd="$work" "${lint[@]}" --no-cache "$work/corpus-2" :: \
  cold-x4 -- cwd="$work" "${lint[@]}" --no-cache "$work/corpus-4" :: \
  seed-server-cargo-mode -- cwd="$root/examples/seed-server" "${lint[@]}" --no-cache

# Where the time goes: the phases of one cold and one warm run (--timings, 2 threads).
(cd "$work" && RAYON_NUM_THREADS=2 "${lint[@]}" --no-cache --timings "$corpus" 2>&1 >/dev/null) |
  sed -n '/^Timings/,$p' > "$work/timings-cold.txt"
(cd "$corpus" && RAYON_NUM_THREADS=2 "${lint[@]}" --timings . 2>&1 >/dev/null) |
  sed -n '/^Timings/,$p' > "$work/timings-warm.txt"

python3 - "$work/results.json" "$files" "$lines" "$work/timings-cold.txt" > "$work/results.md" <<'PY'
import json, re, sys
r = json.load(open(sys.argv[1]))
files, lines = sys.argv[2], sys.argv[3]
serial = re.search(r"serial .*?([0-9.]+)% of the wall time", open(sys.argv[4]).read())
serial = float(serial.group(1)) if serial else float("nan")
f = lambda k: r[k]["wall"]
print(f"corpus: {files} files, {lines} lines; medians of {r['floor']['runs']} runs\n")
print("| contender | threads | wall (s) | CPU (s) | peak RSS (MiB) |")
print("|---|---:|---:|---:|---:|")
for k in r:
    print(f"| {k} | {r[k]['threads']} | {r[k]['wall']:.3f} | {r[k]['cpu']:.3f} | {r[k]['rss_mib']:.1f} |")
print()
print("| target | measured | met |")
print("|---|---|---|")
checks = [
    ("cold <= 0.5x floor, 1 thread", f"{f('cold-t1')/f('floor-t1'):.2f}x", f('cold-t1') <= 0.5 * f('floor-t1')),
    ("cold <= 0.5x floor", f"{f('cold')/f('floor'):.2f}x", f('cold') <= 0.5 * f('floor')),
    ("cold >= 3x faster than ast-grep, 1 thread", f"{f('ast-grep-t1')/f('cold-t1'):.2f}x", f('ast-grep-t1') >= 3 * f('cold-t1')),
    ("cold >= 3x faster than ast-grep", f"{f('ast-grep')/f('cold'):.2f}x", f('ast-grep') >= 3 * f('cold')),
    ("cold faster than semgrep", f"{f('semgrep')/f('cold'):.2f}x", f('semgrep') > f('cold')),
    ("warm <= 0.1x cold", f"{f('warm')/f('cold'):.2f}x", f('warm') <= 0.1 * f('cold')),
    ("peak RSS <= 64 MiB", f"{r['cold']['rss_mib']:.0f} MiB", r['cold']['rss_mib'] <= 64),
    ("x2 within 10% of 2x", f"{f('cold-x2')/f('cold'):.2f}x", abs(f('cold-x2') / (2 * f('cold')) - 1) <= 0.10),
    ("peak RSS x4 within 10% of x1", f"{r['cold-x4']['rss_mib']/r['cold']['rss_mib']:.2f}x", r['cold-x4']['rss_mib'] <= 1.10 * r['cold']['rss_mib']),
    ("x4 within 10% of 4x", f"{f('cold-x4')/f('cold'):.2f}x", abs(f('cold-x4') / (4 * f('cold')) - 1) <= 0.10),
    ("seed-server < 150 ms", f"{1000*f('seed-server-cargo-mode'):.0f} ms", f('seed-server-cargo-mode') < 0.150),
    ("serial part <= 5% of a cold run, 2 threads", f"{serial:.0f}%", serial <= 5),
    ("all cores: cold vs floor (information)", f"{f('cold-tall')/f('floor-tall'):.2f}x", True),
    ("packages one by one vs the tree at once (information)", f"{f('one-by-one')/f('cold'):.2f}x", True),
]
for name, value, ok in checks:
    print(f"| {name} | {value} | {'yes' if ok else 'no'} |")
PY
for kind in cold warm; do
  printf '\nPhases of one %s run (2 threads):\n\n```text\n' "$kind"
  cat "$work/timings-$kind.txt"
  printf '```\n'
done >> "$work/results.md"
echo
cat "$work/results.md"
