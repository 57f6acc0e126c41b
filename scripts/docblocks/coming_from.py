#!/usr/bin/env python3
"""Prints the tables of docs/coming-from.md from benchmarks/coming_from.py's results.json.

usage: coming_from.py table WORKLOAD [DIR]   one workload: every tool's tuned settings, validation and
                                              test accuracy (scored on the prediction files), time
       coming_from.py verdict [DIR]          per workload: RankOne's best against the best peer
       coming_from.py commands WORKLOAD [DIR] each tool's final commands (train and predict the test file)
       coming_from.py peers [DIR]            the peers' commits and the machine of the run

DIR is the driver's --out folder (default results/coming_from under the source tree).
"""
import json
import os

from results import ROOT, fail, print_code, run_subcommand

LOWER_IS_BETTER = {"rmse": True, "auc": False}


def load(folder):
    path = os.path.join(folder or os.path.join(ROOT, "results", "coming_from"), "results.json")
    if not os.path.exists(path):
        fail(f"{path}: no results; run benchmarks/coming_from.py build/bin/rankone --libfm … --libmf … first")
    results = json.load(open(path))
    if results["quick"]:
        fail(f"{path}: a --quick run (smaller data, one setting per tool); the page needs the full run")
    return results


def settings(row):
    return ", ".join(f"{k} {'default' if v is None else v}" for k, v in row["settings"].items())


def table(workload, *folder):
    results = load(folder[0] if folder else None)
    rows = [r for r in results["rows"] if r["workload"] == workload]
    if not rows:
        fail(f"no rows for workload {workload}")
    measures = list(rows[0]["test"])
    sizes = results["sizes"][workload]
    print(f"{sizes['train']} training, {sizes['validation']} validation, {sizes['test']} test records.\n")
    print("| tool | settings (chosen on validation) | validation " + rows[0]["measure"] + " | "
          + " | ".join(f"test {m}" for m in measures) + " | wall s | CPU s |")
    print("|---|---|---|" + "---|" * len(measures) + "---|---|")
    for r in rows:
        print(f"| {r['tool']} | {settings(r)} | {r['validation']:.4f} | "
              + " | ".join(f"{r['test'][m]:.4f}" for m in measures)
              + f" | {r['wall_seconds']:.2f} | {r['cpu_seconds']:.2f} |")


def verdict(*folder):
    results = load(folder[0] if folder else None)
    print("| workload | RankOne's best (test) | best peer (test) | RankOne ÷ best peer | within 2 % |")
    print("|---|---|---|---|---|")
    for workload in results["sizes"]:
        rows = [r for r in results["rows"] if r["workload"] == workload]
        if not rows:
            continue
        measure = rows[0]["measure"]
        lower = LOWER_IS_BETTER[measure]
        pick = min if lower else max
        ours = [r for r in rows if r["tool"].startswith("RankOne")]
        peers = [r for r in rows if not r["tool"].startswith("RankOne")]
        best = pick(ours, key=lambda r: r["test"][measure])
        if not peers:
            print(f"| {workload} | {best['tool']}: {measure} {best['test'][measure]:.4f} | no peer run | — | — |")
            continue
        peer = pick(peers, key=lambda r: r["test"][measure])
        ratio = best["test"][measure] / peer["test"][measure]
        within = ratio <= 1.02 if lower else ratio >= 0.98
        print(f"| {workload} | {best['tool']}: {measure} {best['test'][measure]:.4f} | {peer['tool']}: "
              f"{measure} {peer['test'][measure]:.4f} | {ratio:.3f} | {'yes' if within else 'no'} |")


def commands(workload, *folder):
    results = load(folder[0] if folder else None)
    lines = []
    for r in results["rows"]:
        if r["workload"] == workload:
            lines += [f"# {r['tool']}"] + r["commands"]
    print_code("\n".join(lines))


def peers(*folder):
    results = load(folder[0] if folder else None)
    for peer, commit in results["peers"].items():
        print(f"- {peer}: commit `{commit}`")
    print(f"- machine: {results['machine']['cpus']} CPUs, load {results['machine']['load_after']} after the run")


if __name__ == "__main__":
    run_subcommand({"table": table, "verdict": verdict, "commands": commands, "peers": peers})
