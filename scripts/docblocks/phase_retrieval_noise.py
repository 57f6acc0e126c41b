#!/usr/bin/python3
"""Prints the table of docs/phase-retrieval.md from a run of experiments/phase_retrieval/noise.json: per m/n,
solver and amplitude SNR, the median final sign-invariant error over the repetitions (a failed or diverged
trial counts as error 1, the error of the zero estimate).

usage: phase_retrieval_noise.py RESULTS_DIR
"""
import sys

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/phase_retrieval/noise.json"
METRIC = "sign_invariant_error"


def error(t):
    if t.info.get("status") in ("failed", "diverged") or METRIC not in t.points:
        return 1.0
    return t.final(METRIC)


def main():
    if len(sys.argv) != 2:
        fail("usage: phase_retrieval_noise.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    ts = trials(sys.argv[1])
    n = resolved["data"]["d"]
    snrs = axis(resolved, "data.amplitude_snr")
    for i, m in enumerate(axis(resolved, "data.size")):
        if i:
            print()
        print(f"| n = {n}, m/n = {m / n:g}: median error, SNR = | " + " | ".join(f"{s:g}" for s in snrs) + " |")
        print("|---" * (len(snrs) + 1) + "|")
        for e in resolved["estimators"]:
            cells = []
            for snr in snrs:
                group = [t for t in select(ts, data__size=m, data__amplitude_snr=snr) if t["label"] == e["label"]]
                cells.append(MISSING if not group else sig(median([error(t) for t in group])))
            print(f"| {e['label']} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
