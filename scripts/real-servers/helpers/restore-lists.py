#!/usr/bin/env python3
"""Lists of checkouts to restore on a new machine (see docs/ecosystem.md): the repositories of
scripts/real-servers/repos.txt with a false finding first (most first), then those with verdicts
(most first), then the newest batches', cut at LIMIT and dealt into N lists of `KEY COMMIT`
lines, one per helper (restore-prompt.md):

    scripts/real-servers/helpers/restore-lists.py LIMIT N OUT_DIR [FROM_BATCH]
"""
import collections
import json
import os
import sys

root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../..'))
limit, n, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
from_batch = int(sys.argv[4]) if len(sys.argv) > 4 else 10**9
verdicts = json.load(open(os.path.join(root, 'scripts/real-servers/verdicts.json')))
commits, order, recent, batch = {}, [], [], 0
for line in open(os.path.join(root, 'scripts/real-servers/repos.txt')):
    fields = line.split()
    if line.startswith('# batch:'):
        batch = int(fields[2]) if len(fields) > 2 and fields[2].isdigit() else 0
        continue
    if not fields or fields[0].startswith('#'):
        continue
    commits[fields[0]] = fields[1]
    order.append(fields[0])
    if batch >= from_batch:
        recent.append(fields[0])
false, count = collections.Counter(), collections.Counter()
for finding in verdicts['findings']:
    count[finding['repo']] += 1
    if finding['verdict'] != 'TP':
        false[finding['repo']] += 1
for missed in verdicts['missed']:
    count[missed['repo']] += 1
chosen = sorted((k for k in order if false[k]), key=lambda k: -false[k])
taken = set(chosen)
chosen += sorted((k for k in order if k not in taken and count[k]), key=lambda k: -count[k])
taken = set(chosen)
chosen += [k for k in recent if k not in taken]
chosen = [k for k in chosen if k in commits][:limit]
os.makedirs(out, exist_ok=True)
for i in range(n):
    with open(os.path.join(out, f'list{i}.txt'), 'w') as handle:
        for key in chosen[i::n]:
            handle.write(f'{key} {commits[key]}\n')
print(len(chosen), 'repositories in', n, 'lists')
