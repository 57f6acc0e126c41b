#!/usr/bin/python3
"""The tables of docs/one-bit-table1.md (Qiu et al. 2017, Table 1), generated from stored results.

RESULTS_DIR holds three results folders, written by

    build/bin/rankone run experiments/one_bit/table1_validation.json --out RESULTS_DIR/validation --jobs 1
    build/bin/rankone run experiments/one_bit/table1.json --out RESULTS_DIR/test --jobs 1
    build/bin/rankone run experiments/one_bit/table1_unit_noise.json --out RESULTS_DIR/unit_noise --jobs 1

and then

    python3 experiments/one_bit/table1_page.py RESULTS_DIR           # print the generated blocks
    python3 experiments/one_bit/table1_page.py RESULTS_DIR --write   # rewrite them in the page
    python3 experiments/one_bit/table1_page.py RESULTS_DIR --check   # exit 1 with a diff if they would change

The page holds each block between `<!-- generated: NAME -->` and `<!-- /generated: NAME -->`.

Roles. Estimators are labelled FAMILY@VALUE. The validation run (other seeds) holds a grid per
family; select_on_validation.choose picks, per family, the value with the highest final AUC averaged
over the validation columns. The test run must hold `ours@c1` (Algorithm 1 as printed, λ = √(2/π))
and exactly the chosen label of each family (`ours` = the damped step, `leml_100k`, `leml_1M`), with
the same estimator settings as on validation: anything else is an error, so the page cannot show a
setting that validation did not choose.

CI drift check on a subset: run any cells of table1.json into RESULTS_DIR/test (a trial's seed derives
from its cell, so a subset reproduces the full run's trials) and

    python3 experiments/one_bit/table1_page.py RESULTS_DIR --check --partial [--ulps N]

compares only the numbers present (missing folders, cells and estimators are skipped), each within N
units of its last printed digit (default 0). The rankone binary is build/bin/rankone, or $RANKONE_BIN.
"""
import argparse
import difflib
import json
import math
import os
import re
import sqlite3
import sys
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from plot_bits import export_rows  # noqa: E402
from select_on_validation import NOT_CANDIDATES, choose, final_values  # noqa: E402

PAGE = os.path.join(HERE, "..", "..", "docs", "one-bit-table1.md")
MISSING = "…"  # a cell whose trial is not in RESULTS_DIR (only with --partial)
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
ITERATION_COLUMNS = [(0.0, 0.0), (0.0, 0.05), (0.0, 0.1)]


def fail(message):
    print("table1_page.py: " + message, file=sys.stderr)
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

    def value(self, label, cell, metric):
        entry = self.cell(label, cell)
        if entry is None or entry["status"] in NOT_CANDIDATES:
            return None
        return entry.get(metric)

    def configs(self):
        """label -> (data seeds, estimator settings without the label, data settings without the swept
        noise_std and flip_probability) from results.sqlite."""
        db = sqlite3.connect("file:%s?mode=ro" % os.path.join(self.folder, "results.sqlite"), uri=True)
        out = {}
        for label, seed, config in db.execute("SELECT label, data_seed, config FROM trials"):
            config = json.loads(config)
            estimator = {k: v for k, v in config.get("estimator", {}).items() if k != "label"}
            data = {k: v for k, v in config.get("data", {}).items() if k not in ("noise_std", "flip_probability")}
            seeds = out.get(label, (set(),))[0]
            seeds.add(seed)
            out[label] = (seeds, estimator, data)
        db.close()
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


def test_roles(test, choice, partial):
    """role -> label in the test run. Checks that the test run holds exactly the chosen settings."""
    roles = {"printed": PRINTED}
    for family, role in (("ours", "damped"), ("leml_100k", "leml_paper"), ("leml_1M", "leml_equal")):
        present = [l for l in test.labels if l.split("@")[0] == family and l != PRINTED]
        if family == "ours" and not present and PRINTED in test.labels:
            present = [PRINTED]  # validation chose the printed step: damped = printed
        if choice is not None:
            label = choice[family][0]
            if present and present != [label]:
                fail("the test run holds %s but validation chose %s for %s: put the chosen setting in "
                     "experiments/one_bit/table1.json and rerun" % (", ".join(present), label, family))
            if not present and not partial:
                fail("the test run has no trial of %s (chosen on validation for %s)" % (label, family))
        elif len(present) > 1:
            fail("the test run holds several settings of %s: %s" % (family, ", ".join(present)))
        else:
            label = present[0] if present else None
        roles[role] = label
    return roles


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
    if len(known) < 2:
        return cells
    best = min(known) if lower else max(known)
    return ["**%s**" % c if v == best else c for c, v in zip(cells, shown)]


