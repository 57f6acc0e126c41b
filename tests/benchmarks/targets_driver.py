#!/usr/bin/python3
"""benchmarks/targets.py on hostile inputs: a benchmark that reported an error, a result file of
another shape, a zero rate, and a missing suite. Every target still prints one line, the errored
ones say ERROR with the benchmark's message, no traceback reaches the output, and the exit status
counts the targets that did not pass (issue 36's driver contract)."""
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]


def bench(name, **fields):
    return dict({"name": name, "run_name": name, "run_type": "iteration", "cpu_time": 1.0, "real_time": 1.0,
                 "time_unit": "ms", "items_per_second": 1e6}, **fields)


def run(files):
    with tempfile.TemporaryDirectory() as out:
        for name, content in files.items():
            (pathlib.Path(out) / name).write_text(content if isinstance(content, str) else json.dumps(content))
        done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "targets.py"), out], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def main():
    failures = []

    def check(what, ok):
        if not ok:
            failures.append(what)

    # An errored benchmark (as Google Benchmark writes SkipWithError), a zero rate, and a gfm suite
    # whose iteration diverged: ERROR lines with the messages, no traceback.
    code, out, err = run({
        "bench_references.json": {"benchmarks": [
            bench("BM_NaiveNormal"), bench("BM_FillNormal", items_per_second=4e6),
            bench("BM_FillNormalPortable", error_occurred=True,
                  error_message="the portable build's fill_normal draws another stream")]},
        "bench_gfm.json": {"benchmarks": [
            bench("BM_GfmIterationThreads/1"),
            bench("BM_GfmIterationThreads/2", error_occurred=True, error_message="estimator stopped: diverged"),
            bench("BM_GfmIteration", error_occurred=True, error_message="estimator stopped: diverged")]},
        "bench_online_completion.json": {"benchmarks": [bench("BM_omc_psd/8"), bench("BM_bare_two_row_loop/8", items_per_second=0)]},
        "bench_sources.json": "{ not json",
    })
    lines = [line for line in out.splitlines() if line.startswith("target: ")]
    check("no traceback", "Traceback" not in out + err)
    check("the fill_normal target says ERROR with the benchmark's message",
          any("same source built portable" in l and "ERROR (BM_FillNormalPortable: the portable build's fill_normal draws "
              "another stream)" in l for l in lines))
    check("the gfm step target says ERROR", any("gfm_one_pass step" in l and "ERROR (BM_GfmIteration: estimator stopped" in l
                                                 for l in lines))
    check("the naive-sampler target still passes", any("naive sampler" in l and "PASS" in l for l in lines))
    check("the zero rate and the unreadable file are ERROR lines",
          sum("ERROR (ZeroDivisionError" in l or "ERROR (JSONDecodeError" in l for l in lines) == 2)
    not_passed = sum("PASS" not in l for l in lines)
    check(f"exit status {code} counts the {not_passed} targets that did not pass", code == min(not_passed, 125) and code > 0)

    # Every target prints a line whatever is missing: as many lines as with an empty folder.
    empty_code, empty_out, _ = run({})
    empty_lines = [l for l in empty_out.splitlines() if l.startswith("target: ")]
    check("an empty folder: every target MISSING", all("MISSING" in l for l in empty_lines) and empty_code == len(empty_lines))
    check("the same targets in both runs", len(empty_lines) >= len(lines) - 2)  # a section that fails prints one line

    if failures:
        print("FAILED:\n  " + "\n  ".join(failures) + "\n--- output of the hostile run:\n" + out + err)
        sys.exit(1)
    print(f"targets driver: {len(lines)} lines on hostile inputs, {len(empty_lines)} on none, no traceback")


if __name__ == "__main__":
    main()
