#!/usr/bin/env python3
"""Runs every fuzz target for a while and prints the run table of docs/fuzzing.md.

usage: fuzz_runs.py BUILD SECONDS
           fuzz/build.sh BUILD (clang with sanitizers and coverage; it reuses a configured BUILD),
           then fuzz/run.sh BUILD SECONDS on a copy of fuzz/corpus (the repository's corpus is
           not changed: merging what a run found is a separate, deliberate step), and per target
           the executions, their rate, the coverage reached (edges and features, the run's last
           `cov:`/`ft:`) and how many inputs the merge would add; then the machine and its load.
A finding (crash, sanitizer report, leak, timeout, out-of-memory) ends the run: exit 1, naming
the target and where its input is.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from results import ROOT, count, fail, machine_now

TARGETS = ["libsvm", "csv", "idx", "ratings", "image", "experiment", "npy", "model"]


def main():
    if len(sys.argv) != 3:
        fail("usage: fuzz_runs.py BUILD SECONDS")
    build, seconds = sys.argv[1], sys.argv[2]
    built = subprocess.run([os.path.join(ROOT, "fuzz", "build.sh"), build], capture_output=True, text=True)
    if built.returncode != 0:
        fail(f"fuzz/build.sh {build} exited {built.returncode}: {built.stderr.strip()[-400:]}")
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as work:
        corpus, out = os.path.join(work, "corpus"), os.path.join(work, "runs")
        shutil.copytree(os.path.join(ROOT, "fuzz", "corpus"), corpus)
        before = {t: len(os.listdir(os.path.join(corpus, t))) for t in TARGETS}
        ran = subprocess.run([os.path.join(ROOT, "fuzz", "run.sh"), build, seconds, *TARGETS],
                             env=dict(os.environ, CORPUS=corpus, OUT=out), capture_output=True, text=True)
        if ran.returncode != 0:
            sys.exit(f"fuzz_runs.py: a finding: {ran.stderr.strip()[-600:]}")
        rows = []
        for t in TARGETS:
            log = open(os.path.join(out, t, "run.log"), errors="replace").read()
            done = re.findall(r"cov: (\d+) ft: (\d+)", log)
            executed = re.search(r"stat::number_of_executed_units: (\d+)", log).group(1)
            rate = re.search(r"stat::average_exec_per_sec:\s+(\d+)", log).group(1)
            added = len(os.listdir(os.path.join(corpus, t))) - before[t]
            rows.append((t, int(executed), int(rate), *done[-1], added))
    load_after = os.getloadavg()[0]
    print(f"| target | executions in {seconds} s | exec/s | coverage (edges) | features | inputs the merge would add |")
    print("|---|---:|---:|---:|---:|---:|")
    for t, executed, rate, cov, ft, added in rows:
        print(f"| `fuzz_{t}` | {count(executed)} | {count(rate)} | {cov} | {ft} | {added} |")
    print()
    print(f"No crash, sanitizer report, leak, timeout or out-of-memory. Measured on {machine_now()}, load "
          f"{load_before:.1f} → {load_after:.1f}; the corpus had {count(sum(before.values()))} files.")


if __name__ == "__main__":
    main()
