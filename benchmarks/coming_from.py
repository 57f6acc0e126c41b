#!/usr/bin/python3
"""RankOne side by side with libFM, LIBMF, xLearn and LEML (each when given) on the peers' own file formats.

Usage: benchmarks/coming_from.py RANKONE [--libfm PATH] [--libmf DIR] [--leml DIR] [--xlearn DIR]
                                 [--out DIR] [--rankone-only] [--quick]

Generates, with fixed seeds, one data set per workload in the peers' formats (train, validation and
test files): an FM with a bias and a generalized FM with an indefinite M (libsvm, libFM's format), a
low-rank matrix's triplets (LIBMF's `row col value`), one-bit multi-label observations (a feature
file and `row label ±1` lines for RankOne; LEML's binary X.smat / Y.smat / Xt.smat / Yt.smat). Every tool is tuned on a small grid on the
validation file (its recommended settings as the starting point), then trained once more on the
training file with the chosen settings and asked for the test file's predictions; every prediction
FILE is scored by the same scorer (RMSE against the test file's values). RankOne runs its experiment
file from experiments/coming_from/ with the generated files as overrides, then `rankone model` and
`rankone predict TEST_FILE`. A peer not given is skipped with a line saying so.

LEML (--leml DIR: the folder holding train-ml, built outside the project from the Galois repository's
commit in LEML_SOURCE) prints its own metrics and writes no predictions: the build this driver expects
carries a local output-only patch that writes the learned W and H to $LEML_DUMP_WH, and the driver
writes the evaluated file's scores X W H' (one line per instance, a score per label) from them, so LEML
is scored by the same code as RankOne. A second binary train-ml-update-h in DIR, if present, is run as
well (the same source with the H step that the Galois snapshot comments out compiled back in).

Writes DIR/results.json (one row per tool and workload: validation and test accuracy, wall and CPU
seconds of the final run, settings, commands) and DIR/data/; scripts/docblocks/coming_from.py
prints the page's tables from it. --quick shrinks the data and the grids (the CI run, RankOne only);
exit 1 when a RankOne run fails or its predictions are not one finite number per test record.
"""
import argparse
import itertools
import json
import math
import os
import pathlib
import resource
import shlex
import shutil
import struct
import subprocess
import sys
import time
import zlib

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXPERIMENTS = ROOT / "experiments" / "coming_from"
SEED = 15
# Where the LEML this driver runs comes from (train-ml is not a git checkout of its own).
LEML_SOURCE = ("605b50c5e15677f32e0286a213c38bd28ae4cf4f (github.com/IntelligentSoftwareSystems/Galois, "
               "lonestar/experimental/leml; removed in 9d1935dac)")


# ---------------------------------------------------------------- data


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for row, label in zip(X, y):
            f.write(f"{label:.10g} " + " ".join(f"{j}:{v:.6g}" for j, v in enumerate(row)) + "\n")


def fm_data(folder, rng, n, d, k, indefinite):
    """y = b + w'x + x'Mx + noise, x ~ N(0, I). FM: M = UU' off the diagonal (what libFM models);
    generalized FM: M = U diag(±1) U', diagonal included (indefinite, so no FM of rank k holds it)."""
    U = rng.standard_normal((d, k)) / math.sqrt(d)
    signs = np.array([1.0 if f % 2 == 0 else -1.0 for f in range(k)]) if indefinite else np.ones(k)
    M = (U * signs) @ U.T
    if not indefinite:
        np.fill_diagonal(M, 0.0)
    w = rng.standard_normal(d) / math.sqrt(d)
    bias = 2.0
    for part, count in n.items():
        X = rng.standard_normal((count, d))
        y = bias + X @ w + np.einsum("ni,ij,nj->n", X, M, X) + 0.1 * rng.standard_normal(count)
        write_libsvm(folder / f"{part}.libfm", X, y)


def completion_data(folder, rng, n, rows, cols, k):
    """M = UV' (rank k, entries of unit scale) + 3; distinct entries dealt to train/validation/test."""
    U = rng.standard_normal((rows, k)) / k ** 0.25
    V = rng.standard_normal((cols, k)) / k ** 0.25
    cells = rng.choice(rows * cols, size=sum(n.values()), replace=False)
    start = 0
    for part, count in n.items():
        chosen = cells[start:start + count]
        start += count
        i, j = chosen // cols, chosen % cols
        values = 3.0 + np.einsum("nk,nk->n", U[i], V[j]) + 0.1 * rng.standard_normal(count)
        with open(folder / f"{part}.txt", "w") as f:
            f.writelines(f"{a} {b} {v:.6f}\n" for a, b, v in zip(i, j, values))


