#!/usr/bin/env python3
"""Prints the tables of docs/online-completion-real-data.md from runs of
experiments/online_completion/{movielens,movielens_tune_*,camera,camera_rank50,camera_tune*}.json.

usage: omc_real_data.py tuning METRIC MAIN FOLDER [FOLDER …]
           per estimator of each validation run FOLDER: its grid, the cell with the best final
           METRIC (lowest; highest for test_psnr), that value, the range over the other cells, how
           many cells diverged (a diverged cell is never chosen), and whether the main run MAIN
           runs the estimator of that label at the choice (in its cell of the same data split)
       omc_real_data.py movielens FOLDER
           final test RMSE per estimator and split (the best per split in bold)
       omc_real_data.py movielens-split FOLDER
           the ratings file of the run, and its chronological split (the training ratings the run's
           estimators saw): how much of the test period is cold start
       omc_real_data.py camera-tuning FOLDER LABEL MAIN
           final validation PSNR of LABEL per rank (and warm start) against its penalty or step, the
           best per row in bold, and where the main run MAIN uses another setting than that best
       omc_real_data.py camera FOLDER [FOLDER …]
           per estimator: relative error / PSNR on the unobserved pixels per rank and observed fraction
       omc_real_data.py camera-time FOLDER
           estimator seconds per trial at the largest observed fraction (machine-specific)
"""
import json
import statistics

from results import MISSING, count, machine_of, run_subcommand, stored_experiment, trials, value

SHORT = {"rank": "k", "step_size": "step", "regularization": "ridge", "init_fit": "init fit",
         "bias_regularization": "λ", "init": "init", "split": "split"}
HIGHER_IS_BETTER = ("test_psnr",)


def swept(resolved):
    """path -> values of every sweep coordinate with more than one value."""
    sweep = resolved.get("sweep") or {}
    axes = dict((sweep.get("grid") or {}).items())
    for group in sweep.get("zip") or []:
        axes.update(group)
    return {p: v for p, v in axes.items() if len(v) > 1}


def own_paths(resolved, label):
    """The swept coordinates that belong to the estimator labelled `label`."""
    index = next(i for i, e in enumerate(resolved["estimators"]) if e["label"] == label)
    return [p for p in swept(resolved) if p.startswith(f"estimators.{index}.")]


def rank_of(resolved, label):
    """The swept rank coordinate of `label`, or None when the run has one rank."""
    paths = [p for p in own_paths(resolved, label) if name(p) == "k"]
    if paths:
        return paths[0]
    return None


def name(path):
    return SHORT.get(path.rsplit(".", 1)[-1], path.rsplit(".", 1)[-1])


def show(v):
    if isinstance(v, dict) and "name" in v:  # a component (an initializer): its name and the settings it was given
        given = {k: x for k, x in v.items() if k != "name" and x is not None}
        return v["name"] + (" (" + ", ".join(f"{k} {show(x)}" for k, x in sorted(given.items())) + ")" if given else "")
    return f"{v:g}" if isinstance(v, float) else str(v)


def cells(ts, label, paths, metric):
    """{(values of paths): (mean final metric, statuses)} for the trials of `label`."""
    out = {}
    for t in ts:
        if t["label"] != label:
            continue
        key = tuple(value(t[p]) for p in paths)
        finals, statuses = out.setdefault(key, ([], []))
        statuses.append(t["status"])
        if metric in t.points:
            finals.append(t.final(metric))
    return {k: (statistics.mean(f) if f else None, s) for k, (f, s) in out.items()}


def best(found, metric):
    """The key of the best cell without a failed or diverged trial."""
    usable = {k: v for k, (v, s) in found.items() if v is not None and not set(s) & {"failed", "diverged"}}
    if not usable:
        return None
    return (max if metric in HIGHER_IS_BETTER else min)(usable, key=usable.get)


def fmt(metric, v):
    if v is None:
        return MISSING
    return f"{v:.2f}" if metric == "test_psnr" else f"{v:.3f}" if metric == "test_relative_error" else f"{v:.4f}"


def data_value(resolved, key):
    """A data parameter of a run: its sweep coordinate's value when the sweep sets one, else the data's."""
    sweep = resolved.get("sweep") or {}
    for axes in [sweep.get("grid") or {}] + (sweep.get("zip") or []):
        if len(axes.get(f"data.{key}", [])) == 1:
            return axes[f"data.{key}"][0]
    return resolved["data"].get(key)


def setting_in(resolved, label, split):
    """The estimator `label` of a main run as its cell of data split `split` configures it."""
    index = next(i for i, e in enumerate(resolved["estimators"]) if e["label"] == label)
    setting = dict(resolved["estimators"][index])
    for group in (resolved.get("sweep") or {}).get("zip") or []:
        if "data.split" in group and split in group["data.split"]:
            at = group["data.split"].index(split)
            setting.update({p.split(".", 2)[2]: v[at] for p, v in group.items() if p.startswith(f"estimators.{index}.")})
    return setting


