#!/usr/bin/env python3
"""Prints a table of docs/one-bit-table1.md (Qiu et al. 2017, Table 1) from stored runs.

usage: one_bit_table1.py table TEST_DIR
           final AUC, Hamming loss and recovery error per Table 1 column for the four roles, and
           who wins where
       one_bit_table1.py iterations TEST_DIR
           the recovery error after the start and after each iteration (Figure 1 in numbers)
       one_bit_table1.py unit-noise UNIT_NOISE_DIR
           AUC and Hamming loss with the noise on the unit-scale x'w_j
       one_bit_table1.py validation VALIDATION_DIR TEST_DIR [UNIT_NOISE_DIR]
           each family's grid on the validation problems and its choice; exit 2 when a test run
           holds another setting than the one chosen, other settings, or shares a data seed

TEST_DIR is a run of experiments/one_bit/table1.json, VALIDATION_DIR of table1_validation.json,
UNIT_NOISE_DIR of table1_unit_noise.json (docs/generated.json names them; scripts/regenerate-docs
runs them and writes the blocks).

Roles. Estimators are labelled FAMILY@VALUE. The validation run (other data seeds) holds a grid per
family; select_on_validation.choose picks, per family, the value with the highest final AUC averaged
over the validation columns. A test run holds `ours@c1` (Algorithm 1 as printed, λ = √(2/π)) and at
most one label of each family: `ours` (the damped step), `leml_100k` (the paper's m), `leml_1M` (as
many labels as ours). A role or cell without a trial prints `…` (a reduced --cheap run), and so does
a sentence that needs one; regenerate-docs never writes such a block.
"""
import argparse
import json
import math
import os
import sys
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from results import MISSING, ROOT, store_rows  # noqa: E402  (MISSING: what a reduced --cheap run lacks)
sys.path.insert(0, os.path.join(ROOT, "experiments", "one_bit"))
from plot_bits import export_rows  # noqa: E402
from select_on_validation import NOT_CANDIDATES, choose, final_values  # noqa: E402

PRINTED = "ours@c1"  # Algorithm 1 as printed: λ = √(2/π), the full step W + H
FAMILIES = ("ours", "leml_100k", "leml_1M")

# Table 1 columns: (data.noise_std, data.flip_probability) -> name, and the paper's printed average
# AUC (%) for ours and LEML (Qiu et al. 2017, Table 1).
COLUMNS = [
    ((0.0, 0.0), "noise-free", 98.73, 95.29),
    ((0.1, 0.0), "ξ = 0.1", 97.90, 95.05),
    ((0.2, 0.0), "ξ = 0.2", 97.19, 94.90),
    ((0.3, 0.0), "ξ = 0.3", 96.52, 94.30),
    ((0.0, 0.01), "p = 1 %", 98.66, 95.02),
    ((0.0, 0.025), "p = 2.5 %", 97.47, 94.90),
    ((0.0, 0.05), "p = 5 %", 96.64, 94.34),
    ((0.0, 0.1), "p = 10 %", 95.79, 93.42),
]
# The unit-noise reading: ξ on x'w_j, i.e. data.noise_std = σ·√200; paper's ours at that ξ.
UNIT_NOISE = [((s * math.sqrt(200.0), 0.0), s, paper) for s, paper in ((0.1, 97.90), (0.2, 97.19), (0.3, 96.52))]
VALIDATION_COLUMNS = [((0.0, 0.0), "noise-free"), ((0.0, 0.05), "p = 5 %"), ((0.0, 0.1), "p = 10 %")]
PAPER_ITERATIONS = 10  # "the two algorithm[s] for 10 iterations" (Section 5.1)
ITERATION_COLUMNS = [(0.0, 0.0), (0.0, 0.05), (0.0, 0.1)]


def fail(message):
    print("one_bit_table1.py: " + message, file=sys.stderr)
    sys.exit(2)


# ---- reading a results folder ----

