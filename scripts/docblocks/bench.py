#!/usr/bin/env python3
"""Runs a Google Benchmark suite of the build and prints a performance page's measured block.

usage: bench.py one-bit     docs/one-bit-performance.md: an iteration of one_bit_mll against its dense products
       bench.py gfm         docs/gfm-performance.md: a gFM iteration against its products, the start, whole runs
       bench.py omc         docs/online-completion-performance.md: omc_psd against the bare loop, omc_general, sgd_mf
       bench.py omc-threads docs/online-completion-performance.md: sgd_mf and als_completion on 1 and 2 threads (wall time)
       bench.py omc-memory  docs/online-completion-performance.md: peak memory of sgd_mf and als_completion against
                            LIBMF's (benchmarks/completion_memory.py; $RANKONE_LIBMF: LIBMF built outside the project)
       bench.py sources     docs/file-sources-performance.md: read throughput and peak memory per file format
       bench.py read-once   docs/file-sources-performance.md: the parsed-record cache's re-read against the
                            text parse (bench_sources), and a 31-pass run's parsing share under perf
                            (benchmarks/read_once_profile.py)
       bench.py performance docs/PERFORMANCE.md: benchmarks/run (every suite, the memory probe, trial
                            isolation), its targets and the machine's reference rates

The suites are beside the rankone binary ($RANKONE_BIN, default build/bin/rankone). Every figure
is CPU time (the machines are shared: a ratio of two CPU times of one run holds under load), and
the block ends with the machine and its load before and after the run.
"""
import json
import os
import subprocess
import tempfile

from results import ROOT, count, fail, machine_now, print_code, rankone, run_subcommand


def load():
    return os.getloadavg()[0]


class Suite:
    """One run of a benchmark binary: its results by name (aggregate means when repeated)."""

    def __init__(self, name, *args):
        binary = os.path.join(os.path.dirname(rankone()), name)
        if not os.path.exists(binary):
            fail(f"{binary} is not built (cmake --build build --target {name})")
        self.load_before = load()
        out = subprocess.run([binary, "--benchmark_format=json", *args], capture_output=True, text=True)
        if out.returncode != 0:
            fail(f"{name} exited {out.returncode}: {out.stderr.strip()[-400:]}")
        self.load_after = load()
        self.by_name = {}
        for b in json.loads(out.stdout)["benchmarks"]:
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "mean":
                continue
            self.by_name[b.get("run_name", b["name"])] = b
        self.text = out.stdout

    def get(self, prefix):
        for name, b in self.by_name.items():
            if name == prefix or name.startswith(prefix + "/"):
                return b
        fail(f"no benchmark {prefix} in the run (have: {', '.join(self.by_name)})")

    def cpu(self, prefix):
        """CPU seconds per iteration."""
        b = self.get(prefix)
        return b["cpu_time"] * {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b.get("time_unit", "ns")]

    def rate(self, prefix):
        return self.get(prefix)["items_per_second"]

    def where(self):
        return f"Measured on {machine_now()}, load {self.load_before:.1f} → {self.load_after:.1f}."


def ms(seconds):
    return f"{seconds * 1e3:.0f} ms"


def si(x):
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.3g}"


def one_bit():
    s = Suite("bench_one_bit", "--benchmark_repetitions=3", "--benchmark_report_aggregates_only=true")
    iteration, copy = s.cpu("BM_OneBitIteration"), s.cpu("BM_BatchCopy")
    project, accumulate = s.cpu("BM_DenseProjectTransposed"), s.cpu("BM_DenseAccumulate")
    bound = 3 * project + 2 * accumulate
    print("CPU time, mean of 3 repetitions:")
    print()
    print("| benchmark | CPU time |")
    print("|---|---|")
    print(f"| `BM_OneBitIteration` (one full iteration, incl. batch copy) | {ms(iteration)} |")
    print(f"| `BM_BatchCopy` (the replay's batch copy, measured alone) | {ms(copy)} |")
    print(f"| `BM_DenseProjectTransposed` (`X'P`, 100 000 × 500 × 6) | {ms(project)} |")
    print(f"| `BM_DenseAccumulate` (`X G`, 500 × 100 000 × 6) | {ms(accumulate)} |")
    print(f"| → lower bound 3 × `X'P` + 2 × `X G` | {ms(bound)} |")
    print(f"| `BM_SourceDraw` (100 000 Gaussian instances + labels) | {ms(s.cpu('BM_SourceDraw'))} |")
    print()
    print(f"One iteration costs **{iteration / bound:.2f} ×** the five unavoidable dense products with the replay's "
          f"batch copy and {(iteration - copy) / bound:.2f} × without it (the copy measured alone subtracted), and "
          f"{iteration / s.cpu('BM_SourceDraw'):.2f} × drawing its batch. The copy is a fresh 400 MB allocation each "
          f"time, whose page faults make its cost vary between runs, so the two "
          f"ratios bracket the iteration's own. {s.where()}")


