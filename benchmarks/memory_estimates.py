#!/usr/bin/python3
"""Checks the memory footprints the plugins declare against the peak resident memory their trials reach.

Usage: benchmarks/memory_estimates.py RANKONE [--out DIR] [--quick]

Runs one trial of every built-in estimator (and of the metrics and sources whose memory grows with
the problem) at a size where its data dominates, each in its own trial host, and reads from the store
the two figures every trial records: `estimated_memory_mb` (the declared footprint, what
`rankone validate/plan/run` check against the memory budget before running) and `peak_memory_mb`
(the host's measured VmHWM). Prints measured / estimated per case and fails (exit 1) when a ratio
leaves [LOW, HIGH]: an estimate far below the peak lets a study that cannot fit start; one far above
refuses a study that would. --quick runs the cases at a quarter of the size (the test suite's run).
"""
import argparse
import json
import pathlib
import shutil
import sqlite3
import subprocess
import sys
import tempfile

LOW, HIGH = 0.6, 1.4

SYN = "synthetic"
ENTRY = {"operator": "entry", "sampler": "one_hot"}
SINGLE = {"operator": "single_label"}
ASYM = {"operator": "asymmetric_rank_one", "truth": "general", "rank": 5}
FM = {"operator": {"name": "symmetric_rank_one", "first_order": True}, "rank": 5, "w_norm": 1}


def case(name, data, estimator, metrics=("samples",)):
    return name, data, estimator, list(metrics)


