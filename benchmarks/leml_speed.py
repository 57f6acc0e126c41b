#!/usr/bin/python3
"""Times RankOne's `leml` against LEML's own train-ml on one problem with the same settings.

Usage: benchmarks/leml_speed.py RANKONE --leml DIR [--repetitions N] [--threads 1 [2]] [--asked A]
                                [--instances N] [--features D] [--labels L] [--rank K] [--out DIR]

The problem: N instances (default 20 000) of D dense Gaussian features (100), L labels (200) scored by
a rank-5 x'W; A labels asked per instance (default 5), each observed as one bit ±1 (label above 0.3
or the instance's best: +1), the rest missing. RankOne reads the features as libsvm and the bits as
`row label ±1` lines; LEML reads the same numbers from its binary X.smat / Y.smat (written with
benchmarks/coming_from.py's write_smat). Both run squared loss, rank K (default 10, even: train-ml
needs it), 10 alternations, 5 Newton (RankOne) / TRON (LEML -T) steps of at most 20 CG steps per factor
solve, CG stopped at 0.1·‖gradient‖ (LEML's fixed rule, RankOne's cg_tolerance 0.1), LEML's relative
gradient stop -e 1e-6 (RankOne has none), the same problem: RankOne minimises mean (y − c·x'UV'e_j)² +
λ(‖U‖² + ‖V‖²) with λ = 1e-3 and c = √L (the single_label operator's gain), LEML
Σ (1/l)(y − x'WH'e_j)² + ½(‖W‖² + ‖H‖²) over its n observed bits, equal at -l = 2·n·λ/c; one thread
each (RankOne's leml is single-threaded; LEML -n 1). --threads 1 2 also times LEML on two threads, for
information only (RankOne cannot follow).

Each tool runs once untimed (RankOne fills its parsed-record cache, a folder under --out, so every
timed run replays binary records as LEML reads binary files), then the repetitions alternate between
the two tools. Reported per tool, as the median over repetitions: the process's wall and CPU seconds
(load, train, write results) and its solver seconds (RankOne: the `seconds` of its last iteration;
LEML: the `Time` it prints after its last alternation, W and H steps, without its 1 % warm start).
The target is the ratio of process CPU seconds, RankOne / LEML, in benchmarks/targets.py's form.

The LEML of this comparison: train-ml from github.com/IntelligentSoftwareSystems/Galois commit
605b50c5e15677f32e0286a213c38bd28ae4cf4f, folder lonestar/experimental/leml (removed in 9d1935dac),
built outside the project (the build is not part of this repository) from its Makefile's train-ml
target without Galois, g++ 12, OpenMP, Debian's reference BLAS/LAPACK and zlib, and run as

    train-ml-update-h -s 0 -k 10 -l 14.1421 -t 10 -T 5 -g 20 -e 1e-6 -n 1 -P 1 DATA/leml/

with local changes: the unconditional galois/Galois.h includes of multilabel.cpp and smat.cpp guarded or
removed (they do not compile without Galois), an output-only dump of W and H ($LEML_DUMP_WH; not used
here), and a compile-time option LEML_RESTORE_UPDATE_H that compiles back the H step the snapshot
comments out of multilabel_train. The snapshot's train-ml updates W only (H stays at its random
start); train-ml-update-h alternates W and H as LEML does and RankOne's leml does. The target compares
with train-ml-update-h (the same alternation); the W-only train-ml is timed too and printed as info.
Exit 1 when the target fails or a run fails.
"""
import argparse
import json
import os
import pathlib
import re
import resource
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from coming_from import EXPERIMENTS, write_smat  # noqa: E402

SEED = 20