def gfm():
    # Three repetitions in random order, their means: the ratios compare neighbours of one run.
    s = Suite("bench_gfm", "--benchmark_repetitions=3", "--benchmark_enable_random_interleaving=true",
              "--benchmark_report_aggregates_only=true")
    iteration, products, eigen = s.cpu("BM_GfmIteration"), s.cpu("BM_GfmProducts"), s.cpu("BM_DenseProducts")
    paired = s.get("BM_GfmIteration")["products_cpu_seconds"]  # the step's reference, same batch and minute
    generator = s.cpu("BM_GeneratorRate")
    gflops = lambda name: f"{s.get(name)['flops'] / 1e9:.1f} GFLOP/s"
    rows = [
        ("one gFM iteration (batch in memory)", ms(iteration)),
        ("its four products on its batch, timed after each step (`products_cpu_seconds`)", ms(paired)),
        ("ratio", f"**{iteration / paired:.2f}**"),
        ("the four products on a batch of their own (`BM_GfmProducts`)", f"{ms(products)} ({gflops('BM_GfmProducts')})"),
        ("the same products with Eigen, five separate (`BM_DenseProducts`)", f"{ms(eigen)} ({gflops('BM_DenseProducts')})"),
        ("spectral start (batch in memory)", f"{s.cpu('BM_GfmStart'):.2f} s"),
        ("Spectra called directly on the start's operator", f"{s.cpu('BM_SpectraStart'):.2f} s"),
        ("data generator alone (20 000 × d = 1000)", ms(generator)),
        ("naive sampler, designs only", ms(s.cpu("BM_NaiveDesign"))),
    ]
    for t in (5, 30):
        run = s.get(f"BM_OnePassRun/{t}")
        samples = (t + 1) * 20000
        rows.append((f"whole run, T = {t} ({count(samples)} samples)",
                     f"{s.cpu(f'BM_OnePassRun/{t}'):.1f} s — {si(run['items_per_second'])} samples / CPU s "
                     f"({run['items_per_second'] / s.rate('BM_GeneratorRate'):.2f} of the generator)"))
    print("| benchmark | CPU time |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")
    print()
    print(s.where() + " The raw output:")
    print()
    print_code("\n".join(f"{name:<60} real {b['real_time']:>10.0f} {b['time_unit']}  cpu {b['cpu_time']:>10.0f} "
                         f"{b['time_unit']}  iterations {b['iterations']}" for name, b in s.by_name.items()))


def omc():
    s = Suite("bench_online_completion", "--benchmark_min_time=0.5")
    ks = sorted({int(n.split("/")[1]) for n in s.by_name if n.startswith("BM_omc_psd/")})
    print("Observations per CPU second (`sgd_mf`: entries per CPU second of an epoch):")
    print()
    print("| k | `omc_psd` | bare loop | ratio | `omc_general` | `sgd_mf` |")
    print("|---|---|---|---|---|---|")
    for k in ks:
        psd, bare = s.rate(f"BM_omc_psd/{k}"), s.rate(f"BM_bare_two_row_loop/{k}")
        general = si(s.rate(f"BM_omc_general/{k}")) if f"BM_omc_general/{k}" in s.by_name else ""
        sgd = si(s.rate(f"BM_sgd_mf_epoch/{k}")) if f"BM_sgd_mf_epoch/{k}" in s.by_name else ""
        ratio = f"{psd / bare:.2f}"
        print(f"| {k} | {si(psd)} | {si(bare)} | {'**' + ratio + '**' if k == 8 else ratio} | {general} | {sgd} |")
    print()
    print(s.where())