class Results:
    """The stored trials of one folder: final and per-iteration values per (label, cell)."""

    def __init__(self, folder):
        self.folder = folder
        self.final = {}   # (label, cell) -> {"status", "samples", metric: value} at the last iteration
        self.curve = defaultdict(dict)  # (label, cell, metric) -> {iteration: value}
        trials = {}
        for row in export_rows(folder):
            if int(row["repetition"]) != 0:
                continue  # Table 1 has one repetition
            cell = (float(row.get("data.noise_std") or 0.0), float(row.get("data.flip_probability") or 0.0))
            key = (row["label"], cell)
            if trials.setdefault(key, row["trial"]) != row["trial"]:
                fail("%s holds two trials of %s in cell %s (runs of different settings mixed in one folder): "
                     "use a fresh folder" % (folder, row["label"], cell))
            it = int(row["iteration"])
            self.curve[key + (row["metric"],)][it] = float(row["value"])
            entry = self.final.setdefault(key, {"iteration": -1})
            if it > entry["iteration"]:
                entry.clear()
                entry.update(iteration=it, status=row["status"], samples=int(float(row["samples"])))
            if it == entry["iteration"]:
                entry[row["metric"]] = float(row["value"])
        self.labels = sorted({label for label, _ in self.final})

    def cell(self, label, cell):
        """The final entry of `label` in the cell nearest to `cell`, or None."""
        for (l, c), entry in self.final.items():
            if l == label and all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(c, cell)):
                return entry
        return None

    def curve_of(self, label, cell, metric):
        """{iteration: value} of `label` in the cell nearest to `cell`, or None."""
        for (l, c, m), curve in self.curve.items():
            if l == label and m == metric and all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(c, cell)):
                return curve
        return None

    def samples(self, label):
        """The labels `label` read (its final `samples`), or None without a trial."""
        found = [e["samples"] for (l, _), e in self.final.items() if l == label]
        return found[0] if found else None

    def value(self, label, cell, metric):
        entry = self.cell(label, cell)
        if entry is None or entry["status"] in NOT_CANDIDATES:
            return None
        return entry.get(metric)

    def configs(self):
        """label -> (data seeds, estimator settings without the label, data settings without the swept
        noise_std and flip_probability) from results.sqlite."""
        out = {}
        for label, seed, config in store_rows(self.folder, "SELECT label, data_seed, config FROM trials"):
            config = json.loads(config)
            estimator = {k: v for k, v in config.get("estimator", {}).items() if k != "label"}
            data = {k: v for k, v in config.get("data", {}).items() if k not in ("noise_std", "flip_probability")}
            seeds = out.get(label, (set(),))[0]
            seeds.add(seed)
            out[label] = (seeds, estimator, data)
        return out


def validation_choice(validation):
    """family -> (chosen label, {label: (mean AUC, [AUC per validation column])}). The choice is
    select_on_validation's: per family the highest final AUC, averaged over the validation columns."""
    chosen = {family: label for (family, _), (label, _) in choose(final_values(validation.folder), "auc").items()}
    out = {}
    for family in FAMILIES:
        if family not in chosen:
            fail("the validation run has no usable trial of family %s" % family)
        per_label = {}
        for label in validation.labels:
            if label.split("@")[0] == family and "@" in label:
                values = [validation.value(label, c, "auc") for c, _ in VALIDATION_COLUMNS]
                mean = sum(values) / len(values) if all(v is not None for v in values) else None
                per_label[label] = (mean, values)
        out[family] = (chosen[family], per_label)
    return out


def roles_of(run):
    """role -> label in a test run (None: no trial of that role, a reduced run)."""
    roles = {"printed": PRINTED if PRINTED in run.labels else None}
    for family, role in (("ours", "damped"), ("leml_100k", "leml_paper"), ("leml_1M", "leml_equal")):
        present = [l for l in run.labels if l.split("@")[0] == family and l != PRINTED]
        if len(present) > 1:
            fail("%s holds several settings of %s: %s" % (run.folder, family, ", ".join(present)))
        roles[role] = present[0] if present else None
    return roles


def check_against_choice(run, choice):
    """A test run holds exactly the chosen label of each family (ours@c1 stands for a damped choice of c = 1)."""
    for family in FAMILIES:
        label = choice[family][0]
        present = [l for l in run.labels if l.split("@")[0] == family and l != PRINTED]
        if family == "ours" and label == PRINTED:
            label_ok = not present
        else:
            label_ok = present == [label]
        if not label_ok:
            fail("%s holds %s but validation chose %s for %s: put the chosen setting in the experiment and rerun"
                 % (run.folder, ", ".join(present) or "no setting", label, family))


def check_settings(validation, test, roles):
    """The test runs the chosen labels with their validation settings on problems of the same kind
    (dimensions, test set), but on other data seeds."""
    v, t = validation.configs(), test.configs()
    for label in set(roles.values()) - {None}:
        for index, what in ((1, "estimator settings"), (2, "data settings")):
            if label in v and label in t and v[label][index] != t[label][index]:
                fail("the %s of %s differ between validation and test:\n  validation %s\n  test       %s"
                     % (what, label, json.dumps(v[label][index], sort_keys=True), json.dumps(t[label][index], sort_keys=True)))
    shared = set().union(*(x[0] for x in v.values())) & set().union(*(x[0] for x in t.values()))
    if shared:
        fail("validation and test share data seeds %s: validation problems must be independent" % sorted(shared))


# ---- formatting ----

def fmt(value, digits):
    return MISSING if value is None else "%.*f" % (digits, value)


def count(n):
    return MISSING if n is None else "{:,}".format(int(round(n))).replace(",", " ")