def generate(folder, n, d, labels, asked, seed=SEED):
    """Features, the asked bits (RankOne's files and LEML's), and a small evaluated set for LEML's own
    per-iteration scoring (train-ml always scores Xt/Yt; 20 instances keep that negligible)."""
    rng = np.random.default_rng(seed)
    truth = rng.standard_normal((d, 5)) @ rng.standard_normal((5, labels)) / np.sqrt(d * 5)
    X = np.round(rng.standard_normal((n, d)), 4)  # written shortest-round-trip: both tools read these doubles
    S = X @ truth
    positive = (S > 0.3)
    positive[np.arange(n), S.argmax(axis=1)] = True
    rows = np.repeat(np.arange(n), asked)
    cols = np.concatenate([rng.choice(labels, size=asked, replace=False) for _ in range(n)])
    bits = np.where(positive[rows, cols], 1.0, -1.0)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "train.libsvm", "w") as f:
        for x in X:
            f.write(" ".join(f"{j}:{v}" for j, v in enumerate(x.tolist())) + "\n")
    with open(folder / "train_observations.txt", "w") as f:
        f.writelines(f"{i + 1} {j + 1} {int(b)}\n" for i, j, b in zip(rows, cols, bits))
    leml = folder / "leml"
    leml.mkdir(exist_ok=True)
    r, c = np.nonzero(np.ones_like(X, dtype=bool))
    write_smat(leml / "X.smat", n, d, r, c, X[r, c])
    write_smat(leml / "Y.smat", n, labels, rows, cols, bits)
    Xt = rng.standard_normal((20, d))
    r, c = np.nonzero(np.ones_like(Xt, dtype=bool))
    write_smat(leml / "Xt.smat", 20, d, r, c, Xt[r, c])
    St = Xt @ truth
    r, c = np.nonzero(St > 0.3)
    write_smat(leml / "Yt.smat", 20, labels, r, c, np.ones(r.size))
    return rows.size