def role_header(role, label):
    value = label.split("@")[1] if label else MISSING
    if role == "printed":
        return "ours, as printed (λ = √(2/π))"
    if role == "damped":
        return "ours, step 1/%s (c = %s)" % (value[1:], value[1:]) if value != MISSING else "ours, damped"
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
    labels_row = [count(test.cell(roles[r], columns[0][0])["samples"]) if roles[r] and test.cell(roles[r], columns[0][0])
                  else MISSING for r in ROLES]
    lines.append("| labels read | " + " | ".join(labels_row) + (" |" * (len(header) - 5)) + " |")
    for col in columns:
        cell, name = col[0], col[1]
        values = [test.value(roles[r], cell, metric) if roles[r] else None for r in ROLES]
        cells = bold_best([fmt(v, digits) for v in values], values, digits, lower)
        lines.append("| " + " | ".join([name] + cells + (extra[1](col) if extra else [])) + " |")
    return lines


def versus(test, roles, columns, a, b, metric, digits, lower):
    """Where role a is ahead of, tied with and behind role b (at the printed precision), with a − b."""
    ahead, tied, behind, measured = [], [], [], 0
    for col in columns:
        va, vb = test.value(roles[a], col[0], metric), test.value(roles[b], col[0], metric)
        if va is None or vb is None:
            continue
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
                     ("damped", "leml_paper")):
            lines.append("- %s, %s against %s: %s." % (short, NAMES[a], NAMES[b],
                                                     versus(test, roles, columns, a, b, metric, digits, lower)))
    return lines


def against_paper(test, roles, columns):
    """Each estimator against the paper's printed AUC of its method (4 digits, as printed)."""
    parts = []
    for r in ROLES:
        paper = 2 if r in ("printed", "damped") else 3
        above = [c for c in columns if test.value(roles[r], c[0], "auc") is not None
                 and round(test.value(roles[r], c[0], "auc"), 4) > c[paper] / 100]
        measured = [c for c in columns if test.value(roles[r], c[0], "auc") is not None]
        parts.append("%s above the paper's %s in %d of %d columns" % (NAMES[r], "ours" if paper == 2 else "LEML",
                                                                     len(above), len(measured)))
    return "- AUC against the paper's Table 1: " + "; ".join(parts) + "."


def block_main(test, roles):
    lines = ["Final values on the 10 000 clean test instances (all 200 labels each), one repetition (seed 2017);",
             "the best of the four in bold. `labels read`: the store's `samples` (one label per instance).", ""]
    for metric, what, digits, lower in METRICS:
        extra = None
        if metric == "auc":
            extra = (["paper: ours", "paper: LEML"], lambda col: ["%.4f" % (col[2] / 100), "%.4f" % (col[3] / 100)])
        lines.append("**%s**" % what)
        lines.append("")
        lines += results_table(test, roles, COLUMNS, metric, digits, lower, "column", extra)
        lines.append("")
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
    lines = []
    for metric, what, digits, lower in METRICS[:2]:
        extra = None
        if metric == "auc":
            extra = (["labels flipped by the noise", "paper: ours"],
                     lambda col: ["%.1f %%" % (100 * math.atan(col[3]) / math.pi), "%.4f" % (col[2] / 100)])
        lines.append("**%s**" % what)
        lines.append("")
        lines += results_table(unit, roles, columns, metric, digits, lower, "σ (noise std on x'w_j)", extra)
        lines.append("")
    lines.append("**Who wins where** (as above):")
    lines.append("")
    lines += wins(unit, roles, columns)
    return lines


def block_iterations(test, roles):
    """Figure 1 in numbers: the recovery error after the start (0) and after each iteration."""
    curves = {}
    for (label, cell, metric), curve in test.curve.items():
        for wanted in ITERATION_COLUMNS:
            if metric == "recovery_error" and all(abs(a - b) <= 1e-12 for a, b in zip(cell, wanted)):
                curves[(label, wanted)] = curve
    iterations = sorted({i for curve in curves.values() for i in curve})
    lines = ["| column | estimator | " + " | ".join(str(i) for i in iterations) + " |",
             "|" + "---|" * (len(iterations) + 2)]
    names = {c: n for c, n, _, _ in COLUMNS}
    for cell in ITERATION_COLUMNS:
        for r in ROLES:
            curve = curves.get((roles[r], cell))
            if curve is not None:
                lines.append("| %s | %s | %s |" % (names[cell], role_header(r, roles[r]),
                                                    " | ".join(fmt(curve[i], 2) if i in curve else "" for i in iterations)))
    return lines


# ---- the page ----

def blocks_of(page_text):
    return {m.group(1): m.group(2) for m in
            re.finditer(r"<!-- generated: ([\w-]+) -->\n(.*?)<!-- /generated: \1 -->", page_text, re.S)}