def omc_threads():
    s = Suite("bench_online_completion", "--benchmark_filter=_threads/", "--benchmark_min_time=0.5",
              "--benchmark_repetitions=3")
    print("One pass over 200 000 entries of a 1000 × 1000 matrix, rank 10 (`sgd_mf`: 8 × 8 blocks), wall time,"
          " mean of 3 runs:")
    print()
    print("| estimator | 1 thread | 2 threads | speed-up |")
    print("|---|---:|---:|---:|")
    for name in ("sgd_mf", "als_completion"):
        one, two = (s.get(f"BM_{name}_threads/{t}")["real_time"] for t in (1, 2))
        print(f"| `{name}` | {one:.3g} ms | {two:.3g} ms | {one / two:.2f} × |")
    print()
    print(s.where())


def omc_memory():
    libmf = os.environ.get("RANKONE_LIBMF")
    if not libmf:
        fail("set RANKONE_LIBMF to a folder holding LIBMF's mf-train and mf-predict, built outside the project "
             "(docs/online-completion-performance.md says which commit and how)")
    before = load()
    out = subprocess.run([os.path.join(ROOT, "benchmarks", "completion_memory.py"), rankone(), "--libmf", libmf],
                         capture_output=True, text=True)
    if out.returncode not in (0, 1):
        fail(f"completion_memory.py exited {out.returncode}: {out.stderr.strip()[-400:]}")
    print_code(out.stdout.strip())
    print()
    print(f"Measured on {machine_now()}, load {before:.1f} → {load():.1f}.")


FORMATS = [("libsvm", "libsvm (sparse, 40 nnz/line)"), ("csv", "csv (51 dense columns)"), ("idx", "idx raw (u8, 784/record)"),
           ("idx_gz", "idx gzip"), ("ratings", "ratings (remapped ids)"), ("image", "image (PNG, 20 Mpixels)")]


def sources():
    s = Suite("bench_sources")
    print("Read throughput, MB of the file on disk per CPU second of the reading thread:")
    print()
    print("| format | reference MB/s | parse MB/s | parse ÷ reference | source MB/s | records/s (parse) |")
    print("|---|---:|---:|---:|---:|---:|")
    for key, title in FORMATS:
        ref, parse, source = s.get(f"reference/{key}"), s.get(f"parse/{key}"), s.get(f"source/{key}")
        unit = " pixels" if key == "image" else ""
        print(f"| {title} | {count(ref['MB/s'])} | {parse['MB/s']:.3g} | {parse['MB/s'] / ref['MB/s']:.3f} | "
              f"{source['MB/s']:.3g} | {si(parse['records/s'])}{unit} |")
    print()
    print("Peak resident memory of a child process streaming one pass in batches of 256 records:")
    print()
    print("| format | file MB | batch MB | file ÷ batch | baseline MB | peak MB | growth MB |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for key, _ in FORMATS:
        if not any(n.startswith(f"peak/{key}/") for n in s.by_name):
            continue
        b = s.get(f"peak/{key}")
        print(f"| {key} | {b['file_MB']:.1f} | {b['batch_MB']:.3g} | {count(b['file/batch'])} | {b['baseline_MB']:.1f} | "
              f"{b['peak_MB']:.1f} | {b['growth_MB']:.1f} |")
    print()
    print(s.where())


def performance():
    import tempfile
    build = os.path.dirname(os.path.dirname(rankone()))
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks", "run")],
                              env=dict(os.environ, RANKONE_BUILD_DIR=build, RANKONE_BENCH_OUT=out),
                              capture_output=True, text=True)
        if not 0 <= done.returncode <= 125:  # N > 0: N targets did not pass, which the block reports
            fail(f"benchmarks/run exited {done.returncode}: {done.stderr.strip()[-400:]}")
        targets = done.stdout.split("== targets\n", 1)[1].strip()
        loads = [float(line.rsplit("load average:", 1)[1].split(",")[0]) for line in open(os.path.join(out, "uptime.txt"))
                 if "load average:" in line]
        references = json.load(open(os.path.join(out, "bench_references.json")))["benchmarks"]
    print_code(targets)
    print()
    print(f"{machine_now()}; load average {min(loads):.1f}–{max(loads):.1f} during the run "
          "(`uptime` before and after every suite).")
    print()
    rates = {b["name"].split("/min_time")[0]: b for b in references}
    print("Reference rates of the same run, per CPU second:")
    print()
    print("| benchmark | rate |")
    print("|---|---|")
    if "BM_PeakFma" in rates:
        print(f"| `BM_PeakFma` (the core's peak for the instruction set built: chains in registers, "
              f"{rates['BM_PeakFma'].get('label', '')}) | "
              f"{rates['BM_PeakFma']['flops'] / 1e9:.1f} GFLOP/s |")
    print(f"| `BM_Gemm/2000` (Eigen, 2000² × 2000²) | {rates['BM_Gemm/2000']['flops'] / 1e9:.1f} GFLOP/s |")
    print(f"| `BM_StreamTriad` (3 × 64 MiB) | {rates['BM_StreamTriad']['bytes_per_second'] / 1e9:.1f} GB/s |")
    print(f"| `BM_NaiveNormal` (`std::normal_distribution`, `mt19937_64`) | {si(rates['BM_NaiveNormal']['items_per_second'])} normals/s |")
    print(f"| `BM_FillNormal` (`Rng::fill_normal`) | {si(rates['BM_FillNormal']['items_per_second'])} normals/s |")
    portable = rates.get("BM_FillNormalPortable", {})
    print(f"| `BM_FillNormalPortable` (the same source built for x86-64) | "
          + (f"{si(portable['items_per_second'])} normals/s |" if "items_per_second" in portable
             else f"not measured: {portable.get('error_message', 'absent')} |"))
    for name in ("gaussian", "bernoulli", "uniform", "exponential", "one_hot"):
        b = rates[f"sampler_rate/{name}"]
        unit = "indices/s" if name == "one_hot" else "coordinates/s"
        print(f"| sampler `{name}`, 2000 designs of d = 1000 | {si(b['items_per_second'])} {unit} |")
    for name, what in (("BM_OperatorForwardDense", "`symmetric_rank_one` forward, dense, d = 1000, k = 10"),
                       ("BM_OperatorAdjointDense", "`symmetric_rank_one` adjoint_times, dense, k = 10"),
                       ("BM_OperatorForwardOneHot", "`entry` forward, one-hot, d = 10 000, k = 10"),
                       ("BM_OperatorAdjointOneHot", "`entry` adjoint_times, one-hot, k = 10")):
        print(f"| {what} | {si(rates[name]['items_per_second'])} per s |")


