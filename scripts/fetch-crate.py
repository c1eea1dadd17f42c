#!/usr/bin/env python3
"""Download one published crate's source from crates.io, as cargo does, and print
"name version dir".

    fetch-crate.py NAME VERSION DEST

The `.crate` file's SHA-256 must match the checksum in the registry's index; the archive is
unpacked into DEST/NAME-VERSION (once: an existing directory is reused). Only regular files and
directories inside that directory are written.
"""
import hashlib
import io
import json
import os
import sys
import tarfile
import urllib.request

INDEX = "https://index.crates.io"
DOWNLOAD = "https://static.crates.io/crates"


def index_path(name):
    name = name.lower()
    if len(name) <= 2:
        return f"{len(name)}/{name}"
    if len(name) == 3:
        return f"3/{name[0]}/{name}"
    return f"{name[:2]}/{name[2:4]}/{name}"


def checksum(name, version):
    with urllib.request.urlopen(f"{INDEX}/{index_path(name)}", timeout=60) as response:
        for line in response.read().decode("utf-8").splitlines():
            entry = json.loads(line)
            if entry["vers"] == version:
                if entry.get("yanked"):
                    sys.exit(f"{name} {version} is yanked")
                return entry["cksum"]
    sys.exit(f"{name} {version} is not in the index")


def main():
    name, version, dest = sys.argv[1:4]
    target = os.path.join(dest, f"{name}-{version}")
    if not os.path.isdir(target):
        expected = checksum(name, version)
        url = f"{DOWNLOAD}/{name}/{name}-{version}.crate"
        with urllib.request.urlopen(url, timeout=300) as response:
            data = response.read()
        actual = hashlib.sha256(data).hexdigest()
        if actual != expected:
            sys.exit(f"{name} {version}: checksum {actual} is not the index's {expected}")
        os.makedirs(dest, exist_ok=True)
        partial = target + ".partial"
        prefix = f"{name}-{version}/"
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            members = [
                m for m in archive.getmembers()
                if (m.isfile() or m.isdir())
                and m.name.startswith(prefix)
                and ".." not in m.name.split("/")
            ]
            for member in members:
                member.name = member.name[len(prefix):] or "."
            archive.extractall(partial, members=members, filter="data")
        os.replace(partial, target)
    print(name, version, os.path.abspath(target))


if __name__ == "__main__":
    main()
