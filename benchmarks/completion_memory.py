#!/usr/bin/python3
"""Peak memory of offline matrix completion on a LIBMF-size problem, against LIBMF in the same run.

Usage: benchmarks/completion_memory.py RANKONE [--libmf DIR] [--out DIR] [--threads N]   (DIR default: $RANKONE_LIBMF)

Writes a 1000 x 1000 matrix of rank 10 observed on 200 000 training and 20 000 test entries as
LIBMF's `row col value` triplet files (fixed seed), runs `sgd_mf` (blocks 8) and `als_completion`
(rank 10, 20 passes) on them through `rankone run` (each trial in its own host, which records its
peak resident memory, VmHWM), and, when --libmf names a folder holding LIBMF's mf-train, runs
`mf-train -k 10 -t 20 -s THREADS` on the same file under GNU time (/usr/bin/time, package `time`) for its peak.
Prints each peak, the test RMSE of each, and the target line of issue 15: sgd_mf's peak within
3x LIBMF's. LIBMF is never part of RankOne: build it outside the project and give its folder.
"""
import argparse
import json
import os
import pathlib
import random
import sqlite3
import subprocess
import sys
import tempfile
import time

ROWS, COLS, RANK = 1000, 1000, 10
TRAIN, TEST = 200_000, 20_000
BOUND = 3.0


def write_problem(folder):
    rng = random.Random(20261129)
    scale = RANK ** -0.25
    u = [[rng.gauss(0, scale) for _ in range(RANK)] for _ in range(ROWS)]
    v = [[rng.gauss(0, scale) for _ in range(RANK)] for _ in range(COLS)]
    for name, count in (("train.txt", TRAIN), ("test.txt", TEST)):
        with open(folder / name, "w") as f:
            for _ in range(count):
                i, j = rng.randrange(ROWS), rng.randrange(COLS)
                value = sum(a * b for a, b in zip(u[i], v[j])) + rng.gauss(0, 0.1)
                f.write(f"{i} {j} {value:.6f}\n")


def run_rankone(rankone, folder, estimator):
    experiment = {
        "name": f"completion-memory-{estimator['name']}", "seed": 1,
        "data": {"name": "ratings", "file": str(folder / "train.txt"), "test_file": str(folder / "test.txt"),
                 "test_fraction": 0, "test_cap": TEST},
        "estimators": [estimator], "metrics": [{"name": "test_rmse"}]}
    file = folder / f"{estimator['name']}.json"
    file.write_text(json.dumps(experiment))
    out = folder / estimator["name"]
    subprocess.run([rankone, "run", str(file), "--out", str(out), "--jobs", "1", "--quiet", "--rerun-all"],
                   check=True, capture_output=True)
    db = sqlite3.connect(out / "results.sqlite")
    diagnostics, seconds = db.execute("select diagnostics, seconds from trials").fetchone()
    rmse = db.execute("select value from points where metric = 'test_rmse' order by iteration desc limit 1").fetchone()
    return json.loads(diagnostics)["peak_memory_mb"], rmse[0] if rmse else float("nan"), seconds


def run_libmf(libmf, folder, threads):
    """LIBMF's time and peak (GNU time's %M: the child's VmHWM, not inflated by a forked Python) and test RMSE."""
    model, predictions, report = folder / "libmf.model", folder / "libmf.pred", folder / "libmf.time"
    start = time.monotonic()
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", str(report), str(libmf / "mf-train"), "-k", str(RANK), "-t", "20",
                    "-s", str(threads), "--quiet", str(folder / "train.txt"), str(model)], check=True)
    seconds = time.monotonic() - start
    subprocess.run([str(libmf / "mf-predict"), str(folder / "test.txt"), str(model), str(predictions)], check=True,
                   capture_output=True)
    truth = [float(line.split()[2]) for line in open(folder / "test.txt")]
    predicted = [float(line) for line in open(predictions)]
    rmse = (sum((a - b) ** 2 for a, b in zip(truth, predicted)) / len(truth)) ** 0.5
    return int(report.read_text().split()[-1]) / 1024.0, rmse, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("rankone")
    parser.add_argument("--libmf", type=pathlib.Path, default=os.environ.get("RANKONE_LIBMF"),
                        help="folder holding LIBMF's mf-train and mf-predict (default: $RANKONE_LIBMF)")
    parser.add_argument("--out", type=pathlib.Path, help="keep the files and studies here (default: a temporary folder)")
    parser.add_argument("--threads", type=int, default=1, help="threads of sgd_mf, als_completion and LIBMF (default 1)")
    args = parser.parse_args()
    folder = args.out or pathlib.Path(tempfile.mkdtemp(prefix="rankone-completion-memory-"))
    folder.mkdir(parents=True, exist_ok=True)
    os.environ["RANKONE_PARSED_CACHE"] = "off"  # hermetic: a cache of this run's own
    write_problem(folder)
    common = {"rank": RANK, "max_iterations": 20, "threads": args.threads}
    rows = [("sgd_mf (blocks 8)", *run_rankone(args.rankone, folder, {"name": "sgd_mf", "blocks": 8, **common})),
            ("als_completion", *run_rankone(args.rankone, folder, {"name": "als_completion", **common}))]
    if args.libmf:
        rows.append(("LIBMF mf-train", *run_libmf(args.libmf, folder, args.threads)))
    print(f"{ROWS} x {COLS}, rank {RANK}, {TRAIN} training and {TEST} test entries, 20 passes, {args.threads} thread(s)")
    print(f"{'':20} {'peak MiB':>9} {'test RMSE':>10} {'seconds':>8}")
    for name, peak, rmse, seconds in rows:
        print(f"{name:20} {peak:9.1f} {rmse:10.4f} {seconds:8.2f}")
    if not args.libmf:
        print("target: sgd_mf peak / LIBMF peak: MISSING (give --libmf DIR)")
        return 1
    ratio = rows[0][1] / rows[-1][1]
    ok = ratio <= BOUND
    print(f"target: sgd_mf peak / LIBMF peak: ratio {ratio:.3f} (want ≤ {BOUND}) {'PASS' if ok else 'FAIL'}   "
          f"[{rows[0][1]:.1f} MiB / {rows[-1][1]:.1f} MiB]")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
