"""Reading a results folder for the generated blocks of the docs: final values per trial, medians,
first crossings of a target, and the number formats the pages use (standard library only)."""
import csv
import io
import json
import math
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MISSING = "…"  # a cell without trials (a reduced --cheap run); regenerate-docs never writes it


def rankone():
    return os.environ.get("RANKONE_BIN", os.path.join(ROOT, "build", "bin", "rankone"))


def run_subcommand(commands, operands=()):
    """Calls the function of `commands` that argv[1] names with the rest of argv (`operands` names
    them for the usage line): the command line every printer with subcommands shares. Without
    `operands`, each function's own parameters say how many operands it takes (`*rest`: any more);
    the printer's docstring names them."""
    import inspect
    name = sys.argv[1] if len(sys.argv) > 1 else None
    given = len(sys.argv) - 2
    if operands:
        fits = given == len(operands)
    elif name in commands:
        params = inspect.signature(commands[name]).parameters.values()
        least = sum(p.default is p.empty and p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
        fits = given == least or (given > least and any(p.kind == p.VAR_POSITIONAL for p in params))
    if name not in commands or not fits:
        takes_operands = any(inspect.signature(f).parameters for f in commands.values())
        hint = ["…"] if takes_operands and not operands else list(operands)  # the docstring names them
        fail(" ".join(["usage:", os.path.basename(sys.argv[0]), "|".join(commands), *hint]))
    commands[name](*sys.argv[2:])


def print_code(text):
    """Prints text as a fenced code block: how the pages show a program's own output."""
    print("```")
    print(text)
    print("```")


def store_rows(folder, sql):
    """The rows of a read-only query of the folder's results.sqlite (the store is rankone's: never written)."""
    import sqlite3  # standard library
    db = sqlite3.connect(f"file:{os.path.join(folder, 'results.sqlite')}?mode=ro", uri=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def export(folder):
    """Long-format rows of `rankone export FOLDER --format csv`."""
    out = subprocess.run([rankone(), "export", folder, "--format", "csv"], check=True, capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


class Trial:
    """One stored trial: its columns (label, coordinates, status, …) and its points per metric."""

    def __init__(self, row):
        self.info = {k: v for k, v in row.items() if k not in ("iteration", "samples", "seconds", "metric", "value")}
        self.points = {}  # metric -> [(iteration, samples, seconds, value)] in iteration order

    def __getitem__(self, key):
        return self.info[key]

    def final(self, metric):
        return self.points[metric][-1][3]

    def iterations(self):
        """The iterations the trial ran, as the store counts them."""
        return self.iteration_count

    def first_below(self, metric, target):
        """(samples, seconds) at the first recorded point below target, or None."""
        for _, samples, seconds, value in self.points.get(metric, []):
            if value < target:
                return samples, seconds
        return None


def trials(folder):
    """Every stored trial of the folder: its points from `rankone export`, and, for a trial that
    recorded none (e.g. `failed` before its first iteration, which the export cannot show), its
    row of the store's trials table."""
    by_key = {}
    for r in export(folder):
        t = by_key.setdefault(r["trial"], Trial(r))
        t.points.setdefault(r["metric"], []).append(
            (int(r["iteration"]), int(r["samples"]), float(r["seconds"]), float(r["value"])))
    for t in by_key.values():
        for pts in t.points.values():
            pts.sort()
    rows = store_rows(folder, "SELECT key, estimator, label, repetition, coordinates, status, message, seconds, "
                              "iterations FROM trials")
    for key, estimator, label, repetition, coordinates, status, message, seconds, iterations in rows:
        if key not in by_key:
            info = {"trial": key, "estimator": estimator, "label": label, "repetition": str(repetition), "status": status}
            # coordinates as the export writes them: strings bare, everything else as JSON text
            for path, v in json.loads(coordinates or "{}").items():
                info[path] = v if isinstance(v, str) else json.dumps(v)
            by_key[key] = Trial(info)
        by_key[key].info["message"] = message
        by_key[key].seconds = seconds  # the trial's estimator time (its last point's, or up to its failure)
        by_key[key].iteration_count = iterations  # the store's count: a final point may repeat the last iteration
    return list(by_key.values())


def value(text):
    """A coordinate as the export writes it (JSON text, or a bare string) as a Python value."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def select(ts, **where):
    """The trials whose columns equal the given values (keys with '.' written as '__'); values are
    compared as JSON values, so 0.003 matches the exported "0.003" and None matches "null"."""
    return [t for t in ts if all(value(t.info.get(k.replace("__", "."), "")) == v for k, v in where.items())]


def design(experiment, *overrides):
    """The experiment as `rankone validate` resolves it (extends, defaults, overrides): the grid a
    page's table has, whether or not a (reduced) run filled every cell."""
    out = subprocess.run([rankone(), "validate", os.path.join(ROOT, experiment), *overrides],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def axis(resolved, path):
    """The values of the sweep coordinate `path` (a grid axis or a path of a zip group)."""
    sweep = resolved.get("sweep") or {}
    if path in (sweep.get("grid") or {}):
        return sweep["grid"][path]
    for group in sweep.get("zip") or []:
        if path in group:
            return group[path]
    fail(f"the experiment has no sweep coordinate {path}")


def median(values):
    return statistics.median(values) if values else None


def sig(x, digits=2):
    """x to `digits` significant digits: 0.807, 1.86e-3, 5.8e-12 (exponent form below 0.01)."""
    if x is None:
        return MISSING
    if x == 0:
        return "0"
    if not math.isfinite(x):
        return str(x)
    if abs(x) < 0.01 or abs(x) >= 1e5:
        mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
        return f"{mantissa}e{int(exponent)}"
    decimals = max(digits - 1 - math.floor(math.log10(abs(x))), 0)
    return f"{x:.{decimals}f}"


def count(n):
    """An integer with a narrow no-break space between thousands (60 010), as the pages write it."""
    return f"{int(round(n)):,}".replace(",", "\u202f") if n is not None else MISSING


def fail(message):
    sys.exit(f"{os.path.basename(sys.argv[0])}: {message}")


def machine_now():
    """This machine, as `scripts/docblocks/machine.py --short` names it, without its load."""
    out = subprocess.run([os.path.join(ROOT, "scripts", "docblocks", "machine.py"), "--short"], capture_output=True,
                         text=True, check=True)
    return out.stdout.strip().rsplit(", load ", 1)[0]


def machine_of(*folders):
    """Where the folders' trials ran: the lines regenerate-docs recorded beside them
    (scripts/docblocks/machine.py --short), machines once each, with the range of the load."""
    lines = []
    for folder in folders:
        path = os.path.join(folder, "machine.txt")
        lines += [l.strip() for l in open(path) if l.strip()] if os.path.exists(path) else ["an unrecorded machine"]
    machines = sorted({l.rsplit(", load ", 1)[0] for l in lines})
    loads = sorted(float(l.rsplit(", load ", 1)[1]) for l in lines if ", load " in l)
    load = f", load {loads[0]:g}" + (f"–{loads[-1]:g}" if loads[-1] != loads[0] else "") if loads else ""
    return "; ".join(machines) + load


def contraction(points, floor=1e-11):
    """The error's contraction per iteration: the geometric mean of the ratios from iteration 2 to
    the first iteration below `floor` (where round-off starts to bend the line), or to the last."""
    errors = {it: v for it, _, _, v in points}
    end = next((it for it in sorted(errors) if it > 2 and errors[it] < floor), max(errors))
    return (errors[end] / errors[2]) ** (1.0 / (end - 2))


def stored_experiment(folder):
    """The resolved experiment of the folder's latest run, as the store recorded it (runs table)."""
    rows = store_rows(folder, "SELECT experiment FROM runs ORDER BY id DESC LIMIT 1")
    if not rows:
        fail(f"{folder}: no run recorded")
    return json.loads(rows[0][0])


def experiment_file(folder):
    """The experiment file of the folder's latest run (the store's runs table), as the run named it."""
    rows = store_rows(folder, "SELECT experiment_file FROM runs ORDER BY id DESC LIMIT 1")
    if not rows:
        fail(f"{folder}: no run recorded")
    return rows[0][0]


def stored_column(folder, column):
    """One column of the store's trials table (cell, diagnostics, …), by trial key; JSON text decoded."""
    rows = store_rows(folder, f"SELECT key, {column} FROM trials")
    return {key: json.loads(v) if isinstance(v, str) and v[:1] in "{[" else v for key, v in rows}


def diagnostics(folder):
    """Each trial's diagnostics as the store recorded them (fit, fit_floor, …), by trial key."""
    return {key: d or {} for key, d in stored_column(folder, "diagnostics").items()}
