#!/usr/bin/env python3
"""The real-servers check's report: per rule, the findings of the default run and of the preview
run judged by the triaged verdicts (precision), the known violations found (recall), and what
has no verdict yet.

    real-servers-report.py OUT_DIR REPOS VERDICTS

OUT_DIR holds "<key>.json" (the default run's JSON report of each repository) and
"<key>.preview.json" (the run with --preview). REPOS has one "key commit [cwd=DIR]" line per
repository; a "# batch: NAME" line starts the batch the repositories below it were added in,
and each batch is also reported on its own. VERDICTS is JSON: "findings", each {repo, code, path, line, verdict: TP|FP, why?}
keyed by the primary span's start line, and "missed", each {repo, code, accept: [[path, first,
last], ..], why}: a known violation, found by a finding of its code whose primary span touches
one of the accepted line ranges. A finding that finds a known violation is true. Recall counts
the known violations: the verdicts' true findings (found when reported at the same line) and the
missed ones.
"""
import collections
import json
import os
import sys

# MCP000 (a file not analysed) is judged like the rules: a true one is a file the tool could
# not read, reported as such.
RULES = ["MCP000", "MCP001", "MCP002", "MCP003", "MCP004", "MCP005", "MCP006", "MCP007"]


def repositories(path):
    """The repositories' keys, and the batch each was added in (a `# batch: NAME` line starts
    one)."""
    keys, batches, batch = [], {}, "-"
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("# batch:"):
                batch = line[len("# batch:"):].strip()
                continue
            fields = line.split()
            if fields and not fields[0].startswith("#"):
                keys.append(fields[0])
                batches[fields[0]] = batch
    return keys, batches


def findings(path):
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        report = json.load(handle)
    return [
        (d["code"], d["path"], d["span"]["start"]["line"], d["span"]["end"]["line"])
        for d in report["diagnostics"]
    ]


def finds(missed, finding):
    code, path, first, last = finding
    return missed["code"] == code and any(
        p == path and first <= end and last >= start for p, start, end in missed["accept"]
    )


def judge(repo, found, verdicts, missed):
    """Each finding's verdict (True, False or None: untriaged) and the known violations found."""
    judged, found_missed = [], set()
    for finding in found:
        code, path, line, _ = finding
        verdict = verdicts.get((repo, code, path, line))
        hits = [i for i, m in enumerate(missed) if m["repo"] == repo and finds(m, finding)]
        found_missed.update(hits)
        if verdict is None and hits:
            verdict = True
        judged.append((finding, verdict))
    return judged, found_missed


def table(title, keys, out, suffix, verdicts, missed):
    counts = {rule: collections.Counter() for rule in RULES}
    untriaged, found_missed, reported = [], set(), set()
    for repo in keys:
        found = findings(os.path.join(out, repo + suffix))
        if found is None:
            continue
        judged, hits = judge(repo, found, verdicts, missed)
        found_missed |= hits
        reported |= {(repo, code, path, line) for code, path, line, _ in found}
        for (code, path, line, _), verdict in judged:
            if code not in counts:
                continue
            key = {True: "true", False: "false", None: "untriaged"}[verdict]
            counts[code][key] += 1
            if verdict is None:
                untriaged.append(f"- {repo} `{path}:{line}` {code}")
    # The known violations: the true findings of the verdicts, and the violations missed.
    known = collections.Counter(m["code"] for m in missed if m["repo"] in keys)
    hit = collections.Counter(missed[i]["code"] for i in found_missed)
    lost = []
    for key, true in sorted(verdicts.items()):
        if true and key[0] in keys:
            known[key[1]] += 1
            if key in reported:
                hit[key[1]] += 1
            else:
                lost.append(f"- {key[0]} `{key[2]}:{key[3]}` {key[1]}")
    lines = [f"## {title}", "", "| rule | findings | true | false | untriaged | precision | known violations found (recall) |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for rule in RULES:
        c = counts[rule]
        total = sum(c.values())
        judged = c["true"] + c["false"]
        precision = f"{c['true'] / judged:.2f}" if judged else "-"
        recall = f"{hit[rule]}/{known[rule]} ({hit[rule] / known[rule]:.2f})" if known[rule] else "-"
        if total or known[rule]:
            lines.append(f"| {rule} | {total} | {c['true']} | {c['false']} | {c['untriaged']} | {precision} | {recall} |")
    lines.append("")
    if untriaged:
        lines += ["Untriaged:", ""] + untriaged + [""]
    if lost:
        lines += ["True findings of the verdicts not reported:", ""] + lost + [""]
    not_found = [m for i, m in enumerate(missed) if m["repo"] in keys and i not in found_missed]
    if not_found:
        lines += ["Known violations not found:", ""]
        lines += [f"- {m['repo']} {m['code']} {m['accept'][0][0]}:{m['accept'][0][1]}: {m['why']}" for m in not_found]
        lines.append("")
    return lines


def main():
    out, repos_path, verdicts_path = sys.argv[1:4]
    keys, batches = repositories(repos_path)
    with open(verdicts_path, encoding="utf-8") as handle:
        data = json.load(handle)
    verdicts = {
        (v["repo"], v["code"], v["path"], v["line"]): v["verdict"] == "TP" for v in data["findings"]
    }
    missed = data["missed"]
    present = [k for k in keys if os.path.exists(os.path.join(out, k + ".json"))]
    lines = ["# Real servers", "", f"{len(present)} of {len(keys)} repositories linted.", ""]
    lines += table("All: default run", present, out, ".json", verdicts, missed)
    lines += table("All: with --preview", present, out, ".preview.json", verdicts, missed)
    # Each batch on its own: a batch's first-contact numbers are its first report's.
    for batch in dict.fromkeys(batches[k] for k in present):
        members = [k for k in present if batches[k] == batch]
        lines.append(f"# Batch {batch} ({len(members)} repositories)")
        lines.append("")
        lines += table("Default run", members, out, ".json", verdicts, missed)
        lines += table("With --preview", members, out, ".preview.json", verdicts, missed)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
