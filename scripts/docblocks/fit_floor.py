#!/usr/bin/env python3
"""Prints the fit against the noise floor of a run: per sweep cell and estimator label, the end
state (and the kind of its hint), the fit on the last fresh batch, the floor (the truth's own fit
on it) and their ratio, as ranges over the repetitions; then the largest ratio of a run that did
not stall and the smallest fit of a run stalled on a zero floor, the margins of the stall rule.

usage: fit_floor.py RESULTS_DIR [LABEL ...]     (default: every label)
"""
import sys
from collections import Counter

from results import diagnostics, fail, sig, stored_column, stored_experiment, trials

# The kinds of the framework's hints (IterativeEstimator and the estimators' hint texts).
HINTS = {"nonzero mean/intercept": "intercept", "is small for": "small batch", "not standardised": "features not standardised",
         "rank may be above": "rank above the true rank", "not symmetric": "not symmetric"}
# A noise-free truth's own fit is rounding, not a floor: no ratio to it.
ROUNDOFF = 1e-12


def span(values, digits=2):
    if not values:
        return "—"
    low, high = sig(min(values), digits), sig(max(values), digits)
    return low if low == high else f"{low} – {high}"


def state(t):
    """The end state, with why for a stalled run, and `still converging`."""
    text = t["status"]
    message = t.info.get("message") or ""
    if t["status"] == "stalled":
        text += " (floor)" if "stopped far from a fit" in message else " (no skill)"
    if "still converging" in message:
        text += " (still converging)"
    return text


def hints(t):
    """What the trial's hint (or a refusal's message) is about."""
    message = t.info.get("message") or ""
    hint = message if t["status"] == "failed" else message.partition("Hint:")[2]
    return [kind for phrase, kind in HINTS.items() if phrase in hint]


def ratio(d):
    return d["fit"] / d["fit_floor"] if "fit" in d and d.get("fit_floor", 0) > ROUNDOFF else None


def main():
    if len(sys.argv) < 2:
        fail("usage: fit_floor.py RESULTS_DIR [LABEL ...]")
    folder, labels = sys.argv[1], sys.argv[2:]
    ts = [t for t in trials(folder) if not labels or t["label"] in labels]
    if not ts:
        fail(f"{folder}: no trials" + (f" labelled {', '.join(labels)}" if labels else ""))
    fits, cell = diagnostics(folder), stored_column(folder, "cell")
    skip = {"trial", "estimator", "label", "repetition", "status", "message"}
    paths = []  # the sweep coordinates, as the export names them, without one that repeats another
    for p in (k for k in ts[0].info if k not in skip):
        if not any(all(t[p] == t[q] for t in ts) for q in paths):
            paths.append(p)
    order = labels or [e.get("label") or e["name"] for e in stored_experiment(folder)["estimators"]]
    groups = {}
    for t in sorted(ts, key=lambda t: (cell[t["trial"]], order.index(t["label"]))):
        groups.setdefault((cell[t["trial"]], t["label"]), []).append(t)
    shown_label = len(order) > 1
    print("| " + " | ".join([f"`{p}`" for p in paths] + (["estimator"] if shown_label else [])
                             + ["end state", "fit", "floor", "fit / floor"]) + " |")
    print("|---" * (len(paths) + shown_label + 4) + "|")
    healthy, stalled_clean = [], []
    for (_, label), mine in groups.items():
        d = [fits[t["trial"]] for t in mine]
        for t, dt in zip(mine, d):
            if t["status"] in ("converged", "max_iterations") and ratio(dt):
                healthy.append(ratio(dt))
            if t["status"] == "stalled" and "fit" in dt and dt.get("fit_floor", 1) <= ROUNDOFF:
                stalled_clean.append(dt["fit"])
        states = Counter(state(t) for t in mine)
        end = "; ".join(s if n == len(mine) else f"{s} ×{n}" for s, n in states.items())
        kinds = list(dict.fromkeys(k for t in mine for k in hints(t)))
        end += (": " if mine[0]["status"] == "failed" else ", hint: ") + ", ".join(kinds) if kinds else ""
        ratios = [ratio(x) for x in d if ratio(x)]
        print("| " + " | ".join([mine[0][p] for p in paths] + ([label] if shown_label else [])
                                + [end, span([x["fit"] for x in d if "fit" in x]),
                                   span([x["fit_floor"] for x in d if "fit_floor" in x]), span(ratios, 3)]) + " |")
    print()
    print(f"Largest fit / floor of a run that did not stall: {sig(max(healthy), 3) if healthy else 'none'}; "
          f"smallest fit of a run stalled on a zero floor: {sig(min(stalled_clean)) if stalled_clean else 'none'}.")


if __name__ == "__main__":
    main()
