#!/usr/bin/env python3
"""Prints the tables of docs/one-bit-real-data.md from runs of experiments/one_bit/{fashion_mnist,yeast}*.json.

Estimators are labelled FAMILY@VALUE on a grid (ours@l200 = one_bit_mll with λ = 200, svm@1 =
ova_svm with penalty 1); experiments/one_bit/select_on_validation.py chooses per family the value
with the highest final validation AUC (per repetition, or once when the validation run has one).

usage: one_bit_real_data.py grid VALIDATION
           (one repetition) per family its values, each as validation AUC / accuracy, the chosen in bold
       one_bit_real_data.py choices VALIDATION [VALIDATION …]
           per family its grid and the value chosen in each repetition, one column per validation run
       one_bit_real_data.py test VALIDATION TEST [TEST …] [--start FAMILY] [--at BITS,…] [--reference LABEL,…]
           the test values (bits, AUC, accuracy, Hamming loss) of each family's chosen value, of
           every label without a grid value, of the --reference labels, of FAMILY's initialisation
           (--start, its iteration 0) and of FAMILY's chosen curve at BITS; mean over the
           repetitions, ± sd with more than two, else both values when they differ by 0.005 or more.
           Exit 2 when a family's chosen value has no test trial (the test run predates the choice)
       one_bit_real_data.py cost DIR [DIR …]
           estimator seconds per family (machine-specific)
"""
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "experiments", "one_bit"))
from select_on_validation import NOT_CANDIDATES, choose, final_values  # noqa: E402

from results import count, experiment_file, fail, machine_of, run_subcommand, stored_experiment, trials  # noqa: E402

METRICS = [("auc", "average AUC"), ("precision_at_k", "accuracy (precision@1)"), ("hamming_loss", "Hamming loss")]
GAUSSIAN = "√(2/π)"  # ours@gauss: one_bit_mll's default λ, exact for isotropic Gaussian features


def value_of(label):
    v = label.split("@", 1)[1]
    return GAUSSIAN if v == "gauss" else v[1:] if v.startswith("l") and v[1:].replace(".", "").isdigit() else v


def families(validation, folder):
    """family -> its labels, families in the order the experiment of `folder` lists them."""
    order = [e["label"] for e in stored_experiment(folder)["estimators"]]
    out = {}
    for label, _ in sorted(validation, key=lambda key: order.index(key[0]) if key[0] in order else len(order)):
        if "@" in label:
            out.setdefault(label.split("@")[0], [])
            if label not in out[label.split("@")[0]]:
                out[label.split("@")[0]].append(label)
    return out


def sort_values(labels):
    def key(label):
        v = value_of(label)
        return -1.0 if v == GAUSSIAN else float(v)
    return sorted(labels, key=key)


def grid(folder):
    validation = final_values(folder)
    chosen = choose(validation)
    grids = families(validation, folder)
    width = max(len(v) for v in grids.values())
    print("| family: value: AUC / accuracy | " + " | ".join(f"value {i + 1}" for i in range(width)) + " |")
    print("|---" * (width + 1) + "|")
    rows = []
    for family, labels in grids.items():
        cells = []
        for label in sort_values(labels):
            entry = validation[(label, 0)]
            if entry["status"] in NOT_CANDIDATES:
                text = f"{value_of(label)}: {entry['status']}"
            else:
                text = f"{value_of(label)}: {entry['values']['auc']:.3f} / {entry['values']['precision_at_k']:.3f}"
            cells.append(f"**{text}**" if chosen.get((family, 0), (None,))[0] == label else text)
        rows.append(f"| `{family}` | " + " | ".join(cells + [""] * (width - len(cells))) + " |")
    print("\n".join(rows))


def choices(*folders):
    runs = [(folder, final_values(folder)) for folder in folders]
    names = [f"`{os.path.basename(experiment_file(f))}`" for f in folders]
    print("| family | grid | " + " | ".join(f"chosen per repetition ({n})" for n in names) + " |")
    print("|---" * (len(folders) + 2) + "|")
    order = []
    for folder, validation in runs:
        order += [f for f in families(validation, folder) if f not in order]
    for family in order:
        labels = next(families(v, f)[family] for f, v in runs if family in families(v, f))
        cells = []
        for _, validation in runs:
            chosen = choose(validation)
            reps = sorted(r for f, r in chosen if f == family)
            picks = [value_of(chosen[(family, r)][0]) for r in reps]
            cells.append("—" if not picks else f"{picks[0]} (all {len(picks)})" if len(set(picks)) == 1 else ", ".join(picks))
        print(f"| `{family}` | {', '.join(value_of(l) for l in sort_values(labels))} | " + " | ".join(cells) + " |")


def spread(values, digits=3):
    """mean ± sd (three or more values), or the mean and both values when two differ by 0.005 or more."""
    m = statistics.mean(values)
    if len(values) > 2:
        return f"{m:.{digits}f} ± {statistics.stdev(values):.{digits}f}"
    if len(values) == 2 and abs(values[0] - values[1]) >= 0.005:
        return f"{m:.{digits}f} ({values[0]:.{digits}f} / {values[1]:.{digits}f})"
    return f"{m:.{digits}f}"