def tuning(metric, main, *folders):
    experiment = stored_experiment(main)
    print(f"| estimator (validation run) | grid | chosen | validation {metric} | other cells | diverged | "
          f"{experiment['name']} runs |")
    print("|---|---|---|---|---|---|---|")
    for folder in folders:
        resolved = stored_experiment(folder)
        ts = trials(folder)
        for e in resolved["estimators"]:
            paths = own_paths(resolved, e["label"])
            grid = " × ".join(f"{name(p)} ∈ {{{', '.join(show(v) for v in swept(resolved)[p])}}}" for p in paths)
            found = cells(ts, e["label"], paths, metric)
            chosen = best(found, metric)
            if chosen is None:
                print(f"| `{e['label']}` ({resolved['name']}) | {grid} | none: every cell failed | | | | |")
                continue
            others = [v for k, (v, s) in found.items() if k != chosen and v is not None and "diverged" not in s]
            span = f"{fmt(metric, min(others))} – {fmt(metric, max(others))}" if others else ""
            diverged = sum("diverged" in s for _, s in found.values())
            what = ", ".join(f"{name(p)} {show(v)}" for p, v in zip(paths, chosen))
            used = setting_in(experiment, e["label"], data_value(resolved, "split"))
            differ = [f"{name(p)} {show(used.get(p.split('.', 2)[2]))}" for p, v in zip(paths, chosen)
                      if show(used.get(p.split(".", 2)[2])) != show(v)]
            runs = "the choice" if not differ else "**" + ", ".join(differ) + "**"
            print(f"| `{e['label']}` ({resolved['name']}) | {grid} | {what} | {fmt(metric, found[chosen][0])} | {span} | "
                  f"{diverged} of {len(found)} | {runs} |")


def movielens(folder):
    resolved = stored_experiment(folder)
    ts = trials(folder)
    splits = swept(resolved)["data.split"]
    finals = {(e["label"], s): cells(ts, e["label"], ["data.split"], "test_rmse").get((s,), (None, []))[0]
              for e in resolved["estimators"] for s in splits}
    bests = {s: min((v, label) for (label, x), v in finals.items() if x == s and v is not None)[1] for s in splits}
    print("| estimator | " + " | ".join(f"{s} split" for s in splits) + " |")
    print("|---" * (len(splits) + 1) + "|")
    for e in resolved["estimators"]:
        row = [fmt("test_rmse", finals[(e["label"], s)]) for s in splits]
        row = [f"**{v}**" if bests[s] == e["label"] else v for v, s in zip(row, splits)]
        print(f"| `{e['label']}` | " + " | ".join(row) + " |")


def movielens_split(folder):
    """The data and the chronological split of the MovieLens run, counted from the ratings file."""
    import csv
    import datetime
    import os
    resolved = stored_experiment(folder)
    data = os.environ.get("RANKONE_DATA", os.path.expanduser("~/.cache/rankone/datasets"))
    with open(os.path.join(data, resolved["data"]["file"])) as f:
        rows = [(int(r["timestamp"]), r["userId"], r["movieId"]) for r in csv.DictReader(f)]
    rows.sort(key=lambda r: r[0])  # the source's order: "timestamp" (stable)
    chronological = [t for t in trials(folder) if t["data.split"] == "chronological" and "samples" in t.points]
    n_train = int(chronological[0].final("samples"))  # the training ratings the estimators saw
    train, test = rows[:n_train], rows[n_train:]
    users, movies = {u for _, u, _ in train}, {m for _, _, m in train}
    day = lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%-d %B %Y")  # noqa: E731
    month = lambda t: datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%B %Y")  # noqa: E731
    new_users = {u for _, u, _ in test} - users
    by_new_user = sum(u not in users for _, u, _ in test)
    of_new_movie = sum(m not in movies for _, _, m in test)
    both_seen = sum(u in users and m in movies for _, u, m in test)
    tie = "ties" if train[-1][0] == test[0][0] else "does not tie"
    print(f"{count(len(rows))} ratings of {count(len({m for *_, m in rows}))} movies by "
          f"{count(len({u for _, u, _ in rows}))} users, {month(rows[0][0])} – {month(rows[-1][0])}. The chronological "
          f"split trains on the earliest {count(n_train)} ratings (until {day(train[-1][0])}) and tests on the latest "
          f"{count(len(test))}. Its test set is mostly cold start: {100 * by_new_user / len(test):.1f} % of its ratings "
          f"are by users with no training rating ({len(new_users)} of its {len({u for _, u, _ in test})} users are new), "
          f"{100 * of_new_movie / len(test):.1f} % are of movies never rated in training, and only "
          f"{100 * both_seen / len(test):.1f} % have both user and movie seen in training (counted from the file at "
          f"the same boundary, where the timestamp {tie}).")


