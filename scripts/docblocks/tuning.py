"""Choosing a baseline's setting on validation problems, and checking a test run against that
choice: the project's rule for comparisons, "equal data, tuned on validation, both reported" (standard library).

A validation run is the test experiment on another seed (another planted truth, other draws),
holding each tuned baseline under its test label at several settings (sweep coordinates or
estimator parameters). A setting is the estimator's resolved configuration as the store recorded
it (`config.estimator` of each trial, without the label). The test run holds each baseline at its
default setting under its own label and, when validation chose another setting, the chosen one
under the tuned label the page names; `check_test` refuses anything else.
"""
import json
import os
import sys

from results import store_rows

NOT_CANDIDATES = ("failed", "diverged")  # a setting with such a trial is not a candidate


def configurations(folder):
    """trial key -> {"cell", "estimator" (settings without the label), "data", "data_seed"}."""
    rows = store_rows(folder, "SELECT key, cell, data_seed, config FROM trials")
    out = {}
    for key, cell, data_seed, config in rows:
        config = json.loads(config)
        estimator = flattened({k: v for k, v in config["estimator"].items() if k != "label"})
        out[key] = {"cell": cell, "estimator": estimator, "data": config["data"], "data_seed": data_seed}
    return out


def flattened(settings, prefix=""):
    """Nested components' parameters as dotted names, as sweeps write them (init.std)."""
    out = {}
    for k, v in settings.items():
        if isinstance(v, dict):
            out.update(flattened(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def frozen(settings):
    return json.dumps(settings, sort_keys=True)


class Setting:
    """One label at one setting in a run: its trials (every repetition)."""

    def __init__(self, label, estimator):
        self.label, self.estimator, self.trials = label, estimator, []

    def usable(self):
        return self.trials and not any(t["status"] in NOT_CANDIDATES for t in self.trials)


def settings(ts, configs, labels):
    """The settings of `labels` in the run, in grid order (sweep cell, then the experiment's order
    of the labels): label -> [Setting]."""
    found = {}
    for t in sorted(ts, key=lambda t: (configs[t["trial"]]["cell"], labels.index(t["label"]) if t["label"] in labels else -1)):
        if t["label"] not in labels:
            continue
        estimator = configs[t["trial"]]["estimator"]
        per_label = found.setdefault(t["label"], {})
        per_label.setdefault(frozen(estimator), Setting(t["label"], estimator)).trials.append(t)
    return {label: list(per_label.values()) for label, per_label in found.items()}


def choose(candidates, score):
    """The setting with the lowest score(setting) among the usable ones whose score is not None;
    ties keep the first in grid order. None when no setting is a candidate."""
    best = None
    for s in candidates:
        value = score(s) if s.usable() else None
        if value is not None and (best is None or value < best[0]):
            best = (value, s)
    return best[1] if best else None


def difference(base, other):
    """The parameters where `other` differs from `base`, as `name value, …` (empty when equal)."""
    return ", ".join(f"{k} {other[k]:g}" if isinstance(other[k], float) else f"{k} {other[k]}"
                     for k in sorted(other) if base.get(k) != other[k])


def check_test(validation, test, default_label, tuned_label, chosen):
    """Refuses (exit 2) a test run that does not hold the validation's choice: `default_label` at
    a setting the validation grid (`chosen.label`'s settings) holds; `tuned_label` at exactly the
    chosen setting, or absent when the choice is the default; data of the same kind (apart from
    swept data keys) on other seeds. `validation` and `test` are (trials, configurations) of the
    two folders."""
    def refuse(message):
        print(f"{os.path.basename(sys.argv[0])}: {message}", file=sys.stderr)
        sys.exit(2)

    v_ts, v_configs = validation
    t_ts, t_configs = test
    grid = {frozen(v_configs[t["trial"]]["estimator"]) for t in v_ts if t["label"] == chosen.label}
    default = {frozen(t_configs[t["trial"]]["estimator"]) for t in t_ts if t["label"] == default_label}
    tuned = {frozen(t_configs[t["trial"]]["estimator"]) for t in t_ts if t["label"] == tuned_label}
    if len(default) != 1:
        refuse(f"the test run holds {len(default)} settings of {default_label} (expected its default, once)")
    if not default <= grid:
        refuse(f"the validation grid of {default_label} does not hold the test's default setting {next(iter(default))}")
    if frozen(chosen.estimator) in default:
        if tuned:
            refuse(f"validation chose the default setting of {default_label}, but the test run holds {tuned_label}: "
                   "remove it from the experiment")
    elif tuned != {frozen(chosen.estimator)}:
        refuse(f"validation chose {difference(json.loads(next(iter(default))), chosen.estimator)} for {default_label}, "
               f"but the test run holds {tuned_label} at {', '.join(sorted(tuned)) or 'no setting'}: "
               "put the chosen setting in the experiment and rerun")
    swept = {k for ts, configs in (validation, test) for t in ts for k in t.info if k.startswith("data.")}
    kinds = {frozen({k: v for k, v in configs[t["trial"]]["data"].items() if f"data.{k}" not in swept})
             for ts, configs in (validation, test) for t in ts}
    if len(kinds) != 1:
        refuse("validation and test run on data of different kinds (settings other than the swept ones differ)")
    shared = {c["data_seed"] for c in v_configs.values()} & {c["data_seed"] for c in t_configs.values()}
    if shared:
        refuse(f"validation and test share data seeds {sorted(shared)}: validation problems must be independent")