def one_bit_data(folder, rng, n, d, labels, k, asked):
    """Scores x'W (W: d × labels of rank k); an instance's labels are those scoring above 0.3 and its
    best one. Training: the features (libsvm, no labels) and LEML's observations `row label ±1`
    (1-based), `asked` labels per instance; validation and test: multi-label libsvm, every label."""
    W = rng.standard_normal((d, k)) @ rng.standard_normal((k, labels)) / math.sqrt(d * k)

    def draw(count):
        X = rng.standard_normal((count, d))
        S = X @ W
        return X, [sorted(set(np.flatnonzero(s > 0.3).tolist()) | {int(np.argmax(s))}) for s in S]

    def write(path, X, sets):
        with open(path, "w") as f:
            for x, positives in zip(X, sets):
                head = ",".join(map(str, positives)) + " " if positives is not None else ""
                f.write(head + " ".join(f"{j}:{v:.6g}" for j, v in enumerate(x)) + "\n")

    X, sets = draw(n["train"])
    write(folder / "train.libsvm", X, [None] * len(X))
    with open(folder / "train_observations.txt", "w") as f:
        for i, positives in enumerate(sets):
            for j in rng.choice(labels, size=asked, replace=False):
                f.write(f"{i + 1} {j + 1} {1 if j in positives else -1}\n")
    for part in ("validation", "test"):
        write(folder / f"{part}.libsvm", *draw(n[part]))


def write_smat(path, rows, cols, r, c, v):
    """LEML's binary sparse matrix (smat.cpp, smat_t::load_from_binary): four size_t (rows, cols, nnz,
    compressed bytes), then one zlib stream of the CSC arrays col_ptr (cols + 1 longs), row_idx (nnz
    unsigned), val (nnz doubles). Entries not written are missing (LEML's missing labels)."""
    r, c, v = np.asarray(r, dtype=np.int64), np.asarray(c, dtype=np.int64), np.asarray(v, dtype=np.float64)
    order = np.lexsort((r, c))
    r, c, v = r[order], c[order], v[order]
    col_ptr = np.concatenate([[0], np.cumsum(np.bincount(c, minlength=cols))]).astype(np.int64)
    payload = zlib.compress(col_ptr.tobytes() + r.astype(np.uint32).tobytes() + v.tobytes())
    with open(path, "wb") as f:
        f.write(struct.pack("<4Q", rows, cols, v.size, len(payload)))
        f.write(payload)


def read_libsvm_features(path, d):
    """The features of a (multi-label or unlabelled) libsvm file as a dense matrix (0-based indices)."""
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            x = np.zeros(d)
            for field in line.split():
                if ":" in field:
                    j, value = field.split(":")
                    x[int(j)] = float(value)
            rows.append(x)
    return np.array(rows)


def write_leml_dirs(folder, d, labels):
    """LEML's data folders for the one-bit workload, one per evaluated file: leml_validation/ and
    leml_test/, each with X.smat (training features), Y.smat (the observed bits ±1; the rest missing),
    Xt.smat and Yt.smat (the evaluated file's features and its positive labels, which train-ml scores
    with its own metrics). Written with the data, as the peer's input format; not timed."""
    X = read_libsvm_features(folder / "train.libsvm", d)
    obs = np.loadtxt(folder / "train_observations.txt", dtype=np.int64, ndmin=2)
    for part in ("validation", "test"):
        target = folder / f"leml_{part}"
        target.mkdir(exist_ok=True)
        rr, cc = np.nonzero(X)
        write_smat(target / "X.smat", X.shape[0], d, rr, cc, X[rr, cc])
        write_smat(target / "Y.smat", X.shape[0], labels, obs[:, 0] - 1, obs[:, 1] - 1, obs[:, 2])
        Xt = read_libsvm_features(folder / f"{part}.libsvm", d)
        rr, cc = np.nonzero(Xt)
        write_smat(target / "Xt.smat", Xt.shape[0], d, rr, cc, Xt[rr, cc])
        positives = truth_of(folder / f"{part}.libsvm", "multilabel")
        pr = [i for i, p in enumerate(positives) for _ in p]
        pc = [j for p in positives for j in p]
        write_smat(target / "Yt.smat", Xt.shape[0], labels, pr, pc, np.ones(len(pc)))


