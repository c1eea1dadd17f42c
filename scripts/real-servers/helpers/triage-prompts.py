#!/usr/bin/env python3
"""Prompts for the helpers that triage a first-contact window (see docs/ecosystem.md). Run from
target/real-servers, where `all/` holds the checkouts:

    scripts/real-servers/helpers/triage-prompts.py TAG NGROUPS BATCH:OUTDIR [BATCH:OUTDIR ...]

Writes triage/TAG-gN.md (one prompt per group, the repositories balanced by their findings and
size); each helper writes triage/TAG-gN.json ({"findings": [..], "missed": [..]}), merged into
scripts/real-servers/verdicts.json afterwards."""
import json, os, sys
tag, ngroups = sys.argv[1], int(sys.argv[2])
root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../..'))
repos = os.path.join(root, 'scripts/real-servers/repos.txt')
wanted = {}
for arg in sys.argv[3:]:
    b, out = arg.split(':'); wanted[b] = out
items = []
batch = None
for line in open(repos):
    if line.startswith('# batch:'):
        batch = line.split()[2]; continue
    p = line.split()
    if not p or p[0].startswith('#') or batch not in wanted: continue
    key, cwd = p[0], '.'
    for f in p[2:]:
        if f.startswith('cwd='): cwd = f[4:]
    out = wanted[batch]
    def load(s):
        fp = os.path.join(out, key + s)
        if not os.path.exists(fp): return []
        return json.load(open(fp))['diagnostics']
    dflt = {(d['code'], d['path'], d['span']['start']['line']) for d in load('.json')}
    fs = []
    for d in load('.preview.json'):
        k = (d['code'], d['path'], d['span']['start']['line'])
        pv = any(n.startswith('preview:') for n in d.get('notes', []))
        fs.append({'code': d['code'], 'path': d['path'], 'line': k[2], 'message': d['message'],
                   'mode': 'default' if k in dflt else 'preview', 'preview': pv or k not in dflt})
    ck = os.path.join(os.path.abspath('all'), key)
    nfiles = sum(len([f for f in fl if f.endswith('.rs')]) for _, _, fl in os.walk(ck))
    items.append((key, cwd, fs, nfiles))
os.makedirs('triage', exist_ok=True)
groups = [[] for _ in range(ngroups)]; load_ = [0]*ngroups
for it in sorted(items, key=lambda i: -(len(i[2])*20 + min(i[3], 200))):
    g = load_.index(min(load_)); groups[g].append(it); load_[g] += len(it[2])*20 + min(it[3], 200) + 30
head = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'triage-head.md')).read()
for g, its in enumerate(groups):
    outp = os.path.abspath(f'triage/{tag}-g{g}.json')
    lines = [head.replace('OUTFILE', outp), '', '## Your repositories', '']
    for key, cwd, fs, n in its:
        lines.append(f'### {key}  (checkout: {os.path.abspath("all")}/{key}; linted in cargo mode from `{cwd}`; ~{n} .rs files)')
        if not fs: lines.append('- no findings')
        for f in fs:
            lines.append(f"- {f['code']} {f['path']}:{f['line']} [{f['mode']}{', preview note' if f['preview'] and f['mode']=='default' else ''}] {f['message']}")
        lines.append('')
    open(f'triage/{tag}-g{g}.md', 'w').write('\n'.join(lines))
    print(g, len(its), sum(len(i[2]) for i in its))
