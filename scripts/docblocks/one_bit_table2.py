#!/usr/bin/env python3
"""Prints the tables of docs/one-bit-table2.md (Qiu et al. 2017, Table 2: full observation) from stored runs.

usage: one_bit_table2.py validation VALIDATION_DIR TEST_DIR
           each family's grid on the validation problems (mean final AUC over the data sets) and its
           choice; exit 2 when the test run lacks a family's chosen label or shares a data seed
       one_bit_table2.py table TEST_DIR
           average AUC per data set and estimator (mean ± sd over the repetitions), the paper's row
       one_bit_table2.py details TEST_DIR
           every final metric and the estimator time per data set and estimator (means)
       one_bit_table2.py batches BATCHES_DIR
           one_bit_mll's final AUC and recovery error per batch size (a run sweeping
           estimators.0.batch_size on one data set)

VALIDATION_DIR is a run of experiments/one_bit/table2_validation.json, TEST_DIR of table2.json.
Estimators are labelled FAMILY@VALUE (ours@c4: one_bit_mll with λ = 4·√(2/π); leml@0.01, svm@…,
lrt@…, smt@…: the penalty); experiments/one_bit/select_on_validation.py chooses per family the value
with the highest final AUC averaged over the validation data sets. The test run holds `ours@c1`
(Algorithm 1 as printed), each family's choice, and its setting in table2.json before tuning.
"""
import os
import statistics
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "experiments", "one_bit"))
from select_on_validation import choose, final_values  # noqa: E402

from results import fail, machine_of, run_subcommand, store_rows, stored_experiment, trials  # noqa: E402

# (d1, d2, n) -> name and the paper's average AUC (%) for Ours, LRT, SMT, LEML, SVM (Table 2)
DATA_SETS = {(500, 100, 5000): ("Synthetic1", {"ours": 93.94, "lrt": 93.23, "smt": 91.75, "leml": 90.55, "svm": 85.67}),
             (1000, 300, 10000): ("Synthetic2", {"ours": 95.70, "lrt": 89.60, "smt": 89.95, "leml": 91.38, "svm": 84.39}),
             (2000, 500, 20000): ("Synthetic3", {"ours": 98.15, "lrt": 93.70, "smt": 94.56, "leml": 95.18, "svm": 87.67})}
FAMILIES = {"ours": "`one_bit_mll` (ours)", "leml": "`leml`", "svm": "`ova_svm`", "lrt": "`trace_logistic` (LRT)",
            "smt": "`trace_squared` (SMT)"}
METRICS = [("auc", "average AUC", 4), ("hamming_loss", "Hamming loss", 4), ("precision_at_k", "precision@1", 4),
           ("recovery_error", "‖W − W*‖₂ (unit columns)", 2)]


def data_set(t):
    key = (int(t["data.d"]), int(t["data.d2"]), int(t["data.size"]))
    if key not in DATA_SETS:
        fail(f"a trial on (d1, d2, n) = {key}, not a data set of Table 2")
    return key


def value_text(label):
    family, value = label.split("@", 1)
    if family == "ours":
        return f"λ = {value[1:]}·√(2/π)" if value != "c1" else "λ = √(2/π) (as printed)"
    return f"penalty {value}"


def describe(label):
    return f"{FAMILIES[label.split('@')[0]]}, {value_text(label)}" if "@" in label else f"`{label}`"


def validation(validation_dir, test_dir):
    runs = final_values(validation_dir)
    chosen = choose(runs)
    labels = {}
    numeric = lambda label: float(label.split("@")[1].lstrip("c"))  # noqa: E731  (c2 -> 2, 0.01 -> 0.01)
    for label, _ in sorted(runs, key=lambda key: (list(FAMILIES).index(key[0].split("@")[0]), numeric(key[0]))):
        labels.setdefault(label.split("@")[0], []).append(label)
    print("Mean final AUC over the validation data sets (seed of table2_validation.json), each family's "
          "choice in bold:")
    print()
    print("| family | " + " | ".join(f"value {i + 1}" for i in range(max(len(v) for v in labels.values()))) + " |")
    print("|---" * (1 + max(len(v) for v in labels.values())) + "|")
    for family, family_labels in labels.items():
        cells = []
        for label in family_labels:
            entry = runs[(label, 0)]
            text = f"{label.split('@')[1]}: " + (entry["status"] if "auc" not in entry["values"] else f"{entry['values']['auc']:.5f}")
            cells.append(f"**{text}**" if chosen[(family, 0)][0] == label else text)
        width = max(len(v) for v in labels.values())
        print(f"| {FAMILIES[family]} | " + " | ".join(cells + [""] * (width - len(cells))) + " |")
    test = {t["label"] for t in trials(test_dir)}
    missing = [chosen[(f, 0)][0] for f in labels if chosen[(f, 0)][0] not in test]
    if missing:
        print(f"one_bit_table2.py: the test run holds no trial of the chosen {', '.join(missing)}: run table2.json with "
              f"these labels", file=sys.stderr)
        sys.exit(2)
    seeds = lambda folder: {s for (s,) in store_rows(folder, "SELECT data_seed FROM trials")}  # noqa: E731
    if seeds(validation_dir) & seeds(test_dir):
        print("one_bit_table2.py: the validation and test runs share data seeds: validation must use other problems",
              file=sys.stderr)
        sys.exit(2)
    print()
    print("The test run holds each choice: " + ", ".join(f"{FAMILIES[f]} {value_text(chosen[(f, 0)][0])}" for f in labels)
          + ".")