def generate(data_dir, quick):
    scale = 0.25 if quick else 1.0
    sizes = lambda tr, va, te: {"train": int(tr * scale), "validation": int(va * scale), "test": int(te * scale)}  # noqa: E731
    workloads = {}
    for name, indefinite in (("fm_bias", False), ("gfm_indefinite", True)):
        folder = data_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        n = sizes(6000, 2000, 2000)
        fm_data(folder, np.random.default_rng([SEED, len(name)]), n, d=30, k=3, indefinite=indefinite)
        workloads[name] = {"kind": "libsvm", "folder": folder, "n": n}
    folder = data_dir / "completion"
    folder.mkdir(parents=True, exist_ok=True)
    n = sizes(24000, 3000, 3000)
    completion_data(folder, np.random.default_rng([SEED, 3]), n, rows=400, cols=300, k=5)
    workloads["completion"] = {"kind": "triplets", "folder": folder, "n": n}
    folder = data_dir / "one_bit"
    folder.mkdir(parents=True, exist_ok=True)
    n = sizes(3000, 1000, 1000)
    one_bit_data(folder, np.random.default_rng([SEED, 4]), n, d=30, labels=10, k=3, asked=3)
    write_leml_dirs(folder, d=30, labels=10)
    workloads["one_bit"] = {"kind": "multilabel", "folder": folder, "n": n, "observations": n["train"] * 3, "labels": 10}
    return workloads


# ---------------------------------------------------------------- scoring (the same for every tool)


# The measure each workload's tools are tuned on (the first of score's), and whether higher is better.
SELECT = {"libsvm": ("rmse", False), "triplets": ("rmse", False), "multilabel": ("auc", True)}


def truth_of(path, kind):
    with open(path) as f:
        lines = [line.split() for line in f if line.strip()]
    if kind == "multilabel":
        return [[int(j) for j in fields[0].split(",")] for fields in lines]
    return np.array([float(fields[0] if kind == "libsvm" else fields[2]) for fields in lines])


def auc(scores, positive):
    """Area under the ROC curve of all (instance, label) pairs (ties count half)."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(scores.size)
    sorted_scores = scores[order]
    start = 0
    while start < scores.size:  # average ranks of ties
        end = start
        while end + 1 < scores.size and sorted_scores[end + 1] == sorted_scores[start]:
            end += 1
        ranks[order[start:end + 1]] = (start + end) / 2 + 1
        start = end + 1
    n_pos = positive.sum()
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * (scores.size - n_pos)))


def score(predictions, test_path, kind):
    """The accuracy of a prediction file against the test file: RMSE of the first number of each line
    (regression, completion), or AUC and precision@1 of each line's label scores (multi-label)."""
    with open(predictions) as f:
        p = np.array([[float(v) for v in line.split()] for line in f if line.strip()])
    truth = truth_of(test_path, kind)
    if p.shape[0] != len(truth) or not np.all(np.isfinite(p)):
        raise RuntimeError(f"{predictions}: expected {len(truth)} lines of finite predictions, found {p.shape[0]}")
    if kind != "multilabel":
        return {"rmse": float(np.sqrt(np.mean((p[:, 0] - truth) ** 2)))}
    positive = np.zeros(p.shape, dtype=bool)
    for i, labels in enumerate(truth):
        positive[i, labels] = True
    return {"auc": auc(p.ravel(), positive.ravel()),
            "precision_at_1": float(positive[np.arange(p.shape[0]), p.argmax(axis=1)].mean())}


