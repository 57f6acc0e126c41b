#!/usr/bin/env python3
"""Prints the scale table of docs/studies.md from a run of experiments/tutorial/scale_10000.json
(10 000 short trials): the run's wall time as its store recorded it, then `rankone plan`,
`summarize`, `export` and `report` on the folder, each timed here (wall, CPU of the process, its
peak resident memory), with what each produced; then the size of the store per point. The copies
that export and report write go to a scratch folder.

usage: study_scale.py RESULTS_DIR
"""
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

from machine import lscpu, short
from results import ROOT, count, fail, machine_of, rankone, store_rows

EXPERIMENT = "experiments/tutorial/scale_10000.json"
MB = 1e6


def timed(args):
    """(wall seconds, CPU seconds, peak resident MB, stdout) of `rankone ARGS`."""
    started = time.monotonic()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([rankone(), *args], stdout=out, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own CPU and peak memory
        wall = time.monotonic() - started
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            fail(f"rankone {shlex.join(args)} exited {proc.returncode}: {proc.stderr.read().decode()[-2000:]}")
        out.seek(0)
        text = out.read().decode()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024 / MB, text


def stored_run(folder):
    """(trials stored by it, its wall seconds, its command) of the run that stored the most trials."""
    found = store_rows(folder, "SELECT COUNT(*), runs.started, runs.ended, runs.command FROM trials JOIN runs "
                               "ON runs.id = trials.run_id GROUP BY runs.id ORDER BY COUNT(*) DESC LIMIT 1")
    row = found[0] if found else None
    points = store_rows(folder, "SELECT COUNT(*) FROM points")[0][0]
    if row is None or row[2] is None:
        fail(f"{folder}: no completed run stored its trials")
    stamp = lambda s: datetime.datetime.fromisoformat(s.replace("Z", "+00:00"))  # noqa: E731
    return row[0], (stamp(row[2]) - stamp(row[1])).total_seconds(), row[3], points


def seconds(x):
    return f"{x:.2f} s" if x < 10 else f"{x:.0f} s"


def main():
    if len(sys.argv) != 2:
        fail("usage: study_scale.py RESULTS_DIR")
    folder = sys.argv[1]
    experiment = os.path.join(ROOT, EXPERIMENT)
    trials, run_wall, command, points = stored_run(folder)
    jobs = re.search(r"--jobs (\d+)", command)
    print("| command | wall | CPU (user + sys) | max RSS |")
    print("|---|---|---|---|")
    print(f"| `rankone run FILE --jobs {jobs.group(1) if jobs else '(all cores)'}` ({count(trials)} trials; the run as its store "
          f"recorded it, to the second) | {seconds(run_wall)} | — | — |")
    with tempfile.TemporaryDirectory() as scratch:
        wall, cpu, rss, _ = timed(["plan", experiment, "--out", folder])
        print(f"| `rankone plan FILE --out DIR` | {seconds(wall)} | {seconds(cpu)} | {rss:.0f} MB |")
        wall, cpu, rss, text = timed(["summarize", folder])
        rows = len(text.strip().splitlines()) - 1  # the header
        print(f"| `rankone summarize DIR` ({count(rows)} rows) | {seconds(wall)} | {seconds(cpu)} | {rss:.0f} MB |")
        csv = os.path.join(scratch, "rows.csv")
        wall, cpu, rss, _ = timed(["export", folder, "--format", "csv", "--output", csv])
        lines = sum(1 for _ in open(csv, "rb"))
        print(f"| `rankone export DIR --format csv --output FILE` ({count(lines)} lines, {os.path.getsize(csv) / MB:.0f} MB) "
              f"| {seconds(wall)} | {seconds(cpu)} | {rss:.0f} MB |")
        page = os.path.join(scratch, "report.html")
        wall, cpu, rss, _ = timed(["report", folder, "--out", page])
        plots = open(page, encoding="utf-8").read().count('<svg class="plot')
        print(f"| `rankone report DIR` ({plots} plots, {os.path.getsize(page) / MB:.0f} MB page) "
              f"| {seconds(wall)} | {seconds(cpu)} | {rss:.0f} MB |")
    store = os.path.getsize(os.path.join(folder, "results.sqlite"))
    print()
    print(f"The store, `DIR/results.sqlite`, is {store / MB:.0f} MB for {count(points)} points: {store / points:.0f} bytes a "
          f"point. (Times: measured on {short(lscpu())}, load {os.getloadavg()[0]:.1f}; the run on {machine_of(folder)}.)")


if __name__ == "__main__":
    main()