def replace_block(page_text, name, body):
    pattern = re.compile(r"(<!-- generated: %s -->\n).*?(<!-- /generated: %s -->)" % (re.escape(name), re.escape(name)), re.S)
    if not pattern.search(page_text):
        fail("the page has no block <!-- generated: %s --> … <!-- /generated: %s -->" % (name, name))
    return pattern.sub(lambda m: m.group(1) + body + m.group(2), page_text, count=1)


def number(cell):
    text = cell.strip().strip("*").replace(" ", "").replace("%", "")
    try:
        return float(text), len(text.split(".")[1]) if "." in text else 0
    except ValueError:
        return None


def partial_compare(name, page_body, fresh_body, ulps):
    """Compares the numeric table cells present in both; returns (cells compared, differences)."""
    def rows(body):
        out, table = {}, 0
        for line in body.splitlines():
            if line.startswith("|"):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                out[(table, cells[0], cells[1] if name == "one-bit-table1-iterations" else "")] = cells
            elif out:
                table += 1 if line.strip() == "" else 0
        return out
    page_rows, fresh_rows = rows(page_body), rows(fresh_body)
    compared, differences = 0, []
    for key, fresh in fresh_rows.items():
        page = page_rows.get(key)
        if page is None or len(page) != len(fresh):
            continue
        for p, f in zip(page, fresh):
            if MISSING in f:
                continue
            pn, fn = number(p), number(f)
            if pn is None or fn is None:
                continue
            compared += 1
            unit = 10.0 ** -max(pn[1], fn[1])
            if abs(pn[0] - fn[0]) > (ulps + 0.5) * unit:
                differences.append("%s, row %s: page %s, results %s" % (name, key[1], p, f))
    return compared, differences


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="folder holding validation/, test/ and unit_noise/")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the generated blocks of the page")
    mode.add_argument("--check", action="store_true", help="exit 1 with a diff when the page differs")
    parser.add_argument("--partial", action="store_true",
                        help="with --check: compare only the numbers RESULTS holds (a subset of the runs)")
    parser.add_argument("--ulps", type=int, default=0,
                        help="with --partial: allowed difference in units of a cell's last printed digit")
    parser.add_argument("--page", default=PAGE, help="the page (default docs/one-bit-table1.md)")
    args = parser.parse_args()
    if args.partial and not args.check:
        parser.error("--partial goes with --check")

    folders = {name: os.path.join(args.results, name) for name in ("validation", "test", "unit_noise")}
    present = {name: os.path.exists(os.path.join(f, "results.sqlite")) for name, f in folders.items()}
    if not args.partial and not all(present.values()):
        fail("missing %s (see --help for the runs that write them)"
             % ", ".join(os.path.join(folders[n], "results.sqlite") for n, ok in present.items() if not ok))

    loaded = {name: Results(f) for name, f in folders.items() if present[name]}
    choice = validation_choice(loaded["validation"]) if "validation" in loaded else None
    blocks = {}
    if choice is not None:
        blocks["one-bit-table1-validation"] = block_validation(choice)
    for name, builders in (("test", (("one-bit-table1", block_main), ("one-bit-table1-iterations", block_iterations))),
                           ("unit_noise", (("one-bit-table1-unit-noise", block_unit_noise),))):
        if name not in loaded:
            continue
        roles = test_roles(loaded[name], choice, args.partial)
        if choice is not None:
            check_settings(loaded["validation"], loaded[name], roles)
        for block, build in builders:
            blocks[block] = build(loaded[name], roles)
    fresh = {name: "\n".join(lines) + "\n" for name, lines in blocks.items()}

    if not args.write and not args.check:
        for name, body in fresh.items():
            print("<!-- generated: %s -->\n%s<!-- /generated: %s -->\n" % (name, body, name))
        return 0
    with open(args.page, encoding="utf-8") as f:
        page_text = f.read()
    if args.write:
        for name, body in fresh.items():
            page_text = replace_block(page_text, name, body)
        with open(args.page, "w", encoding="utf-8") as f:
            f.write(page_text)
        print("wrote %d blocks of %s" % (len(fresh), args.page))
        return 0

    on_page = blocks_of(page_text)
    if args.partial:
        compared, differences = 0, []
        for name, body in fresh.items():
            if name not in on_page:
                fail("the page has no block %s" % name)
            n, d = partial_compare(name, on_page[name], body, args.ulps)
            compared, differences = compared + n, differences + d
        if compared == 0:
            fail("no number of the page is in %s: nothing compared" % args.results)
        for line in differences:
            print(line)
        print("%d numbers compared, %d differ by more than %d unit(s) of the last digit"
              % (compared, len(differences), args.ulps))
        return 1 if differences else 0
    status = 0
    for name, body in fresh.items():
        if on_page.get(name) != body:
            status = 1
            sys.stdout.writelines(difflib.unified_diff((on_page.get(name) or "").splitlines(True), body.splitlines(True),
                                                       "page: " + name, "results: " + name))
    return status


if __name__ == "__main__":
    sys.exit(main())