def timed(commands, cwd):
    """Runs the commands in turn; wall and CPU seconds of the children, or raises with stderr."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    for command in commands:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(map(str, command))}: exit {done.returncode}\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - start, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def no_skill(workload):
    """The test accuracy of a guess without a model: the training mean (RMSE), or chance (AUC 0.5)."""
    kind, folder = workload["kind"], workload["folder"]
    if kind == "multilabel":
        return 0.5
    ext = ".libfm" if kind == "libsvm" else ".txt"
    mean = truth_of(folder / f"train{ext}", kind).mean()
    return float(np.sqrt(np.mean((truth_of(folder / f"test{ext}", kind) - mean) ** 2)))


# ---------------------------------------------------------------- tools
# Each tool: settings grid (recommended settings first), and run(settings, train, evaluated, work)
# -> (commands, prediction file); the driver times the commands and scores the file.


def libfm_tool(binary, method):
    def run(s, train, evaluated, work):
        out = work / "predictions.txt"
        command = [binary, "-task", "r", "-method", method, "-train", train, "-test", evaluated,
                   "-dim", f"1,1,{s['k']}", "-iter", str(s["iter"]), "-init_stdev", str(s["init_stdev"]),
                   "-seed", str(SEED), "-out", out]
        if method == "als":
            command[command.index("-seed"):command.index("-seed")] = ["-regular", f"0,0,{s['reg']}"]
        return [command], out
    if method == "mcmc":  # libFM's default method: no regularization to tune (it is sampled)
        grid = {"k": [3, 8], "iter": [100], "init_stdev": [0.1, 0.5]}
    else:
        grid = {"k": [3, 8], "iter": [100], "init_stdev": [0.1], "reg": [0.1, 1, 10]}
    return grid, run


def libmf_tool(folder):
    def run(s, train, evaluated, work):
        model, out = work / "model.txt", work / "predictions.txt"
        return [[folder / "mf-train", "-k", str(s["k"]), "-l2", str(s["l2"]), "-t", str(s["t"]), "-r", str(s["r"]),
                 "-s", "1", "--quiet", train, model],
                [folder / "mf-predict", evaluated, model, out]], out
    return {"k": [5, 6, 8], "l2": [0.01, 0.05, 0.1], "t": [50, 100], "r": [0.1]}, run


def xlearn_tool(folder):
    """xLearn's FM regression (-s 4; -s 1 is its FM classifier), AdaGrad by default, one thread and
    lock-free updates off so that a run is repeatable; its instance-wise normalization (on by default)
    is a tuned option, since it changes what x'Mx means on unnormalized features."""
    def run(s, train, evaluated, work):
        model, out = work / "model.bin", work / "predictions.txt"
        norm = [] if s["normalize"] else ["--no-norm"]
        env = ["env", f"USER={os.environ.get('USER') or 'coming_from'}"]  # xLearn's log name aborts without $USER
        return [[*env, folder / "xlearn_train", train, "-s", "4", "-k", str(s["k"]), "-r", str(s["r"]), "-b", str(s["b"]),
                 "-e", str(s["e"]), "-nthread", "1", "--dis-lock-free", "-seed", str(SEED), "--no-bin", "--quiet",
                 "-m", model, "-l", work / "log", *norm],
                [*env, folder / "xlearn_predict", evaluated, model, "-o", out, "-nthread", "1",
                 "-l", work / "log", *norm]], out
    return {"k": [4, 8], "r": [0.2, 0.05], "b": [0.00002], "e": [50], "normalize": [True, False]}, run


def leml_tool(binary, observations, labels):
    """LEML's train-ml on its data folder (squared loss -s 0, as RankOne's leml; one thread -n 1), then
    the driver's scoring step: the evaluated file's scores X W H' from the W and H the patched train-ml
    writes to $LEML_DUMP_WH. The settings are RankOne's leml run's: rank, alternations (-t), Newton /
    TRON steps (-T) and CG steps (-g) per factor solve. RankOne's leml minimises
    mean (y − c·x'UV'e_j)² + λ(‖U‖² + ‖V‖²), c = √labels (the single_label operator's gain); LEML
    minimises Σ (1/l)(y − x'WH'e_j)² + ½(‖W‖² + ‖H‖²) over its n observed bits; with W = √c U,
    H = √c V the two are the same problem when -l = 2·n·λ/c.
    LEML's CG stops at 0.1·‖gradient‖ (fixed in tron.cpp); -e, its relative gradient stop, is set small
    so that, as in RankOne, the step count bounds each solve. Rank must be even (see the page)."""
    def run(s, train, evaluated, work):
        data = train.parent / f"leml_{evaluated.stem}"
        factors, out = work / "wh.txt", work / "predictions.txt"
        command = ["env", f"LEML_DUMP_WH={factors}", binary, "-s", "0", "-k", str(s["k"]),
                   "-l", f"{2 * observations * s['penalty'] / math.sqrt(labels):.6g}", "-t", str(s["t"]), "-T", str(s["T"]),
                   "-g", str(s["g"]), "-e", str(s["e"]), "-n", "1", "-P", "1", f"{data}/"]
        return [command, [sys.executable, __file__, "--leml-scores", factors, "--evaluated", evaluated,
                          "--scores-out", out]], out
    return {"k": [4], "penalty": [0.01, 1, 100], "t": [10], "T": [5], "g": [50], "e": [1e-6]}, run


