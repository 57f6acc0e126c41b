#!/usr/bin/env python3
"""Prints the tables of docs/fm_subgaussian_real_data.md from the nested 5-fold cross-validation
runs of experiments/fm_subgaussian/real_<dataset>_{ridge,fm,ifm,fme}.json.

usage: fm_real_data.py TABLE DATASET RIDGE FM IFM FME [DATASET RIDGE FM IFM FME …]
  TABLE is one of
    cv        test RMSE per data set and estimator, mean ± sd over the outer folds, at the
              hyper-parameters `rankone select` chose on the validation folds
    folds     the same per outer fold, with why a test trial failed, and the paired difference to ridge
    chosen    the hyper-parameters chosen per outer fold
    statuses  every trial of the sweep (validation and test cells) by step size: how many failed,
              diverged or stalled, and the range of the τ estimates that failed the τ test
    cost      estimator seconds per run (the sum over its trials; machine-specific)
"""
import functools
import json
import re
import statistics
import subprocess
import sys

from results import fail, machine_of, rankone, select, trials as stored_trials

ESTIMATORS = [("ridge", "ridge"), ("fm", "fm (SGD)"), ("ifm", "ifm"), ("fme", "fm_moment_elimination")]
TUNED = {  # the hyper-parameters each estimator's sweep chooses, as `rankone select --tune` names them
    "ridge": ["estimators.0.l2"],
    "fm": ["estimators.0.rank", "estimators.0.learning_rate", "estimators.0.reg_v", "estimators.0.max_iterations"],
    "ifm": ["estimators.0.rank", "estimators.0.step_size", "estimators.0.max_iterations"],
    "fme": ["estimators.0.rank", "estimators.0.step_size", "estimators.0.max_iterations"],
}
SHORT = {"estimators.0.l2": "l2", "estimators.0.rank": "rank", "estimators.0.learning_rate": "lr",
         "estimators.0.reg_v": "reg_v", "estimators.0.max_iterations": "iterations", "estimators.0.step_size": "η"}
STEP = {"fm": "estimators.0.learning_rate", "ifm": "estimators.0.step_size", "fme": "estimators.0.step_size"}
SELECT = ["--metric", "test_rmse", "--validation", "data.evaluate_on=validation", "--average", "data.validation_fold",
          "--outer", "data.test_fold", "--format", "json"]


trials = functools.lru_cache(maxsize=None)(stored_trials)  # one `rankone export` per folder, however many tables ask


def selection(folder, estimator):
    """`rankone select`'s document; when no trial recorded a point (every one failed before its
    first iteration, which select cannot score), one "all candidates failed" selection per fold."""
    done = subprocess.run([rankone(), "select", folder, "--tune", ",".join(TUNED[estimator]), *SELECT],
                          capture_output=True, text=True)
    if done.returncode == 0:
        return json.loads(done.stdout)
    ts = trials(folder)
    if any(t["status"] not in ("failed", "diverged") for t in ts):
        fail(f"rankone select {folder}: {done.stderr.strip()}")
    folds = sorted({json.loads(t["data.test_fold"]) for t in ts})
    return {"selections": [{"outer": f, "status": "all candidates failed", "chosen": None} for f in folds]}


def datasets(args):
    """[(name, {estimator: folder})] from DATASET RIDGE FM IFM FME groups."""
    if not args or len(args) % 5:
        fail(__doc__.split("\n\n")[1].strip().splitlines()[0])
    return [(args[i], dict(zip([e for e, _ in ESTIMATORS], args[i + 1:i + 5]))) for i in range(0, len(args), 5)]


def mean_sd(values):
    return statistics.mean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


TAU = re.compile(r"tau = min_j \(phi_j - 1 - kappa_j\^2\) = ([0-9.e+-]+)")


def test_trial(folder, fold, chosen):
    """The test trial of `fold` at the chosen setting (None when the store has none)."""
    found = select(trials(folder), data__test_fold=fold, data__evaluate_on="test",
                   **{k.replace(".", "__"): v for k, v in chosen.items()})
    return found[0] if found else None


def outcome(t):
    """A trial's status as a table cell: `failed (τ test: τ̂ = 4.5e-31)`, `diverged at iteration 18`, …"""
    message = t.info.get("message") or ""
    tau = TAU.search(message)
    if tau:
        return f"{t['status']} (τ test: τ̂ = {float(tau.group(1)):.2g})"
    at = re.search(r"iteration (\d+)", message) if t["status"] == "diverged" else None
    return f"{t['status']} at iteration {at.group(1)}" if at else t["status"]


def per_fold(folders):
    """estimator -> (selection document, {fold: (test RMSE or None, status of the test trial)})."""
    out = {}
    for e, _ in ESTIMATORS:
        doc = selection(folders[e], e)
        tests = {}
        for s in doc["selections"]:
            t = test_trial(folders[e], s["outer"], s["chosen"]) if s["chosen"] else None
            if s["status"] == "ok":
                tests[s["outer"]] = (s["test"], t["status"] if t else "ok")
            else:
                tests[s["outer"]] = (None, outcome(t) if t else s["status"])
        out[e] = (doc, tests)
    return out


GOOD = ("ok", "converged", "max_iterations", "exhausted")  # test trials whose RMSE is a fit


