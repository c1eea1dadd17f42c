#!/usr/bin/env python3
"""The ecosystem check's report: counts per crate and rule, each rule's precision from the
checked-in verdicts, and the findings that have no verdict yet.

    ecosystem-report.py OUT_DIR LOCATIONS VERDICTS

LOCATIONS has one "name version dir" line per crate; OUT_DIR holds "<name>-<version>.json", the
JSON report of each. VERDICTS is a tab-separated file with a header line:

    crate  version  location  rule  verdict  reason

where location is "path:line:column" of the finding's primary span (relative to the crate's
root), verdict is "true" or "false", and reason says why, in the code's terms.
"""
import collections
import json
import sys

RULES = ["MCP001", "MCP002", "MCP003", "MCP004", "MCP005", "MCP006", "MCP007"]


def load_verdicts(path):
    verdicts = {}
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            line = line.rstrip("\n")
            if number == 1 or not line.strip() or line.startswith("#"):
                continue
            fields = line.split("\t")
            if len(fields) != 6 or fields[4] not in ("true", "false"):
                sys.exit(f"{path}:{number}: expected 6 tab-separated fields with verdict true or false")
            crate, version, location, rule, verdict, reason = fields
            verdicts[(crate, version, location, rule)] = (verdict == "true", reason)
    return verdicts


def main():
    out, locations, verdicts_path = sys.argv[1:4]
    verdicts = load_verdicts(verdicts_path)
    rows, untriaged, seen = [], [], set()
    per_rule = {rule: collections.Counter() for rule in RULES}
    with open(locations, encoding="utf-8") as handle:
        crates = [line.split(maxsplit=2) for line in handle if line.strip()]
    for name, version, _dir in crates:
        data = json.load(open(f"{out}/{name}-{version}.json", encoding="utf-8"))
        codes = collections.Counter()
        for d in data["diagnostics"]:
            code = d["code"]
            codes[code] += 1
            start = d["span"]["start"]
            location = f'{d["path"]}:{start["line"]}:{start["column"]}'
            key = (name, version, location, code)
            seen.add(key)
            counter = per_rule.setdefault(code, collections.Counter())
            counter["findings"] += 1
            if key in verdicts:
                counter["true" if verdicts[key][0] else "false"] += 1
            else:
                counter["untriaged"] += 1
                untriaged.append((name, version, location, code, d["message"]))
        rows.append((name, version, data["summary"]["files"], sum(codes.values()), codes))

    print("# Ecosystem check\n")
    print(f"{len(crates)} crates.\n")
    print("| crate | version | files | findings | " + " | ".join(RULES) + " |")
    print("|---|---|---:|---:|" + "---:|" * len(RULES))
    for name, version, files, count, codes in rows:
        cells = " | ".join(str(codes.get(rule, 0)) for rule in RULES)
        print(f"| {name} | {version} | {files} | {count} | {cells} |")

    print("\n## Precision by rule\n")
    print("| rule | findings | true | false | untriaged | precision |")
    print("|---|---:|---:|---:|---:|---:|")
    for rule, counter in sorted(per_rule.items()):
        judged = counter["true"] + counter["false"]
        precision = f'{100 * counter["true"] / judged:.1f}%' if judged else "-"
        print(f'| {rule} | {counter["findings"]} | {counter["true"]} | {counter["false"]} '
              f'| {counter["untriaged"]} | {precision} |')

    print("\n## Untriaged findings\n")
    if not untriaged:
        print("None: every finding has a verdict.")
    for name, version, location, code, message in untriaged:
        print(f"- {name} {version} `{location}` {code}: {message}")

    stale = sorted(key for key in verdicts if key not in seen and key[0] in {c[0] for c in crates})
    print("\n## Verdicts without a finding\n")
    if not stale:
        print("None.")
    for name, version, location, code in stale:
        verdict, reason = verdicts[(name, version, location, code)]
        kind = "true positive now missed" if verdict else "false positive now gone"
        print(f"- {name} {version} `{location}` {code} ({kind}): {reason}")


if __name__ == "__main__":
    main()