def leml_scores(factors, evaluated, out):
    """Scores X W H' of the evaluated file from train-ml's dump ("features labels k", W, H row-major)."""
    values = np.loadtxt(factors, skiprows=1)
    with open(factors) as f:
        d, labels, k = (int(v) for v in f.readline().split())
    if values.size != (d + labels) * k:
        raise RuntimeError(f"{factors}: expected {(d + labels) * k} numbers, found {values.size}")
    W, H = values[:d * k].reshape(d, k), values[d * k:].reshape(labels, k)
    scores = read_libsvm_features(evaluated, d) @ W @ H.T
    np.savetxt(out, scores, fmt="%.10g")


def rankone_tool(binary, experiment, estimator_grid, estimator=None, batch_rows=None, one_bit=False):
    """`rankone run` of the experiment file on (train, evaluated), then `model` and `predict`. The grid's
    settings override the file's estimator, or complete `estimator` (another estimator on the same data).
    batch_rows: gfm_one_pass's batch is the whole training file, each iteration one more pass.
    one_bit: trained on the features and LEML's observations; the evaluated file is predicted only."""
    def run(s, train, evaluated, work):
        out, model, predictions = work / "results", work / "model", work / "predictions.txt"
        for stale in (out, model):
            shutil.rmtree(stale, ignore_errors=True)
        s = dict(s)
        if batch_rows:
            s.update(batch_size=batch_rows, passes=s["max_iterations"] + 1)
        if one_bit:
            overrides = [f"data.file={train}", f"data.observations={train.parent / 'train_observations.txt'}"]
        else:
            overrides = [f"data.file={train}", f"data.test_file={evaluated}"]
        if estimator:
            overrides.append("estimators=" + json.dumps([{**estimator, **s}]))
        else:
            overrides += [f"estimators.0.{key}={json.dumps(value)}" for key, value in s.items()]
        return [[binary, "run", experiment, *overrides, "--out", out, "--quiet"],
                [sys.executable, __file__, "--model-of", out, "--rankone-binary", binary, "--model-out", model],
                [binary, "predict", model, evaluated, *(["observations=null"] if one_bit else []),
                 "--output", predictions]], predictions
    return estimator_grid, run


def export_model(binary, results, model):
    """`rankone model` of the one trial of a results folder."""
    subprocess.run([binary, "model", results, "--output", model], check=True, capture_output=True)


# ---------------------------------------------------------------- the comparison


