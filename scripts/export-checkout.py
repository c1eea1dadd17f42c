#!/usr/bin/env python3
"""Export one commit of a git directory (a mirror with no work tree) into a directory, keeping
what cargo-mcp-lint reads: Rust sources, manifests, lock files and configuration (`*.rs`,
`Cargo.toml`, `Cargo.lock`, `mcp-lint.toml`, `.mcp-lint.toml`, `rust-toolchain*`). Build
output that a repository committed by mistake (`target/` directories) is left out, and so is a
blob the mirror does not hold (snapshots may leave their largest files out): such paths are
listed on stderr.

    scripts/export-checkout.py GIT_DIR COMMIT DEST
"""
import os
import subprocess
import sys

KEPT_NAMES = {"Cargo.toml", "Cargo.lock", "mcp-lint.toml", ".mcp-lint.toml",
              "rust-toolchain", "rust-toolchain.toml"}


def kept(path):
    parts = path.split("/")
    if "target" in parts[:-1] or ".." in parts or path.startswith("/"):
        return False
    name = parts[-1]
    return name.endswith(".rs") or name in KEPT_NAMES


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    git_dir, commit, dest = sys.argv[1:]
    listing = subprocess.run(
        ["git", "-C", git_dir, "ls-tree", "-r", "-z", commit],
        check=True, capture_output=True).stdout
    entries = []
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, path = record.split(b"\t", 1)
        mode, kind, oid = meta.split()
        path = path.decode("utf-8", "surrogateescape")
        if kind == b"blob" and mode != b"120000" and kept(path):
            entries.append((oid.decode(), path))
    batch = subprocess.Popen(
        ["git", "-C", git_dir, "cat-file", "--batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = 0
    for oid, path in entries:
        batch.stdin.write(oid.encode() + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if len(header) < 3 or header[1] != b"blob":
            missing += 1
            print(f"absent from the mirror: {path}", file=sys.stderr)
            continue
        body = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)
        target = os.path.join(dest, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as out:
            out.write(body)
    batch.stdin.close()
    batch.wait()
    print(f"{len(entries) - missing} files exported, {missing} absent", file=sys.stderr)


if __name__ == "__main__":
    main()