def bold_best(cells, values, digits, lower):
    """Bold the best of `values` (at the printed precision; ties all bold)."""
    shown = [None if v is None else round(v, digits) for v in values]
    known = [v for v in shown if v is not None]
    if len(known) < len(shown) or len(known) < 2:
        return cells  # a reduced run: the best may be a cell it lacks
    best = min(known) if lower else max(known)
    return ["**%s**" % c if v == best else c for c, v in zip(cells, shown)]


def role_header(role, label):
    if label is None:
        return MISSING  # a reduced run without this role
    value = label.split("@")[1]
    if role == "printed":
        return "ours, as printed (λ = √(2/π))"
    if role == "damped":
        return "ours, step 1/%s (c = %s)" % (value[1:], value[1:])
    if role == "leml_paper":
        return "LEML, the paper's m (penalty %s)" % value
    return "LEML, as many labels (penalty %s)" % value


ROLES = ("printed", "damped", "leml_paper", "leml_equal")
METRICS = (("auc", "average AUC (higher is better)", 5, False),
           ("hamming_loss", "Hamming loss (lower is better)", 4, True),
           ("recovery_error", "recovery error ‖W − W*‖₂, columns normalised (lower is better)", 2, True))


def results_table(test, roles, columns, metric, digits, lower, first_header, extra=None):
    """Rows = columns of Table 1, one cell per role, the best in bold; `extra` adds trailing cells."""
    header = [first_header] + [role_header(r, roles[r]) for r in ROLES] + (extra[0] if extra else [])
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    labels_row = [count(test.samples(roles[r])) for r in ROLES]
    lines.append("| labels read | " + " | ".join(labels_row) + (" |" * (len(header) - 5)) + " |")
    for col in columns:
        cell, name = col[0], col[1]
        values = [test.value(roles[r], cell, metric) if roles[r] else None for r in ROLES]
        cells = bold_best([fmt(v, digits) for v in values], values, digits, lower)
        lines.append("| " + " | ".join([name] + cells + (extra[1](col) if extra else [])) + " |")
    return lines


def metric_tables(run, roles, columns, metrics, first_header, auc_extra):
    """One titled results table per metric; the AUC table gets the trailing cells of `auc_extra`."""
    lines = []
    for metric, what, digits, lower in metrics:
        extra = auc_extra if metric == "auc" else None
        lines += ["**%s**" % what, ""]
        lines += results_table(run, roles, columns, metric, digits, lower, first_header, extra)
        lines.append("")
    return lines


def versus(test, roles, columns, a, b, metric, digits, lower):
    """Where role a is ahead of, tied with and behind role b (at the printed precision), with a − b."""
    ahead, tied, behind, measured = [], [], [], 0
    for col in columns:
        va, vb = test.value(roles[a], col[0], metric), test.value(roles[b], col[0], metric)
        if va is None or vb is None:
            return None  # a reduced run: the sentence needs every column
        measured += 1
        d = round(va, digits) - round(vb, digits)
        d = -d if lower else d
        diff = "%s %+.*f" % (short_name(col), digits, va - vb)
        (ahead if d > 0.5 * 10 ** -digits else behind if d < -0.5 * 10 ** -digits else tied).append(diff)
    parts = []
    for word, items in (("ahead in", ahead), ("tied in", tied), ("behind in", behind)):
        if items:
            parts.append("%s %d of %d (%s)" % (word, len(items), measured, ", ".join(items)))
    return "; ".join(parts) if parts else "no column measured"


def short_name(col):
    return col[4] if len(col) > 4 else col[1]


NAMES = {"printed": "ours as printed", "damped": "ours with the validated step",
         "leml_paper": "LEML with the paper's m", "leml_equal": "LEML with as many labels"}


def wins(test, roles, columns):
    lines = []
    for metric, what, digits, lower in METRICS[:2]:
        short = "AUC" if metric == "auc" else "Hamming loss"
        for a, b in (("printed", "leml_equal"), ("damped", "leml_equal"), ("printed", "leml_paper"),
                     ("damped", "leml_paper"), ("damped", "printed")):
            verdict = versus(test, roles, columns, a, b, metric, digits, lower)
            lines.append(MISSING if verdict is None else "- %s, %s against %s: %s." % (short, NAMES[a], NAMES[b], verdict))
    return lines


def against_paper(test, roles, columns):
    """Each estimator against the paper's printed AUC of its method (4 digits, as printed)."""
    parts = []
    for r in ROLES:
        paper = 2 if r in ("printed", "damped") else 3
        if any(test.value(roles[r], c[0], "auc") is None for c in columns):
            return MISSING  # a reduced run
        above = [c for c in columns if round(test.value(roles[r], c[0], "auc"), 4) > c[paper] / 100]
        measured = columns
        parts.append("%s above the paper's %s in %d of %d columns" % (NAMES[r], "ours" if paper == 2 else "LEML",
                                                                     len(above), len(measured)))
    return "- AUC against the paper's Table 1: " + "; ".join(parts) + "."