def provenance(path):
    """The commit of the git checkout a peer's binary lives in (the page states what was compared)."""
    done = subprocess.run(["git", "-C", str(pathlib.Path(path).resolve().parent), "rev-parse", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip() if done.returncode == 0 else "unknown (not a git checkout)"


def settings_of(grid):
    keys = list(grid)
    return [dict(zip(keys, values)) for values in itertools.product(*(grid[k] for k in keys))]


def compare(name, tool, workload, work_root):
    folder, kind = workload["folder"], workload["kind"]
    ext = {"libsvm": ".libfm", "triplets": ".txt", "multilabel": ".libsvm"}[kind]
    measure, higher_is_better = SELECT[kind]
    train, validation, test = (folder / f"{p}{ext}" for p in ("train", "validation", "test"))
    grid, run = tool
    tried = []
    for index, s in enumerate(settings_of(grid)):
        work = work_root / f"grid{index}"
        work.mkdir(parents=True, exist_ok=True)
        commands, predictions = run(s, train, validation, work)
        timed(commands, work)
        value = score(predictions, validation, kind)[measure]
        tried.append((-value if higher_is_better else value, index, s))
    _, _, best = min(tried, key=lambda t: (t[0], t[1]))
    best_validation = min(tried, key=lambda t: (t[0], t[1]))[0] * (-1 if higher_is_better else 1)
    work = work_root / "final"
    work.mkdir(parents=True, exist_ok=True)
    commands, predictions = run(best, train, test, work)
    wall, cpu = timed(commands, work)
    return {"tool": name, "settings": best, "grid": grid, "measure": measure, "validation": best_validation,
            "test": score(predictions, test, kind), "wall_seconds": wall, "cpu_seconds": cpu,
            "commands": [readable(c, folder, work) for c in commands]}


def readable(command, data, work):
    """A command as the page shows it: programs by name, paths relative to the data, run and source folders."""
    words = [str(a) for a in command]
    if words[0] == "env":  # xLearn's `env USER=…` prefix goes; LEML's `LEML_DUMP_WH=…` stays
        words = [w for w in words[1:] if not w.startswith("USER=")]
    program = next(i for i, w in enumerate(words) if "=" not in w)
    words[program] = "python3" if words[program] == sys.executable else pathlib.Path(words[program]).name
    for prefix in (f"{work}/", f"{data}/", f"{ROOT}/"):
        words = [w.replace(prefix, "") for w in words]
    return shlex.join(words)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rankone", nargs="?")
    parser.add_argument("--libfm", help="libFM's binary (bin/libFM)")
    parser.add_argument("--libmf", help="LIBMF's folder (mf-train and mf-predict)")
    parser.add_argument("--xlearn", help="xLearn's build folder (xlearn_train and xlearn_predict)")
    parser.add_argument("--leml", help="LEML's folder (train-ml with the W/H dump patch; train-ml-update-h if built)")
    parser.add_argument("--out", default="results/coming_from")
    parser.add_argument("--rankone-only", action="store_true")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--model-of", help=argparse.SUPPRESS)  # internal: one step of a timed RankOne run
    parser.add_argument("--rankone-binary", help=argparse.SUPPRESS)
    parser.add_argument("--model-out", help=argparse.SUPPRESS)
    parser.add_argument("--leml-scores", help=argparse.SUPPRESS)  # internal: LEML's scoring step
    parser.add_argument("--evaluated", help=argparse.SUPPRESS)
    parser.add_argument("--scores-out", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.model_of:
        export_model(args.rankone_binary, args.model_of, args.model_out)
        return 0
    if args.leml_scores:
        leml_scores(args.leml_scores, args.evaluated, args.scores_out)
        return 0
    if not args.rankone:
        parser.error("the rankone binary is required")
    rankone = str(pathlib.Path(args.rankone).resolve())
    out = pathlib.Path(args.out).resolve()
    workloads = generate(out / "data", args.quick)
    small = lambda grid: {k: v[:1] for k, v in grid.items()} if args.quick else grid  # noqa: E731

    fm_grid = small({"rank": [3, 6], "reg_v": [0, 0.001, 0.01]})
    gfm_grid = small({"rank": [3, 4, 6], "max_iterations": [10, 30]})
    sgd_grid = small({"rank": [5, 8], "regularization": [0.001, 0.0001, 0.01]})
    als_grid = small({"rank": [5, 8], "regularization": [0.001, 0.01, 0.1]})
    plan = {
        "fm_bias": [("RankOne fm (ALS)", rankone_tool(rankone, EXPERIMENTS / "fm_bias.json", fm_grid)),
                    ("RankOne gfm_one_pass", rankone_tool(rankone, EXPERIMENTS / "gfm_indefinite.json", gfm_grid,
                                                          batch_rows=workloads["fm_bias"]["n"]["train"]))],
        "gfm_indefinite": [("RankOne gfm_one_pass", rankone_tool(rankone, EXPERIMENTS / "gfm_indefinite.json", gfm_grid,
                                                                 batch_rows=workloads["gfm_indefinite"]["n"]["train"])),
                           ("RankOne fm (ALS)", rankone_tool(rankone, EXPERIMENTS / "fm_bias.json", fm_grid))],
        "completion": [("RankOne sgd_mf", rankone_tool(rankone, EXPERIMENTS / "completion.json", sgd_grid)),
                       # as LIBMF runs: no offset, the factors carry the mean (so one more rank may pay)
                       ("RankOne sgd_mf, no offset", rankone_tool(rankone, EXPERIMENTS / "completion.json",
                                                                   small({"rank": [5, 6, 8], "regularization": [0.0001, 0.001, 0.01]}),
                                                                   {"name": "sgd_mf", "offset": "none", "learning_rate": 0.1,
                                                                    "max_iterations": 100, "tolerance": 0})),
                       ("RankOne als_completion", rankone_tool(rankone, EXPERIMENTS / "completion.json", als_grid,
                                                                {"name": "als_completion", "offset": "mean", "max_iterations": 100}))],
        "one_bit": [("RankOne one_bit_mll", rankone_tool(rankone, EXPERIMENTS / "one_bit.json",
                                                         small({"lambda": [None, 3, 10]}), one_bit=True)),
                    # rank 4, not the data's 3: LEML's train-ml needs an even rank (see the page); both run 4
                    ("RankOne leml", rankone_tool(rankone, EXPERIMENTS / "one_bit.json", small({"penalty": [0.01, 1, 100]}),
                                                  {"name": "leml", "rank": 4, "max_iterations": 10, "tolerance": 0,
                                                   "newton_steps": 5, "cg_iterations": 50}, one_bit=True))],
    }
    peers = {"libfm": args.libfm, "libmf": args.libmf, "xlearn": args.xlearn, "leml": args.leml}
    for peer, path in peers.items():
        if args.rankone_only or not path:
            why = "--rankone-only" if args.rankone_only else f"no --{peer} given"
            print(f"{peer}: skipped ({why})")
    if not args.rankone_only and args.libfm:
        for w in ("fm_bias", "gfm_indefinite"):
            plan[w] += [("libFM ALS", libfm_tool(args.libfm, "als")), ("libFM MCMC", libfm_tool(args.libfm, "mcmc"))]
    if not args.rankone_only and args.xlearn:
        for w in ("fm_bias", "gfm_indefinite"):
            plan[w].append(("xLearn FM", xlearn_tool(pathlib.Path(args.xlearn).resolve())))
    if not args.rankone_only and args.libmf:
        plan["completion"].append(("LIBMF", libmf_tool(pathlib.Path(args.libmf).resolve())))
    if not args.rankone_only and args.leml:
        leml = pathlib.Path(args.leml).resolve()
        observations = workloads["one_bit"]["observations"]
        labels = workloads["one_bit"]["labels"]
        plan["one_bit"].append(("LEML train-ml", leml_tool(leml / "train-ml", observations, labels)))
        if (leml / "train-ml-update-h").exists():
            plan["one_bit"].append(("LEML train-ml, H step restored",
                                    leml_tool(leml / "train-ml-update-h", observations, labels)))

    rows, failed, baselines = [], False, {}
    for workload, tools in plan.items():
        baselines[workload] = no_skill(workloads[workload])
        for name, tool in tools:
            work = out / "runs" / workload / name.replace(" ", "_").replace("(", "").replace(")", "")
            try:
                row = compare(name, tool, workloads[workload], work)
            except (RuntimeError, subprocess.CalledProcessError) as error:
                print(f"{workload} / {name}: FAILED: {error}", file=sys.stderr)
                failed = failed or name.startswith("RankOne")
                continue
            row["workload"] = workload
            rows.append(row)
            test = "  ".join(f"{k} {v:.4f}" for k, v in row["test"].items())
            print(f"{workload:15s} {name:24s} validation {row['measure']} {row['validation']:.4f}  test {test}"
                  f"  wall {row['wall_seconds']:.2f} s  cpu {row['cpu_seconds']:.2f} s  {row['settings']}", flush=True)
    for workload, baseline in baselines.items():  # RankOne must learn something from every peer format
        ours = [r["test"][r["measure"]] for r in rows if r["workload"] == workload and r["tool"].startswith("RankOne")]
        learned = ours and (max(ours) > 0.75 if workload == "one_bit" else min(ours) < 0.8 * baseline)
        if not learned:
            print(f"{workload}: RankOne's best test accuracy {ours} is no better than no skill ({baseline:.4f})",
                  file=sys.stderr)
            failed = True
    sizes = {w: {k: v for k, v in spec["n"].items()} for w, spec in workloads.items()}
    binaries = {"libfm": args.libfm, "libmf": args.libmf and pathlib.Path(args.libmf) / "mf-train",
                "xlearn": args.xlearn and pathlib.Path(args.xlearn) / "xlearn_train"}
    commits = {peer: provenance(path) for peer, path in binaries.items() if path and not args.rankone_only}
    if args.leml and not args.rankone_only:
        commits["leml"] = LEML_SOURCE
    machine = {"cpus": os.cpu_count(), "load_after": round(os.getloadavg()[0], 2)}
    (out / "results.json").write_text(json.dumps({"quick": args.quick, "sizes": sizes, "no_skill": baselines, "peers": commits,
                                                  "machine": machine, "rows": rows}, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