def by_cell(test_dir):
    """(data set, label) -> [trial]."""
    out = {}
    for t in trials(test_dir):
        out.setdefault((data_set(t), t["label"]), []).append(t)
    return out


def ordered_labels(cells):
    order = list(FAMILIES)
    return sorted({label for _, label in cells}, key=lambda l: (order.index(l.split("@")[0]), l))


def table(test_dir):
    cells = by_cell(test_dir)
    sets = sorted({d for d, _ in cells})
    print("| estimator | " + " | ".join(f"{DATA_SETS[d][0]} (n = {len(cells[(d, ordered_labels(cells)[0])])})" for d in sets) + " |")
    print("|---" * (len(sets) + 1) + "|")
    best = {d: max(statistics.mean(t.final("auc") for t in cells[(d, l)]) for l in ordered_labels(cells) if (d, l) in cells)
            for d in sets}
    for label in ordered_labels(cells):
        row = []
        for d in sets:
            ts = cells.get((d, label), [])
            values = [t.final("auc") for t in ts if "auc" in t.points]
            if not values:
                row.append(", ".join(sorted({t["status"] for t in ts})) or "not run")
                continue
            m = statistics.mean(values)
            text = f"{m:.5f} ± {statistics.stdev(values):.5f}" if len(values) > 1 else f"{m:.5f}"
            row.append(f"**{text}**" if m == best[d] else text)
        print(f"| {describe(label)} | " + " | ".join(row) + " |")
    print("| paper: Ours / LRT / SMT / LEML / SVM (%) | " + " | ".join(
        " / ".join(f"{DATA_SETS[d][1][f]:.2f}" for f in ("ours", "lrt", "smt", "leml", "svm")) for d in sets) + " |")
    print()
    print("Who wins where (average AUC):")
    print()
    mean = lambda d, l: statistics.mean(t.final("auc") for t in cells[(d, l)])  # noqa: E731
    ours = [l for l in ordered_labels(cells) if l.startswith("ours@")]
    for label in ours:
        ahead, parts = 0, []
        for d in sets:
            baselines = [l for l in ordered_labels(cells) if not l.startswith("ours@") and (d, l) in cells]
            best_baseline = max(baselines, key=lambda l: mean(d, l))
            ahead += mean(d, label) > mean(d, best_baseline)
            parts.append(f"{DATA_SETS[d][0]}: {mean(d, label):.5f} against {mean(d, best_baseline):.5f} for "
                         f"{describe(best_baseline)}")
        print(f"- **{describe(label)}** is ahead of the best baseline row (tuned or not) on {ahead} of {len(sets)} "
              f"data sets ({'; '.join(parts)}).")


def details(test_dir):
    cells = by_cell(test_dir)
    sets = sorted({d for d, _ in cells})
    print("| data set | estimator | " + " | ".join(title for _, title, _ in METRICS) + " | estimator time |")
    print("|---" * (len(METRICS) + 3) + "|")
    for d in sets:
        for i, label in enumerate(l for l in ordered_labels(cells) if (d, l) in cells):
            ts = cells[(d, label)]
            values = [f"{statistics.mean(t.final(m) for t in ts):.{digits}f}" if all(m in t.points for t in ts) else "—"
                      for m, _, digits in METRICS]
            seconds = statistics.mean(t.seconds or 0.0 for t in ts)
            print(f"| {DATA_SETS[d][0] if i == 0 else ''} | {describe(label)} | " + " | ".join(values) + f" | {seconds:.1f} s |")
    print()
    print(f"Estimator seconds measured on {machine_of(test_dir)}.")


def batches(batches_dir):
    d2 = stored_experiment(batches_dir)["data"]["d2"]  # one data set: not a sweep coordinate
    ts = sorted(trials(batches_dir), key=lambda t: int(t["estimators.0.batch_size"]))
    print("| batch (instances) | labels per batch | iterations | average AUC | ‖W − W*‖₂ (unit columns) |")
    print("|---|---|---|---|---|")
    for t in ts:
        n = int(t["estimators.0.batch_size"])
        print(f"| {n:,} | {n * d2:,} | {t.iterations()} | {t.final('auc'):.4f} | "
              f"{t.final('recovery_error'):.2f} |".replace(",", "\u202f"))


if __name__ == "__main__":
    run_subcommand({"validation": validation, "table": table, "details": details, "batches": batches})
