#!/usr/bin/env python3
"""The findings that differ between two output directories of scripts/real-servers-check.sh (per
report file: code, path, line, message), `-` for the first's only and `+` for the second's:

    scripts/real-servers/helpers/diff-outputs.py OUT_BEFORE OUT_AFTER
"""
import json, os, sys
a, b = sys.argv[1], sys.argv[2]
def load(p):
    if not os.path.exists(p): return None
    try: d = json.load(open(p))
    except Exception as e: return {('ERR', str(e), 0, '')}
    return {(x['code'], x['path'], x['span']['start']['line'], x['message']) for x in d['diagnostics']}
n = 0
for f in sorted(set(os.listdir(a)) | set(os.listdir(b))):
    if not f.endswith('.json'): continue
    x, y = load(os.path.join(a, f)), load(os.path.join(b, f))
    if x is None or y is None:
        continue
    for t in sorted(x - y): print('-', f, *t); n += 1
    for t in sorted(y - x): print('+', f, *t); n += 1
print(n, 'differences')
