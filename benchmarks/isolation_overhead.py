#!/usr/bin/python3
"""Measures what trial isolation costs: one study run with every trial in a trial host (the
default) and with --in-process, alternately, several times in the same run.

Usage: benchmarks/isolation_overhead.py RANKONE_BINARY OUT_JSON [EXPERIMENT] [--pairs N] [--jobs J]
(benchmarks/run calls it; the default experiment is experiments/tutorial/gfm_vs_spectral.json).

Writes the wall and CPU seconds (user + system, the whole process tree) of each run and the trial
count; benchmarks/targets.py turns them into the targets: wall time isolated / in-process, and the
CPU overhead per trial against its 20 ms budget, both from the medians of the pairs.
"""
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time


def timed_run(command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"isolation_overhead: {' '.join(command)} exited with {done.returncode}:\n{done.stdout}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main():
    args = [a for a in sys.argv[1:]]
    pairs, jobs = 7, 2
    if "--pairs" in args:
        i = args.index("--pairs")
        pairs = int(args[i + 1])
        del args[i:i + 2]
    if "--jobs" in args:
        i = args.index("--jobs")
        jobs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) < 2:
        sys.exit(__doc__)
    binary, out_json = args[0], pathlib.Path(args[1])
    experiment = args[2] if len(args) > 2 else "experiments/tutorial/gfm_vs_spectral.json"
    scratch = pathlib.Path(tempfile.mkdtemp(prefix="rankone_isolation_"))
    runs = {"isolated": [], "in_process": []}
    trials = None
    try:
        for i in range(pairs + 1):  # the first pair warms the page cache and is not counted
            for mode, extra in (("isolated", []), ("in_process", ["--in-process"])):
                out = scratch / f"{mode}{i}"
                wall, cpu, text = timed_run([binary, "run", experiment, "--out", str(out), "--jobs", str(jobs)] + extra)  # its "trials:" line
                shutil.rmtree(out, ignore_errors=True)
                for line in text.splitlines():
                    if line.startswith("trials: "):
                        trials = int(line.split()[1])
                if i > 0:
                    runs[mode].append({"wall_seconds": wall, "cpu_seconds": cpu})
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    out_json.write_text(json.dumps({"experiment": experiment, "jobs": jobs, "trials": trials, "runs": runs,
                                    "load": os.getloadavg()}, indent=1))
    print(f"isolation_overhead: {pairs} pairs of {experiment} ({trials} trials, --jobs {jobs}) -> {out_json}")


if __name__ == "__main__":
    main()
