#!/usr/bin/env python3
"""Run benchmark commands several times and print medians of wall time, CPU time and peak memory.

Usage: measure.py RUNS OUTPUT.json NAME -- [cwd=DIR] [threads=N] CMD... [:: NAME -- ...]...
Each command runs once as a warm-up, then RUNS times, in DIR if given, with RAYON_NUM_THREADS=N
(default 2).
"""
import json
import os
import statistics
import subprocess
import sys
import time


def run_once(cmd, cwd, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)


def main():
    runs = int(sys.argv[1])
    output = sys.argv[2]
    args = sys.argv[3:]
    specs = []
    while args:
        name = args[0]
        if args[1] != "--":
            sys.exit(f"expected -- after {name}")
        rest = args[2:]
        if "::" in rest:
            cut = rest.index("::")
            cmd, args = rest[:cut], rest[cut + 1:]
        else:
            cmd, args = rest, []
        cwd = None
        threads = 2
        while cmd and (cmd[0].startswith("cwd=") or cmd[0].startswith("threads=")):
            key, value = cmd[0].split("=", 1)
            if key == "cwd":
                cwd = value
            else:
                threads = int(value)
            cmd = cmd[1:]
        specs.append((name, cmd, cwd, threads))
    results = {}
    for name, cmd, cwd, threads in specs:
        run_once(cmd, cwd, threads)
        samples = [run_once(cmd, cwd, threads) for _ in range(runs)]
        results[name] = {
            "wall": statistics.median(s[0] for s in samples),
            "cpu": statistics.median(s[1] for s in samples),
            "rss_mib": statistics.median(s[2] for s in samples),
            "exit": samples[-1][3],
            "runs": runs,
            "threads": threads,
        }
        r = results[name]
        print(f"{name:<28} wall {r['wall']:7.3f} s   cpu {r['cpu']:7.3f} s   peak {r['rss_mib']:7.1f} MiB   exit {r['exit']}", flush=True)
    with open(output, "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