def point_at(ts, label, rep, bits):
    """{metric: value} and samples at the last recorded point of (label, rep) with samples ≤ bits."""
    t = next((t for t in ts if t["label"] == label and int(t["repetition"]) == rep), None)
    if t is None:
        return None
    out, samples = {}, None
    for metric, _ in METRICS:
        below = [p for p in t.points.get(metric, []) if p[1] <= bits]
        if below:
            out[metric], samples = below[-1][3], below[-1][1]
    return (samples, out) if out else None


def test(validation_dir, *rest):
    options = {"--start": [], "--at": [], "--reference": []}
    folders, i = [], 0
    while i < len(rest):
        if rest[i] in options:
            options[rest[i]] = [x for x in rest[i + 1].split(",") if x]
            i += 2
        else:
            folders.append(rest[i])
            i += 1
    if not folders:
        fail("test: give the test results folders after the validation folder")
    validation = final_values(validation_dir)
    chosen = choose(validation)
    finals = {}
    for folder in folders:
        finals.update(final_values(folder))
    all_trials = [t for folder in folders for t in trials(folder)]
    configs = {e["label"]: e for folder in folders for e in stored_experiment(folder)["estimators"]}

    def setting(label):
        """`ova_svm`, penalty 0.0001: the estimator and the value its grid varies."""
        e = configs[label]
        for key in ("lambda", "penalty"):
            if key in e:
                v = e[key]
                shown = GAUSSIAN if key == "lambda" and v is None else f"{v:g}"  # λ null: the Gaussian default
                return f"`{e['name']}`, {'λ' if key == 'lambda' else key} {shown}"
        return f"`{e['name']}`"
    reps = sorted({r for _, r in finals})
    once = len({r for _, r in chosen}) == 1

    rows = []  # (bits, name, {metric: [values]})

    def add(name, entries):
        entries = [e for e in entries if e is not None]
        if not entries:
            return
        rows.append((statistics.mean(e[0] for e in entries), name,
                     {m: [e[1][m] for e in entries if m in e[1]] for m, _ in METRICS}))

    def final(label, rep):
        e = finals.get((label, rep))
        if e is None or e["status"] in NOT_CANDIDATES:
            return None
        return e["samples"], e["values"]

    def pick(family, rep):
        return chosen[(family, 0 if once else rep)][0]

    for family in families(validation, validation_dir):
        labels = [pick(family, r) for r in reps]
        missing = [f"{label} (repetition {r})" for label, r in zip(labels, reps) if (label, r) not in finals]
        if missing:
            print(f"one_bit_real_data.py: the test runs have no trial of the value chosen on validation: "
                  f"{', '.join(missing)}; run the test experiment with these labels", file=sys.stderr)
            sys.exit(2)
        values = list(dict.fromkeys(value_of(l) for l in labels))  # once each, in repetition order
        e = configs[labels[0]]
        param = "λ" if "lambda" in e else "penalty"
        add(f"`{family}` (`{e['name']}`, {param} chosen on validation: {', '.join(values)})",
            [final(pick(family, r), r) for r in reps])
        if family in options["--start"]:
            add(f"`{family}` after its initialisation (any value)",
                [first_point(all_trials, pick(family, r), r) for r in reps])
            for bits in options["--at"]:
                add(f"`{family}`, chosen, after ≤ {count(int(bits))} bits",
                    [point_at(all_trials, pick(family, r), r, int(bits)) for r in reps])
    for label in sorted({l for l, _ in finals if "@" not in l} | set(options["--reference"])):
        add(f"`{label}` ({setting(label)}), for reference" + (", not selected" if "@" in label else ""),
            [final(label, r) for r in reps])
    print("| estimator | bits | " + " | ".join(title for _, title in METRICS) + " |")
    print("|---" * (len(METRICS) + 2) + "|")
    for bits, name, values in sorted(rows, key=lambda r: r[0]):
        print(f"| {name} | {count(bits)} | " + " | ".join(spread(values[m]) if values[m] else "—" for m, _ in METRICS) + " |")


def first_point(ts, label, rep):
    """The first recorded point of (label, rep): the initialisation of a streaming estimator."""
    t = next((t for t in ts if t["label"] == label and int(t["repetition"]) == rep), None)
    if t is None:
        return None
    out = {m: t.points[m][0][3] for m, _ in METRICS if t.points.get(m)}
    return (t.points["auc"][0][1], out) if out else None


def cost(*folders):
    print("| run | estimator seconds per trial (mean over repetitions and grid values) |")
    print("|---|---|")
    for folder in folders:
        seconds = {}
        for t in trials(folder):
            seconds.setdefault(t["label"].split("@")[0], []).append(t.seconds or 0.0)
        print(f"| `{os.path.basename(experiment_file(folder))}` | "
              + ", ".join(f"`{f}` {statistics.mean(s):.1f} s" for f, s in seconds.items()) + " |")
    print()
    print(f"Measured on {machine_of(*folders)}.")


if __name__ == "__main__":
    run_subcommand({"grid": grid, "choices": choices, "test": test, "cost": cost})