def read_once():
    s = Suite("bench_sources", "--benchmark_filter=^(parse|reread)/(libsvm|csv|ratings)/")
    print("A pass replayed from the parsed-record cache against the text parse of the same 40 MB file "
          "(MB of text per CPU second):")
    print()
    print("| format | parse MB/s | re-read MB/s | re-read ÷ parse (target ≥ 10) | cache file MB | records/s (re-read) |")
    print("|---|---:|---:|---:|---:|---:|")
    for key, title in FORMATS:
        if key not in ("libsvm", "csv", "ratings"):
            continue
        parse, reread = s.get(f"parse/{key}"), s.get(f"reread/{key}")
        print(f"| {title} | {parse['MB/s']:.3g} | {count(reread['MB/s'])} | **{reread['MB/s'] / parse['MB/s']:.1f}** | "
              f"{reread['cache_MB']:.1f} | {si(reread['records/s'])} |")
    print()
    print(s.where())
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks", "read_once_profile.py")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "profile.json")
        before = load()
        done = subprocess.run([script, rankone(), "--json", out], capture_output=True, text=True)
        if not os.path.exists(out):
            fail(f"read_once_profile.py exited {done.returncode}: {done.stderr.strip()[-400:]}")
        profile = json.load(open(out))
        after = load()
    print()
    print(f"A study of one `gfm_one_pass` trial, {profile['passes']} passes over {count(profile['lines'])} libsvm lines "
          f"(d = 50), under `perf record` (share of the samples of the study's processes):")
    print()
    print("| run | text parsing | the cache (hash, write, replay) | wall s |")
    print("|---|---:|---:|---:|")
    for name, r in profile["runs"].items():
        print(f"| {name} | {100 * r['parsing']:.1f} % | {100 * r['cache']:.1f} % | {r['wall_seconds']:.1f} |")
    print()
    print(f"Measured on {machine_now()}, load {before:.1f} → {after:.1f}.")


if __name__ == "__main__":
    run_subcommand({"one-bit": one_bit, "gfm": gfm, "omc": omc, "omc-threads": omc_threads, "omc-memory": omc_memory,
                    "sources": sources, "read-once": read_once, "performance": performance})
