#!/usr/bin/env python3
"""Where a multi-pass run over a libsvm file spends its time, with and without the parsed-record
cache (plugins/sources/parsed_cache.hpp), from `perf record` samples of the whole study (the rankone
process and its trial processes).

usage: benchmarks/read_once_profile.py [RANKONE] [--json OUT]

RANKONE is the binary (default build/bin/rankone). The script writes a libsvm file (N lines of
D = 50 standard normal features, y = x'w + (u'x)² + noise: the planted rank-one model
gfm_one_pass fits; environment RANKONE_PROFILE_LINES, default 100000), a study of gfm_one_pass
over it with PASSES passes (default 31, the issue's run), and runs it three times under perf:
the cache off, the cache on and empty (the first pass parses and writes it), and the cache on and
full (every pass replays it). Per run it prints the share of the samples in text parsing (line
splitting, UTF-8 checks, number conversion, the libsvm reader, zlib), in the cache (hashing the
file, writing and replaying records), and the run's wall time, and finally the target line
`target: ... ratio ... PASS/FAIL` (parsing share of the replaying run / 10 %, want <= 1).
Needs perf (Debian: linux-perf) and kernel.perf_event_paranoid <= 2.
"""
import json
import os
import pathlib
import random
import shutil
import subprocess
import sys
import tempfile
import time

LINES = int(os.environ.get("RANKONE_PROFILE_LINES", "100000"))
D, PASSES, BATCH = 50, 31, 20000

# Symbols of text parsing: the readers, their line, token and number code, zlib's reading. Memory
# allocation (malloc, free) is shared with batch assembly and counted in neither share.
PARSING = ("LineReader", "parse_libsvm_line", "next_token", "invalid_utf8_at", "parse_finite", "parse_integer",
           "from_chars", "strtod", "LibsvmReader", "detect_base", "GzipFileStream", "gzread", "inflate", "crc32",
           "is_comment_or_blank", "memchr")
# Symbols of the cache itself.
CACHE = ("parsed_cache", "CachingReader", "Decoder", "Encoder", "XXH", "file_identity", "open_checked")


def write_data(path):
    rng = random.Random(1)
    u = [rng.gauss(0, 1) for _ in range(D)]
    norm = sum(a * a for a in u) ** 0.5
    u = [a / norm for a in u]
    w = [1 / 5 ** 0.5 if j < 5 else 0.0 for j in range(D)]
    with open(path, "w") as out:
        for _ in range(LINES):
            x = [rng.gauss(0, 1) for _ in range(D)]
            y = sum(a * b for a, b in zip(w, x)) + sum(a * b for a, b in zip(u, x)) ** 2 + 0.1 * rng.gauss(0, 1)
            out.write(f"{y:.6f} " + " ".join(f"{j + 1}:{v:.6f}" for j, v in enumerate(x)) + "\n")


def study(data):
    iterations = PASSES * LINES // BATCH
    return {"name": "read-once-profile", "seed": 1, "repetitions": 1,
            "data": {"name": "libsvm", "file": str(data), "indexing": "one", "test_fraction": 0.0},
            "estimators": [{"name": "gfm_one_pass", "rank": 1, "batch_size": BATCH, "passes": PASSES,
                            "max_iterations": iterations, "tolerance": 0}],
            "metrics": ["samples"]}


def shares(perf_data):
    report = subprocess.run(["perf", "report", "-i", str(perf_data), "--no-children", "--sort", "sym", "--stdio",
                             "--percent-limit", "0"], capture_output=True, text=True, check=True).stdout
    parsing = cache = 0.0
    for line in report.splitlines():
        fields = line.split()
        if len(fields) < 3 or not fields[0].endswith("%"):
            continue
        percent, symbol = float(fields[0][:-1]), " ".join(fields[2:])
        if any(p in symbol for p in CACHE):
            cache += percent
        elif any(p in symbol for p in PARSING):
            parsing += percent
    return parsing / 100, cache / 100


def run(rankone, experiment, out, cache, work):
    env = dict(os.environ, RANKONE_PARSED_CACHE=cache)
    perf_data = work / f"{out.name}.perf"
    begin = time.monotonic()
    subprocess.run(["perf", "record", "-q", "-F", "499", "-o", str(perf_data), "--", rankone, "run", str(experiment),
                    "--out", str(out), "--jobs", "1"], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - begin
    parsing, cached = shares(perf_data)
    return {"parsing": parsing, "cache": cached, "wall_seconds": wall}


def main():
    args = sys.argv[1:]
    json_out = None
    if "--json" in args:
        at = args.index("--json")
        json_out = args[at + 1]
        del args[at:at + 2]
    rankone = args[0] if args else "build/bin/rankone"
    if not shutil.which("perf"):
        sys.exit("perf is not installed (Debian: apt-get install linux-perf)")
    work = pathlib.Path(tempfile.mkdtemp(prefix="rankone_read_once_"))
    try:
        data = work / "data.svm"
        write_data(data)
        experiment = work / "study.json"
        experiment.write_text(json.dumps(study(data)))
        cache = work / "parsed"
        runs = {"cache off": run(rankone, experiment, work / "off", "off", work),
                "cache on, empty (parses, writes)": run(rankone, experiment, work / "writing", str(cache), work),
                "cache on, full (replays)": run(rankone, experiment, work / "replaying", str(cache), work)}
        print(f"gfm_one_pass, {PASSES} passes over {LINES} libsvm lines ({data.stat().st_size / 1e6:.1f} MB, "
              f"d = {D}, dense lines), batches of {BATCH}, one trial process:")
        for name, r in runs.items():
            print(f"info:   {name}: parsing {100 * r['parsing']:.1f} % of samples, cache {100 * r['cache']:.1f} %, "
                  f"wall {r['wall_seconds']:.1f} s")
        replay = runs["cache on, full (replays)"]["parsing"]
        ok = replay <= 0.10
        print(f"target: parsing share of a {PASSES}-pass run replaying the cache / 10 %: ratio {replay / 0.10:.3f} "
              f"(want ≤ 1.0) {'PASS' if ok else 'FAIL'}   [{100 * replay:.1f} % of perf samples]")
        if json_out:
            pathlib.Path(json_out).write_text(json.dumps({"lines": LINES, "passes": PASSES, "runs": runs}, indent=1))
        sys.exit(0 if ok else 1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