def run_timed(command, env=None):
    """(wall, CPU seconds of the child, stdout); raises on a non-zero exit."""
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))}: exit {done.returncode}\n{done.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def rankone_run(binary, folder, out, labels, settings, env):
    shutil.rmtree(out, ignore_errors=True)  # a stored trial would be skipped
    estimator = {"name": "leml", "rank": settings["rank"], "penalty": settings["penalty"],
                 "max_iterations": settings["iterations"], "tolerance": 0, "newton_steps": settings["newton"],
                 "cg_iterations": settings["cg"], "cg_tolerance": 0.1}
    command = [binary, "run", str(EXPERIMENTS / "one_bit.json"), f"data.file={folder / 'train.libsvm'}",
               f"data.observations={folder / 'train_observations.txt'}", f"data.classes={labels}",
               "estimators=" + json.dumps([estimator]), "--out", str(out), "--quiet"]
    wall, cpu, _ = run_timed(command, env)
    rows = subprocess.run([binary, "export", str(out)], capture_output=True, text=True, check=True).stdout.splitlines()
    header = rows[0].split(",")
    last = [r.split(",") for r in rows[1:] if r.split(",")[header.index("metric")] == "seconds"][-1]
    if int(last[header.index("iteration")]) != settings["iterations"]:
        raise RuntimeError(f"RankOne's leml stopped at iteration {last[header.index('iteration')]}")
    return wall, cpu, float(last[header.index("seconds")]), command


def leml_run(binary, folder, observations, labels, threads, settings):
    penalty = 2 * observations * settings["penalty"] / np.sqrt(labels)
    command = [str(binary), "-s", "0", "-k", str(settings["rank"]), "-l", f"{penalty:.6g}",
               "-t", str(settings["iterations"]), "-T", str(settings["newton"]), "-g", str(settings["cg"]),
               "-e", "1e-6", "-n", str(threads), "-P", "1", f"{folder / 'leml'}/"]
    wall, cpu, stdout = run_timed(command)
    times = re.findall(r"ML-iter (\d+) W \S+ H \S+ Time (\S+)", stdout)
    if not times or int(times[-1][0]) != settings["iterations"]:
        raise RuntimeError(f"{binary.name}: no ML-iter {settings['iterations']} line in its output")
    return wall, cpu, float(times[-1][1]), command


def median(values):
    return statistics.median(values)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rankone")
    parser.add_argument("--leml", required=True, help="folder holding train-ml (and train-ml-update-h)")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--instances", type=int, default=20000)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--labels", type=int, default=200)
    parser.add_argument("--asked", type=int, default=5)
    parser.add_argument("--rank", type=int, default=10)
    parser.add_argument("--out", default="results/leml_speed")
    args = parser.parse_args()
    if args.rank % 2:
        parser.error("train-ml needs an even rank (its sparse × dense product loads pairs of doubles)")
    rankone = str(pathlib.Path(args.rankone).resolve())
    leml_dir = pathlib.Path(args.leml).resolve()
    full = leml_dir / "train-ml-update-h"
    w_only = leml_dir / "train-ml"
    if not full.exists():
        sys.exit(f"{full}: not found (see the docstring for the build)")
    out = pathlib.Path(args.out).resolve()
    folder = out / "data"
    observations = generate(folder, args.instances, args.features, args.labels, args.asked)
    settings = {"rank": args.rank, "penalty": 1e-3, "iterations": 10, "newton": 5, "cg": 20}
    env = dict(os.environ, RANKONE_PARSED_CACHE=str(out / "parsed_cache"))
    print(f"problem: {args.instances} instances × {args.features} features, {args.labels} labels, "
          f"{observations} observed bits ({args.asked} per instance); rank {args.rank}, 10 alternations, "
          f"5 Newton/TRON steps × ≤ 20 CG per solve; load before: {os.getloadavg()[0]:.2f}", flush=True)

    tools = {"RankOne leml": lambda: rankone_run(rankone, folder, out / "rankone_run", args.labels, settings, env)}
    for threads in args.threads:
        tools[f"LEML train-ml-update-h, {threads} thread(s)"] = (
            lambda t=threads: leml_run(full, folder, observations, args.labels, t, settings))
    if w_only.exists():
        tools["LEML train-ml (W step only), 1 thread"] = (
            lambda: leml_run(w_only, folder, observations, args.labels, 1, settings))
    times = {name: [] for name in tools}
    try:
        for run in tools.values():  # warm-up: parsed cache, page cache
            run()
        for rep in range(args.repetitions):
            for name, run in tools.items():
                wall, cpu, solver, command = run()
                times[name].append((wall, cpu, solver))
            print(f"  repetition {rep + 1}: " + ", ".join(f"{n} {t[-1][1]:.2f} s CPU" for n, t in times.items()),
                  flush=True)
    except RuntimeError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        return 1
    load_after = os.getloadavg()[0]
    for name, samples in times.items():
        wall, cpu, solver = (median([s[i] for s in samples]) for i in range(3))
        print(f"{name:42s} wall {wall:6.2f} s  CPU {cpu:6.2f} s  solver {solver:6.2f} s   (median of {len(samples)})")
    ours = median([s[1] for s in times["RankOne leml"]])
    theirs = median([s[1] for s in times["LEML train-ml-update-h, 1 thread(s)"]])
    ratio = ours / theirs
    ok = ratio <= 1.0
    print(f"target: leml time / LEML time (process CPU s, 1 thread, W and H alternation): ratio {ratio:.3f} "
          f"(want ≤ 1.0) {'PASS' if ok else 'FAIL'}   [{ours:.2f} s vs {theirs:.2f} s CPU, median of "
          f"{args.repetitions}; load after {load_after:.2f}]")
    if "LEML train-ml (W step only), 1 thread" in times:
        w = median([s[1] for s in times["LEML train-ml (W step only), 1 thread"]])
        print(f"info:   leml time / LEML train-ml as found (W step only, H never updated): {ours / w:.3f} "
              f"({ours:.2f} s vs {w:.2f} s CPU)")
    solver_ours = median([s[2] for s in times["RankOne leml"]])
    solver_theirs = median([s[2] for s in times["LEML train-ml-update-h, 1 thread(s)"]])
    print(f"info:   solver seconds, leml / LEML (their own clocks): {solver_ours / solver_theirs:.3f} "
          f"({solver_ours:.2f} s vs {solver_theirs:.2f} s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