def camera_tuning(folder, label, main):
    resolved = stored_experiment(folder)
    paths = own_paths(resolved, label)
    column = next(p for p in paths if name(p) in ("ridge", "step"))
    rows = [p for p in paths if p != column]
    found = cells(trials(folder), label, rows + [column], "test_psnr")
    row_keys = sorted({k[:-1] for k in found}, key=lambda k: [str(x) for x in k])
    columns = swept(resolved)[column]
    print(f"| `{label}`: validation PSNR (dB) | " + " | ".join(f"{name(column)} {show(c)}" for c in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    chosen = {}
    for r in row_keys:  # the best setting per row (the main experiment sweeps the rank)
        chosen[r] = best({k: v for k, v in found.items() if k[:-1] == r}, "test_psnr")
        texts = []
        for c in columns:
            v, s = found.get(r + (c,), (None, []))
            text = fmt("test_psnr", v) + (" (diverged)" if "diverged" in s else "")
            texts.append(f"**{text}**" if r + (c,) == chosen[r] else text)
        print("| " + ", ".join(f"{name(p)} {show(v)}" for p, v in zip(rows, r)) + " | " + " | ".join(texts) + " |")
    # What the main experiment runs, against the best of each row at the same other settings
    experiment = stored_experiment(main)
    used = next(e for e in experiment["estimators"] if e["label"] == label)
    setting = column.split(".", 2)[2]
    others = {p: used[p.split(".", 2)[2]] for p in rows if name(p) != "k"}  # e.g. the warm start
    k_path = next(p for p in rows if name(p) == "k")
    relevant = [r for r in row_keys if all(show(dict(zip(rows, r))[p]) == show(v) for p, v in others.items())]
    differs = [r for r in relevant if chosen[r] and show(chosen[r][-1]) != show(used[setting])]
    note = f"{experiment['name']} runs `{label}` at {name(column)} {show(used[setting])}" + \
        "".join(f", {name(p)} {show(v)}" for p, v in others.items()) + " at every rank"
    if differs:
        note += "; validation's best differs at " + ", ".join(
            f"k = {show(dict(zip(rows, r))[k_path])} ({name(column)} {show(chosen[r][-1])}: "
            f"{fmt('test_psnr', found[chosen[r]][0])} dB against {fmt('test_psnr', found[r + (used[setting],)][0])} dB)"
            for r in differs)
    print()
    print(note + ".")


def camera(*folders):
    runs = [(stored_experiment(f), trials(f)) for f in folders]
    labels = []
    for resolved, _ in runs:
        labels += [e["label"] for e in resolved["estimators"] if e["label"] not in labels]
    fractions = sorted({v for resolved, _ in runs for v in swept(resolved)["data.test_fraction"]}, reverse=True)
    for n, label in enumerate(labels):
        table = {}
        for resolved, ts in runs:
            if label not in [e["label"] for e in resolved["estimators"]]:
                continue
            rank = rank_of(resolved, label)
            for metric in ("test_relative_error", "test_psnr"):
                if rank is None:  # one rank for the whole run: the estimator's
                    k = next(e["rank"] for e in resolved["estimators"] if e["label"] == label)
                    found = {(k,) + key: v for key, v in cells(ts, label, ["data.test_fraction"], metric).items()}
                else:
                    found = cells(ts, label, [rank, "data.test_fraction"], metric)
                for (k, fraction), (v, _) in found.items():
                    table.setdefault(k, {}).setdefault(fraction, {})[metric] = v
        if n:
            print()
        print(f"| `{label}`: rel. error / PSNR (dB) | " + " | ".join(f"{100 * (1 - f):.0f} % observed" for f in fractions) + " |")
        print("|---" * (len(fractions) + 1) + "|")
        for k in sorted(table):
            print(f"| k = {k} | " + " | ".join(
                f"{fmt('test_relative_error', table[k].get(f, {}).get('test_relative_error'))} / "
                f"{fmt('test_psnr', table[k].get(f, {}).get('test_psnr'))}" for f in fractions) + " |")


def camera_time(folder):
    resolved = stored_experiment(folder)
    ts = trials(folder)
    fraction = min(swept(resolved)["data.test_fraction"])
    parts = []
    for e in resolved["estimators"]:
        rank = rank_of(resolved, e["label"])
        at = sorted((json.loads(t[rank]), t.seconds) for t in ts
                    if t["label"] == e["label"] and json.loads(t["data.test_fraction"]) == fraction)
        parts.append(f"`{e['label']}` " + " / ".join(f"{s:.1f}" for _, s in at) + " s")
    ranks = sorted({json.loads(t[rank_of(resolved, t["label"])]) for t in ts})
    print(f"Estimator seconds per trial at {100 * (1 - fraction):.0f} % observed (k = {' / '.join(map(str, ranks))}): "
          + ", ".join(parts) + f"; measured on {machine_of(folder)}.")


if __name__ == "__main__":
    run_subcommand({"tuning": tuning, "movielens": movielens, "movielens-split": movielens_split,
                    "camera-tuning": camera_tuning, "camera": camera, "camera-time": camera_time})