def cases(scale):
    n = lambda x: max(1, int(x * scale))  # noqa: E731 (instances shrink with --quick)
    return [
        case("spectral, Krylov path", {"name": SYN, "d": 1000}, {"name": "spectral", "batch_size": n(40000)}),
        case("spectral, dense path", {"name": SYN, "d": 150}, {"name": "spectral", "batch_size": n(200000)}),
        case("gfm_one_pass", {"name": SYN, "d": 1000}, {"name": "gfm_one_pass", "batch_size": n(20000), "max_iterations": 3}),
        case("fm_moment_elimination", {"name": SYN, "d": 500, "sampler": {"name": "bernoulli", "mode": "standardized", "p": 0.3}},
             {"name": "fm_moment_elimination", "batch_size": n(20000), "max_iterations": 3, "tau_threshold": 0}),
        case("ifm", {"name": SYN, "d": 500}, {"name": "ifm", "batch_size": n(20000), "max_iterations": 3}),
        case("fm (sgd), relative_error_M dense", {"name": SYN, "d": 500}, {"name": "fm", "training_size": n(50000), "max_iterations": 2},
             ["relative_error_M"]),
        case("ridge", {"name": SYN, "d": 1500, "operator": {"name": "symmetric_rank_one", "first_order": True}, "w_norm": 1}, {"name": "ridge", "batch_size": n(10000), "training_size": n(20000)}),
        case("one_bit_mll", {"name": SYN, "d": 500, "d2": 50, **SINGLE, "truth": "unit_columns", "link": "sign"},
             {"name": "one_bit_mll", "batch_size": n(20000), "max_iterations": 2}),
        case("one_bit_mll, every label observed", {"name": SYN, "d": 1000, "d2": 300, **SINGLE, "truth": "unit_columns",
                                                    "link": "sign", "full_labels": True},
             {"name": "one_bit_mll", "batch_size": n(10000), "max_iterations": 1}),
        case("leml", {"name": SYN, "d": 300, "d2": 50, **SINGLE, "truth": "unit_columns", "link": "sign"},
             {"name": "leml", "training_size": n(50000), "max_iterations": 2}),
        case("leml, every label observed", {"name": SYN, "d": 1000, "d2": 300, **SINGLE, "truth": "unit_columns",
                                            "link": "sign", "full_labels": True},
             {"name": "leml", "training_size": n(10000), "max_iterations": 1}),
        case("ova_svm", {"name": SYN, "d": 50, "d2": 200, **SINGLE, "truth": "unit_columns", "link": "sign"},
             {"name": "ova_svm", "training_size": n(100000), "newton_steps": 2}),
        case("trace_squared (nuclear_norm)", {"name": SYN, "d": 300, "d2": 100, **SINGLE, "truth": "unit_columns",
                                              "link": "sign", "size": n(40000)},
             {"name": "trace_squared", "max_iterations": 3}),
        case("factored_gd", {"name": SYN, "d": 500, **ASYM, "size": n(40000)},
             {"name": "factored_gd", "rank": 5, "max_iterations": 3}),
        case("svp", {"name": SYN, "d": 500, **ASYM, "size": n(40000)}, {"name": "svp", "rank": 5, "max_iterations": 3}),
        case("altmin_sensing", {"name": SYN, "d": 500, **ASYM, "size": n(40000)},
             {"name": "altmin_sensing", "rank": 5, "max_iterations": 2}),
        case("nuclear_norm", {"name": SYN, "d": 500, **ASYM, "size": n(40000)},
             {"name": "nuclear_norm", "path_length": 2, "max_iterations": 3}),
        case("fm_mcmc", {"name": SYN, "d": 500, **FM, "size": n(20000)}, {"name": "fm_mcmc", "rank": 5, "max_iterations": 2}),
        case("polynomial_network", {"name": SYN, "d": 500, **FM, "size": n(20000)},
             {"name": "polynomial_network", "rank": 5, "max_iterations": 2}),
        case("omc_general", {"name": SYN, "d": n(40000), "d2": n(40000), "truth": "general", **ENTRY},
             {"name": "omc_general", "rank": 5, "max_iterations": 3}),
        case("omc_psd", {"name": SYN, "d": n(40000), "truth": "psd", "operator": "entry", "sampler": "one_hot"},
             {"name": "omc_psd", "rank": 5, "max_iterations": 3}),
        case("export_matrix", {"name": SYN, "d": 3000, "d2": 3000, "truth": "general", **ENTRY},
             {"name": "omc_general", "rank": 2, "max_iterations": 2, "init": {"name": "spectral_init", "batch_size": 200000}},
             [{"name": "export_matrix", "path": "/dev/null"}]),
        case("als_completion", {"name": SYN, "d": 5000, "d2": 5000, "truth": "general", **ENTRY, "size": n(4000000)},
             {"name": "als_completion", "max_iterations": 2}),
        case("sgd_mf", {"name": SYN, "d": 5000, "d2": 5000, "truth": "general", **ENTRY, "size": n(4000000)},
             {"name": "sgd_mf", "max_iterations": 2}),
        case("bias_baseline", {"name": SYN, "d": 5000, "d2": 5000, "truth": "general", **ENTRY, "size": n(4000000)},
             {"name": "bias_baseline", "max_iterations": 2}),
        case("test_rmse on a large test set", {"name": SYN, "d": 1000, "test_size": n(40000)},
             {"name": "spectral", "batch_size": 2000}, ["test_rmse"]),
    ]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rankone")
    parser.add_argument("--out", help="keep the studies here (default: a temporary folder)")
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    scratch = pathlib.Path(args.out) if args.out else pathlib.Path(tempfile.mkdtemp(prefix="rankone-memory-"))
    scratch.mkdir(parents=True, exist_ok=True)
    failed = False
    print(f"{'case':36} {'estimated':>10} {'peak':>10} {'ratio':>6}")
    for i, (name, data, estimator, metrics) in enumerate(cases(0.25 if args.quick else 1.0)):
        experiment = {"name": f"memory-{i}", "seed": 1, "data": data, "estimators": [estimator], "metrics": metrics}
        file = scratch / f"case{i}.json"
        file.write_text(json.dumps(experiment))
        out = scratch / f"case{i}"
        shutil.rmtree(out, ignore_errors=True)  # one trial per store: the row read below is this run's
        run = subprocess.run([args.rankone, "run", str(file), "--out", str(out), "--jobs", "1", "--quiet"],
                             capture_output=True, text=True)
        db = out / "results.sqlite"
        row = sqlite3.connect(db).execute("select status, diagnostics from trials").fetchone() if db.exists() else None
        if row is None or run.returncode not in (0, 1):
            print(f"{name:36} run failed (exit {run.returncode}): {run.stderr.strip()[:300]}")
            failed = True
            continue
        diagnostics = json.loads(row[1])
        estimated, peak = diagnostics.get("estimated_memory_mb"), diagnostics.get("peak_memory_mb")
        if not estimated or not peak:
            print(f"{name:36} {row[0]}: no memory figures ({diagnostics.get('cause', '')})")
            failed = True
            continue
        ratio = peak / estimated
        ok = LOW <= ratio <= HIGH
        failed |= not ok
        print(f"{name:36} {estimated:8.0f}MB {peak:8.0f}MB {ratio:6.2f} {'' if ok else 'OUT OF [%g, %g]' % (LOW, HIGH)}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