def cv(groups):
    print("| data set | " + " | ".join(title for _, title in ESTIMATORS) + " |")
    print("|---" * (len(ESTIMATORS) + 1) + "|")
    for name, folders in groups:
        folds = per_fold(folders)
        cells, means = [], {}
        for e, _ in ESTIMATORS:
            tests = folds[e][1]
            values = [v for v, _ in tests.values() if v is not None]
            if not values:
                cells.append("**failed** on every fold")
                continue
            m, sd = mean_sd(values)
            notes = [f"{n} {status}" for status in sorted({st for v, st in tests.values() if v is not None and st not in GOOD})
                     for n in [sum(v is not None and st == status for v, st in tests.values())]]
            if len(values) < len(tests):
                notes.append(f"{len(tests) - len(values)} failed")
            cell = f"{m:.2f} ± {sd:.2f}"
            if len(values) == len(tests):
                means[e] = m
            else:
                cell += f" on **{len(values)} of {len(tests)}** folds"
            cells.append(cell + (f" ({', '.join(notes)})" if notes else ""))
        best = min(means, key=means.get) if means else None
        print(f"| {name} | " + " | ".join(f"**{c}**" if e == best else c for (e, _), c in zip(ESTIMATORS, cells)) + " |")


def folds_table(groups):
    print("| data set | fold | " + " | ".join(title for _, title in ESTIMATORS) + " |")
    print("|---" * (len(ESTIMATORS) + 2) + "|")
    for name, folders in groups:
        folds = per_fold(folders)
        outer = sorted(folds["ridge"][1])
        for fold in outer:
            cells = []
            for e, _ in ESTIMATORS:
                v, status = folds[e][1][fold]
                cells.append(status if v is None else f"{v:.2f}" + ("" if status in GOOD else f" ({status})"))
            print(f"| {name} | {fold} | " + " | ".join(cells) + " |")
        diffs = []
        ridge = folds["ridge"][1]
        for e, _ in ESTIMATORS[1:]:
            tests = folds[e][1]
            d = [tests[f][0] - ridge[f][0] for f in outer if tests[f][0] is not None and ridge[f][0] is not None]
            if not d:
                diffs.append("—")
                continue
            m, sd = mean_sd(d)
            diffs.append(f"{m:+.2f} ± {sd:.2f}".replace("-", "−") + ("" if len(d) == len(outer) else f" ({len(d)} folds)"))
        print(f"| {name} | − ridge | | " + " | ".join(diffs) + " |")


def setting_text(chosen):
    return ", ".join(f"{SHORT.get(k, k)} {v:g}" if isinstance(v, float) else f"{SHORT.get(k, k)} {v}"
                     for k, v in chosen.items())


def chosen_table(groups):
    for i, (name, folders) in enumerate(groups):
        if i:
            print()
        folds = per_fold(folders)
        outer = sorted(folds["ridge"][1])
        print(f"| {name} | " + " | ".join(f"fold {f}" for f in outer) + " |")
        print("|---" * (len(outer) + 1) + "|")
        for e, title in ESTIMATORS:
            by_fold = {s["outer"]: s for s in folds[e][0]["selections"]}
            print(f"| {title} | " + " | ".join(setting_text(by_fold[f]["chosen"]) if by_fold[f]["chosen"] else "—"
                                                 for f in outer) + " |")


def statuses(groups):
    print("| data set | estimator | step | trials | failed | diverged | stalled | why the failed ones failed |")
    print("|---" * 8 + "|")
    for name, folders in groups:
        for e, title in ESTIMATORS:
            if e not in STEP:
                continue
            ts = trials(folders[e])
            for step in sorted({json.loads(t[STEP[e]]) for t in ts}):
                these = [t for t in ts if json.loads(t[STEP[e]]) == step]
                n = {status: sum(t["status"] == status for t in these) for status in ("failed", "diverged", "stalled")}
                taus = [float(m.group(1)) for t in these if t["status"] == "failed"
                        for m in [TAU.search(t.info.get("message") or "")] if m]
                other = n["failed"] - len(taus)
                why = []
                if taus:
                    why.append(f"τ test, τ̂ = {min(taus):.2g} – {max(taus):.2g}" if len(taus) > 1 else f"τ test, τ̂ = {taus[0]:.2g}")
                if other:
                    why.append(f"{other} other")
                print(f"| {name} | {title} | {step:g} | {len(these)} | {n['failed']} | {n['diverged']} | {n['stalled']} | "
                      f"{'; '.join(why)} |")


def cost(groups):
    print("| data set | " + " | ".join(title for _, title in ESTIMATORS) + " |")
    print("|---" * (len(ESTIMATORS) + 1) + "|")
    for name, folders in groups:
        cells = [f"{sum(t.seconds or 0.0 for t in trials(folders[e])):.0f} s ({len(trials(folders[e]))} trials)"
                 for e, _ in ESTIMATORS]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print(f"Estimator seconds summed over the trials; measured on {machine_of(*[f for _, g in groups for f in g.values()])}.")


def main():
    tables = {"cv": cv, "folds": folds_table, "chosen": chosen_table, "statuses": statuses, "cost": cost}
    if len(sys.argv) < 2 or sys.argv[1] not in tables:
        fail("usage: fm_real_data.py " + "|".join(tables) + " DATASET RIDGE FM IFM FME [DATASET …]")
    tables[sys.argv[1]](datasets(sys.argv[2:]))


if __name__ == "__main__":
    main()