def block_main(test, roles):
    lines = ["Final values on the 10 000 clean test instances (all 200 labels each), one repetition (seed 2017);",
             "the best of the four in bold. `labels read`: the store's `samples` (one label per instance).", ""]
    paper = (["paper: ours", "paper: LEML"], lambda col: ["%.4f" % (col[2] / 100), "%.4f" % (col[3] / 100)])
    lines += metric_tables(test, roles, COLUMNS, METRICS, "column", paper)
    lines.append("**Who wins where** (ahead = better at the printed precision; in brackets the first minus the second):")
    lines.append("")
    lines += wins(test, roles, COLUMNS)
    lines.append(against_paper(test, roles, COLUMNS))
    return lines


def block_validation(choice):
    lines = ["| family | value | " + " | ".join(n for _, n in VALIDATION_COLUMNS) + " | mean | chosen |",
             "|" + "---|" * (len(VALIDATION_COLUMNS) + 4)]
    what = {"ours": "one_bit_mll, λ = c·√(2/π)", "leml_100k": "LEML, 100 000 labels, penalty",
            "leml_1M": "LEML, 1 000 000 labels, penalty"}
    for family in FAMILIES:
        chosen, per_label = choice[family]

        def order(label):
            v = label.split("@")[1]
            return float(v[1:]) if family == "ours" else float(v)
        for label in sorted(per_label, key=order):
            mean, values = per_label[label]
            mark = "**chosen**" if label == chosen else ""
            cells = [fmt(v, 5) for v in values] + [fmt(mean, 5)]
            if label == chosen:
                cells[-1] = "**%s**" % cells[-1]
            lines.append("| %s | %s | %s | %s |" % (what[family], label.split("@")[1], " | ".join(cells), mark))
    return lines


def block_unit_noise(unit, roles):
    columns = [(cell, "σ = %.1f (`noise_std` %.3f)" % (s, cell[0]), paper, s, "σ = %.1f" % s) for cell, s, paper in UNIT_NOISE]
    flipped_and_paper = (["labels flipped by the noise", "paper: ours"],
                         lambda col: ["%.1f %%" % (100 * math.atan(col[3]) / math.pi), "%.4f" % (col[2] / 100)])
    lines = metric_tables(unit, roles, columns, METRICS[:2], "σ (noise std on x'w_j)", flipped_and_paper)
    lines.append("**Who wins where** (as above):")
    lines.append("")
    lines += wins(unit, roles, columns)
    return lines


def block_iterations(test, roles):
    """Figure 1 in numbers: the recovery error after the start (0) and after each iteration; a row
    for every role and column (`…` without its trial), at least the paper's 10 iterations."""
    last = max([PAPER_ITERATIONS] + [max(c) for (_, _, m), c in test.curve.items() if m == "recovery_error" and c])
    iterations = list(range(last + 1))
    lines = ["| column | estimator | " + " | ".join(str(i) for i in iterations) + " |",
             "|" + "---|" * (len(iterations) + 2)]
    names = {c: n for c, n, _, _ in COLUMNS}
    for cell in ITERATION_COLUMNS:
        for r in ROLES:
            curve = test.curve_of(roles[r], cell, "recovery_error") if roles[r] else None
            cells = [MISSING] * len(iterations) if curve is None else \
                [fmt(curve[i], 2) if i in curve else "" for i in iterations]
            lines.append("| %s | %s | %s |" % (names[cell], role_header(r, roles[r]), " | ".join(cells)))
    return lines


# ---- the blocks ----

def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("block", choices=("table", "iterations", "unit-noise", "validation"))
    parser.add_argument("folders", nargs="+", help="results folders (see usage)")
    args = parser.parse_args()
    wanted = {"table": (1, 1), "iterations": (1, 1), "unit-noise": (1, 1), "validation": (2, 3)}[args.block]
    if not wanted[0] <= len(args.folders) <= wanted[1]:
        parser.error("%s takes %s results folder(s)" % (args.block, "-".join(map(str, sorted(set(wanted))))))
    for folder in args.folders:
        if not os.path.exists(os.path.join(folder, "results.sqlite")):
            fail("no results.sqlite in %s" % folder)
    runs = [Results(f) for f in args.folders]
    if args.block == "validation":
        validation, tests = runs[0], runs[1:]
        choice = validation_choice(validation)
        for run in tests:
            check_against_choice(run, choice)
            check_settings(validation, run, roles_of(run))
        lines = block_validation(choice)
    else:
        build = {"table": block_main, "iterations": block_iterations, "unit-noise": block_unit_noise}[args.block]
        lines = build(runs[0], roles_of(runs[0]))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
