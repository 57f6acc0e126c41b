#!/usr/bin/env python3
"""Prints the generated blocks of docs/report.md from the two studies of its screenshots
(scripts/report-screenshots): the tutorial with 6 repetitions and the target 1e-8, and the
quickstart with 8 repetitions.

usage: report_studies.py tutorial TUTORIAL_DIR
           one sentence: the cells in which one-pass gFM misses the target in some repetition,
           the median final errors there and elsewhere, and the spectral estimate's range
       report_studies.py ratios QUICKSTART_DIR
           one sentence: each estimator's final combined error over the baseline's (the first
           estimator) on the same repetition: geometric mean ratio, its 95 % CI (a t-interval of
           the log ratios, as the report's paired comparison) and how many ratios are above 1
       report_studies.py performance TUTORIAL_DIR QUICKSTART_DIR
           one sentence: the time `rankone report` takes on the two studies and the page's size,
           with and without --static
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import time

from machine import lscpu, short
from results import count, fail, rankone, sig, stored_experiment, trials

METRIC = "combined_error"


def summarize(folder):
    out = subprocess.run([rankone(), "summarize", folder, "--only", METRIC, "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def cell_name(coordinates):
    d, n = coordinates.get("data.d"), coordinates.get("estimators.0.batch_size")
    return f"d = {d} with n = {n}"


def spread(values):
    low, high = sig(min(values)), sig(max(values))
    return low if low == high else f"{low} to {high}"


def tutorial(folder):
    resolved = stored_experiment(folder)
    gfm, spectral = (e["label"] for e in resolved["estimators"][:2])
    below = resolved["success"]["below"]
    rows = summarize(folder)
    mine = [r for r in rows if r["estimator"] == gfm]
    missed = [r for r in mine if r["success_rate"] < 1]
    others = [r["median"] for r in mine if r["success_rate"] == 1]
    spectral_batch = count(next(e["batch_size"] for e in resolved["estimators"] if e["label"] == spectral))
    spectral_medians = [r["median"] for r in rows if r["estimator"] == spectral]
    if not mine or not spectral_medians:
        fail(f"{folder}: no {METRIC} rows of {gfm} and {spectral}")
    where = "every cell" if not missed else "every cell but " + ", ".join(cell_name(r["coordinates"]) for r in missed)
    there = "; ".join(f"median final error {sig(r['median'])}"
                      + (f", {r['reached']} of {r['n']} reaching it" if r["reached"] else "") for r in missed)
    detail = f"{there} there, {spread(others)} elsewhere" if missed and others else there or spread(others)
    print(f"One-pass gFM reaches `{METRIC} < {sig(below, 1)}` in every repetition of {where} ({detail}; medians "
          f"from `rankone summarize`), while the spectral estimate from {spectral_batch} samples stays at "
          f"{spread(spectral_medians)}.")


def t_quantile_975(df):
    """The 0.975 quantile of Student's t with df degrees of freedom: bisection on its CDF, the
    density integrated by Simpson's rule (the report uses a table of the same values)."""
    log_norm = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)

    def cdf(x, steps=2000):
        h = x / steps
        f = [math.exp(log_norm - (df + 1) / 2 * math.log1p((i * h) ** 2 / df)) for i in range(steps + 1)]
        return 0.5 + h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))

    low, high = 0.0, 100.0
    while high - low > 1e-9:
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) < 0.975 else (low, mid)
    return (low + high) / 2


def ratios(folder):
    labels = [e["label"] for e in stored_experiment(folder)["estimators"]]
    finals = {}  # (label, cell coordinates, repetition) -> final value
    for t in trials(folder):
        if METRIC in t.points:
            coordinates = tuple(sorted((k, v) for k, v in t.info.items() if "." in k))
            finals[(t["label"], coordinates, t["repetition"])] = t.final(METRIC)
    baseline, parts = labels[0], []
    for label in labels[1:]:
        logs = [math.log(v / finals[(baseline, c, r)]) for (l, c, r), v in finals.items()
                if l == label and (baseline, c, r) in finals and v > 0 and finals[(baseline, c, r)] > 0]
        if len(logs) < 2:
            fail(f"{folder}: fewer than two pairs of {label} and {baseline}")
        mean = sum(logs) / len(logs)
        half = t_quantile_975(len(logs) - 1) * math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1) / len(logs))
        ratio = sig(math.exp(mean))
        ci = (f"95 % CI {sig(math.exp(mean - half))}–{sig(math.exp(mean + half))}; "
              f"above 1 in {sum(x > 0 for x in logs)} of {len(logs)} pairs")
        if not parts:  # the first says what the numbers are, the others follow its form
            parts.append(f"the {label}'s final {METRIC} is {ratio} times {baseline}'s "
                         f"(geometric mean ratio over the repetitions, {ci})")
        else:
            parts.append(f"the {label}'s {ratio} times ({ci})")
    print(f"Against {baseline} as the baseline, " + ", ".join(parts) + ".")


def performance(tutorial_folder, quickstart_folder):
    n = sum(len(trials(f)) for f in (tutorial_folder, quickstart_folder))
    with tempfile.TemporaryDirectory() as scratch:
        studies = os.path.join(scratch, "results")
        os.makedirs(studies)
        for name, folder in (("gfm_vs_spectral", tutorial_folder), ("quickstart", quickstart_folder)):
            os.symlink(os.path.abspath(folder), os.path.join(studies, name))  # one report of both, as the script writes it
        sizes, seconds = {}, None
        for static in (False, True):
            page = os.path.join(scratch, "static.html" if static else "report.html")
            started = time.monotonic()
            subprocess.run([rankone(), "report", studies, "--out", page] + (["--static"] if static else []),
                           check=True, capture_output=True, text=True)
            if not static:
                seconds = time.monotonic() - started
            sizes[static] = os.path.getsize(page) / 1e6
    print(f"The two studies of the screenshots ({count(n)} trials) are reported in {seconds:.1f} s; the page is "
          f"{sizes[False]:.1f} MB ({sizes[True]:.1f} MB with `--static`). (Times: measured on {short(lscpu())}, "
          f"load {os.getloadavg()[0]:.1f}.)")


def main():
    args = sys.argv[1:]
    commands = {"tutorial": (tutorial, 1), "ratios": (ratios, 1), "performance": (performance, 2)}
    if not args or args[0] not in commands or len(args) - 1 != commands[args[0]][1]:
        fail("usage: report_studies.py tutorial DIR | ratios DIR | performance TUTORIAL_DIR QUICKSTART_DIR")
    command, _ = commands[args[0]]
    command(*args[1:])


if __name__ == "__main__":
    main()
