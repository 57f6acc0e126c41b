#!/usr/bin/python3
"""Prints the performance targets of docs/PERFORMANCE.md from the benchmark results of one run.

Usage: benchmarks/targets.py RESULTS_DIR   (benchmarks/run calls it; RESULTS_DIR holds the
Google Benchmark JSON files bench_*.json and bench_memory.json of that run)

Every figure is a ratio of two measurements taken in the same process (or, for memory, by the same
parent process), from CPU time, so that it holds on a loaded machine. Every target prints one line:
its ratio with PASS or FAIL, MISSING (not measured), or ERROR (with the benchmark's own message, or
what could not be computed). Exit status: how many targets failed or could not be measured (at
most 125), 0 when all pass.
"""
import json
import pathlib
import re
import sys
import traceback

# Benchmarks that ran and reported an error (SkipWithError), by name: find() treats them as
# missing, and a target that needs one says ERROR with its message.
ERRORS = {}


def load(results, suite):
    """The suite's benchmarks by name: the median of the repetitions where the suite was repeated
    (benchmarks/run repeats bench_gfm, interleaved at random), else the one run."""
    path = results / f"{suite}.json"
    if not path.exists():
        return {}
    data = json.loads(path.read_text())
    by_name = {}
    for b in data.get("benchmarks", []):
        if b.get("run_type", "iteration") == "iteration":
            name = b.get("run_name", b["name"])
            if b.get("error_occurred"):
                ERRORS[name.split("/min_time")[0].split("/iterations")[0]] = b.get("error_message", "an error")
                continue
            by_name.setdefault(name, b)
    for b in data.get("benchmarks", []):
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median":
            by_name[b["run_name"]] = dict(b, name=b["run_name"])
    return by_name


def cpu_seconds(bench):
    """CPU seconds per benchmark iteration."""
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[bench.get("time_unit", "ns")]
    return bench["cpu_time"] * scale


def real_seconds(bench):
    scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[bench.get("time_unit", "ns")]
    return bench["real_time"] * scale


def items_per_cpu_second(bench):
    """Items per CPU second (Google Benchmark's items_per_second divides by the same CPU time)."""
    return bench["items_per_second"]


def find(suite, prefix):
    for name, bench in suite.items():
        if name.split("/min_time")[0].split("/iterations")[0] == prefix or name.startswith(prefix + "/"):
            return bench
    return None


def cpu_time_target(report, label, bench, reference, bound, names):
    """A target on the CPU-time ratio of two benchmarks of one run, `bench` at most `bound` × `reference`."""
    both = bench and reference
    report.target(label, cpu_seconds(bench) / cpu_seconds(reference) if both else None, bound, False,
                  f"{cpu_seconds(bench) * 1e3:.0f} ms vs {cpu_seconds(reference) * 1e3:.0f} ms CPU" if both else names)


class Report:
    def __init__(self):
        self.failed = 0  # targets that failed or could not be measured

    def target(self, label, ratio, bound, at_least, detail):
        if ratio is None:
            errors = [f"{name}: {ERRORS[name]}" for name in re.findall(r"BM_[\w/.]+", detail) if name in ERRORS]
            print(f"target: {label}: " + (f"ERROR ({'; '.join(errors)})" if errors else f"MISSING ({detail})"))
            self.failed += 1
            return
        ok = ratio >= bound if at_least else ratio <= bound
        relation = "≥" if at_least else "≤"
        print(f"target: {label}: ratio {ratio:.3f} (want {relation} {bound}) {'PASS' if ok else 'FAIL'}   [{detail}]")
        self.failed += not ok

    def error(self, section, exception):
        """A section whose inputs could not be read: one ERROR line instead of a traceback."""
        ours = [f for f in traceback.extract_tb(exception.__traceback__) if f.filename == __file__]
        where = f", at targets.py line {ours[-1].lineno}" if ours else ""
        print(f"target: {section}: ERROR ({type(exception).__name__}: {exception}{where})")
        self.failed += 1

    @staticmethod
    def info(label, text):
        print(f"info:   {label}: {text}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    results = pathlib.Path(sys.argv[1])
    refs = load(results, "bench_references")
    gfm = load(results, "bench_gfm")
    omc = load(results, "bench_online_completion")
    report = Report()

    peak = find(refs, "BM_PeakFma")
    if peak:
        report.info(f"core peak for the instruction set built ({peak.get('label', '')}, register loop)", f"{peak['flops'] / 1e9:.1f} GFLOP/s per core")
    gemm = find(refs, "BM_Gemm")
    triad = find(refs, "BM_StreamTriad")
    if gemm:
        report.info("machine GEMM (Eigen, 2000²)", f"{gemm['flops'] / 1e9:.1f} GFLOP/s per core")
    if triad:
        report.info("machine STREAM triad", f"{triad['bytes_per_second'] / 1e9:.1f} GB/s")

    def section_1():
        # 1. The iteration's four products against the core's FMA peak, and the iteration's step against
        #    the same products on its own batch (its batch copy staged outside the timing).
        iteration, products = find(gfm, "BM_GfmIteration"), find(gfm, "BM_GfmProducts")
        report.target("gfm_one_pass iteration's four products / the core's peak (d=1000, k=10, n=20000)",
                      products["flops"] / peak["flops"] if products and peak else None, 0.8, True,
                      f"{products['flops'] / 1e9:.1f} vs {peak['flops'] / 1e9:.1f} GFLOP/s"
                      if products and peak else "BM_GfmProducts, BM_PeakFma")
        # The step's reference is timed inside BM_GfmIteration, after each step on the same batch: paired in time.
        paired = iteration.get("products_cpu_seconds") if iteration else None
        report.target("gfm_one_pass step / its own four products on its batch, timed after each step (d=1000, k=10, n=20000)",
                      cpu_seconds(iteration) / paired if paired else None, 1.1, False,
                      f"{cpu_seconds(iteration) * 1e3:.0f} ms vs {paired * 1e3:.0f} ms CPU" if paired
                      else "BM_GfmIteration's products_cpu_seconds")

    def section_1b():
        # 1b. The spectral start (Spectra's Lanczos through top_k_symmetric) against Spectra called directly
        #     on the same operator and tolerance; the start also averages w and builds the estimator.
        start, spectra = find(gfm, "BM_GfmStart"), find(gfm, "BM_SpectraStart")
        cpu_time_target(report, "gfm_one_pass spectral start / Spectra on the same operator and tolerance (d=1000, k=10)",
                        start, spectra, 1.1, "BM_GfmStart, BM_SpectraStart")

    def section_2():
        # 2. The whole one-pass run against the generator alone, and the generator against the naive sampler.
        run, generator, naive_design = find(gfm, "BM_OnePassRun/30"), find(gfm, "BM_GeneratorRate"), find(gfm, "BM_NaiveDesign")
        if run and generator:
            report.target("one-pass run throughput / generator alone (synthetic Gaussian stream)",
                          items_per_cpu_second(run) / items_per_cpu_second(generator), 0.5, True,
                          f"{items_per_cpu_second(run):.0f} vs {items_per_cpu_second(generator):.0f} samples per CPU s")
        else:
            report.target("one-pass run throughput / generator alone", None, 0.5, True, "BM_OnePassRun, BM_GeneratorRate")
        prefetched = find(gfm, "BM_OnePassRunPrefetch/30")
        if prefetched and generator:
            # the generator's rate per wall second (its items_per_second divides by CPU time)
            generator_wall = items_per_cpu_second(generator) * cpu_seconds(generator) / real_seconds(generator)
            report.target("one-pass run with prefetch (2 threads, wall clock) / generator alone",
                          prefetched["items_per_second"] / generator_wall, 0.8, True,
                          f"{prefetched['items_per_second']:.0f} vs {generator_wall:.0f} samples per wall s")
        else:
            report.target("one-pass run with prefetch / generator alone", None, 0.8, True,
                          "BM_OnePassRunPrefetch/30, BM_GeneratorRate")
        naive, fill, portable = find(refs, "BM_NaiveNormal"), find(refs, "BM_FillNormal"), find(refs, "BM_FillNormalPortable")
        report.target("normal generator Rng::fill_normal / the same source built portable (x86-64), same stream",
                      items_per_cpu_second(fill) / items_per_cpu_second(portable) if portable and fill else None, 1.4, True,
                      f"{items_per_cpu_second(fill) / 1e6:.0f} M/s vs {items_per_cpu_second(portable) / 1e6:.0f} M/s"
                      if portable and fill else "BM_FillNormal, BM_FillNormalPortable")
        report.target("normal generator Rng::fill_normal / naive sampler (std::normal_distribution + mt19937_64)",
                      items_per_cpu_second(fill) / items_per_cpu_second(naive) if naive and fill else None, 3.0, True,
                      f"{items_per_cpu_second(fill) / 1e6:.0f} M/s vs {items_per_cpu_second(naive) / 1e6:.0f} M/s"
                      if naive and fill else "BM_FillNormal, BM_NaiveNormal")
        if generator and naive_design:
            report.info("synthetic source (designs + responses) vs naive sampler filling the designs alone",
                        f"{items_per_cpu_second(generator) / items_per_cpu_second(naive_design):.2f} × "
                        f"({items_per_cpu_second(generator):.0f} vs {items_per_cpu_second(naive_design):.0f} samples per CPU s)")

    def section_3():
        # 3. omc_psd against a bare loop doing the same arithmetic on the same rows.
        psd, bare = find(omc, "BM_omc_psd/8"), find(omc, "BM_bare_two_row_loop/8")
        report.target("omc_psd updates / bare two-row loop (k=8, d=10000)",
                      items_per_cpu_second(psd) / items_per_cpu_second(bare) if psd and bare else None, 0.6, True,
                      f"{items_per_cpu_second(psd) / 1e6:.1f} M/s vs {items_per_cpu_second(bare) / 1e6:.1f} M/s"
                      if psd and bare else "BM_omc_psd/8, BM_bare_two_row_loop/8")

    def section_4():
        # 4. Peak memory against the stream's length.
        memory_path = results / "bench_memory.json"
        if memory_path.exists():
            runs = {r["samples"]: r["peak_rss_kib"] for r in json.loads(memory_path.read_text())["runs"]}
            short, long = runs.get(100000), runs.get(10000000)
            report.target("peak RSS, 10^7 / 10^5 samples (one-pass run, d=1000)",
                          long / short if short and long else None, 2.0, False,
                          f"{long / 1024:.0f} MiB vs {short / 1024:.0f} MiB" if short and long else "runs missing")
            run = next((r for r in json.loads(memory_path.read_text())["runs"] if r["samples"] == 10000000), None)
            cpu = run["user_seconds"] + run["system_seconds"] if run and "system_seconds" in run else 0
            report.target("kernel CPU (page faults) / the run's CPU (one-pass run, 10^7 samples, d=1000)",
                          run["system_seconds"] / cpu if cpu > 0 else None, 0.02, False,
                          f"{run['system_seconds']:.2f} s of {cpu:.2f} s, {run['page_faults']} page faults"
                          if cpu > 0 else "bench_memory.json without system_seconds")
        else:
            report.target("peak RSS, 10^7 / 10^5 samples", None, 2.0, False, "bench_memory.json")

    def section_5():
        # 5. Threads: the iteration on two threads (information: the speed-up depends on the load).
        one, two = find(gfm, "BM_GfmIterationThreads/1"), find(gfm, "BM_GfmIterationThreads/2")
        if one and two:
            report.info("gfm iteration speed-up, 2 threads vs 1 (wall time)",
                        f"{real_seconds(one) / real_seconds(two):.2f} × ({real_seconds(one) * 1e3:.0f} ms → "
                        f"{real_seconds(two) * 1e3:.0f} ms)")

    def section_5b():
        # 5b. A whole `rankone run` of One-Pass gFM against numpy doing the same on one thread.
        numpy_path = results / "numpy_gfm.json"
        if numpy_path.exists():
            data = json.loads(numpy_path.read_text())
            ours, theirs = sorted(data["rankone_cpu_seconds"]), sorted(data["numpy_cpu_seconds"])
            ours_m, theirs_m = ours[len(ours) // 2], theirs[len(theirs) // 2]
            report.target("whole rankone run of One-Pass gFM (d=100, k=3, n=20kd, T=15): numpy CPU / rankone CPU",
                          theirs_m / ours_m, 10.0, True, f"{ours_m:.3f} s vs {theirs_m:.3f} s CPU, medians")
        else:
            report.target("whole rankone run of One-Pass gFM vs numpy", None, 10.0, True, "numpy_gfm.json")

    def section_5c():
        # 5c. Whole `rankone run`s of the part-1 baselines against their numpy references (numpy_baselines.py).
        baselines_path = results / "numpy_baselines.json"
        measured = json.loads(baselines_path.read_text()) if baselines_path.exists() else {}

        def whole_run(name, label):
            if name not in measured:
                report.target(label, None, 5.0, True, "numpy_baselines.json")
                return
            ours, theirs = sorted(measured[name]["rankone_cpu_seconds"]), sorted(measured[name]["numpy_cpu_seconds"])
            ours_m, theirs_m = ours[len(ours) // 2], theirs[len(theirs) // 2]
            report.target(label, theirs_m / ours_m, 5.0, True, f"{ours_m:.3f} s vs {theirs_m:.3f} s CPU, medians")

        for name in ("factored_gd", "svp", "altmin_sensing", "nuclear_norm", "fm_mcmc", "polynomial_network"):
            whole_run(name, f"whole rankone run of {name} (d = 200, k = 5, n = 20000): numpy reference CPU / rankone CPU")
        for name in ("wirtinger_flow", "amplitude_flow_taf", "amplitude_flow_raf", "gerchberg_saxton"):
            whole_run(name, f"whole rankone run of {name} (phase retrieval, d = 200, m = 1200): numpy reference CPU / "
                            "rankone CPU")

    def section_6():
        # 6. Trial isolation against in-process runs of the same study, pair by pair.
        isolation_path = results / "isolation_overhead.json"
        if isolation_path.exists():
            data = json.loads(isolation_path.read_text())
            iso, inproc = data["runs"]["isolated"], data["runs"]["in_process"]
            wall_ratios = sorted(a["wall_seconds"] / b["wall_seconds"] for a, b in zip(iso, inproc))
            per_trial_ms = sorted((a["cpu_seconds"] - b["cpu_seconds"]) / data["trials"] * 1e3 for a, b in zip(iso, inproc))
            median = lambda xs: xs[len(xs) // 2] if len(xs) % 2 else 0.5 * (xs[len(xs) // 2 - 1] + xs[len(xs) // 2])
            name = pathlib.Path(data["experiment"]).name
            report.target(f"study wall time, trials isolated / in-process ({name}, --jobs {data['jobs']})",
                          median(wall_ratios), 1.05, False,
                          f"median of {len(wall_ratios)} pairs, range {wall_ratios[0]:.3f}-{wall_ratios[-1]:.3f}")
            report.target("isolation CPU overhead per trial / 20 ms", median(per_trial_ms) / 20.0, 1.0, False,
                          f"{median(per_trial_ms):.2f} ms CPU per trial over {data['trials']} trials")
        else:
            report.target("study wall time, trials isolated / in-process", None, 1.05, False, "isolation_overhead.json")

    def section_6a():
        # 6a. The Python package: a 0.1 s fit from scikit-learn against the same fit's trial in the core.
        path = results / "python_overhead.json"
        if path.exists():
            data = json.loads(path.read_text())
            overheads = sorted((r["python_seconds"] - r["core_seconds"]) / r["core_seconds"] for r in data["runs"])
            core = sorted(r["core_seconds"] for r in data["runs"])
            report.target("Python overhead of a fit / 2 % (rankone.sklearn.GfmOnePass().fit against its trial in the core)",
                          overheads[len(overheads) // 2] / 0.02, 1.0, False,
                          f"median of {len(overheads)} fits of {core[len(core) // 2]:.3f} s: {data['fit']}")
        else:
            report.target("Python overhead of a fit / 2 %", None, 1.0, False, "python_overhead.json")

    def section_6b():
        # 6b. The fixed-sample sensing baselines: one iteration against the products (and, for svp, the
        #     SVD) it cannot avoid, timed after each step on the same training set and model.
        # 6c. The FM baselines: one iteration of the registered estimator (the shared policy, fm_mcmc's
        #     random numbers and posterior mean) against its solver's step alone on the same training set.
        for suite, counter, problem, cases in (
                ("bench_sensing_baselines", "products_cpu_seconds", "asymmetric rank-one, d = 200, k = 5, n = 20000",
                 (("BM_ScaledGdIteration", "factored_gd (ScaledGD) iteration / its forward and two adjoint products"),
                  ("BM_VanillaGdIteration", "factored_gd (vanilla GD) iteration / its forward and two adjoint products"),
                  ("BM_SvpIteration", "svp iteration / its forward product, dense adjoint and projection SVD"),
                  ("BM_AltMinIteration", "altmin_sensing iteration / its conjugate-gradient steps' forward and adjoint products"),
                  ("BM_NuclearNormIteration", "nuclear_norm (accelerated) iteration / its dense adjoint and each trial's SVD and forward product"))),
                ("bench_sensing_baselines", "products_cpu_seconds", "Gaussian ensemble, d = 50, k = 2, n = 2000",
                 (("BM_ScaledGdEnsembleIteration", "factored_gd (ScaledGD) iteration / its forward and two adjoint products"),
                  ("BM_SvpEnsembleIteration", "svp iteration / its forward product, dense adjoint and projection SVD"),
                  ("BM_AltMinEnsembleIteration", "altmin_sensing iteration / its conjugate-gradient steps' forward and adjoint products"),
                  ("BM_NuclearNormEnsembleIteration", "nuclear_norm (accelerated) iteration / its dense adjoint and each trial's SVD and forward product"))),
                ("bench_sensing_baselines", "products_cpu_seconds", "phase retrieval, d = 200, m = 20000",
                 (("BM_WirtingerFlowIteration", "wirtinger_flow (wf) iteration / its forward and adjoint products"),
                  ("BM_TruncatedWirtingerFlowIteration", "wirtinger_flow (twf) iteration / its forward and adjoint products"),
                  ("BM_TruncatedAmplitudeFlowIteration", "amplitude_flow (taf) iteration / its forward and adjoint products"),
                  ("BM_ReweightedAmplitudeFlowIteration", "amplitude_flow (raf) iteration / its forward and adjoint products"))),
                ("bench_fm_baselines", "solver_cpu_seconds", "x'Mx + w'x, d = 100, k = 5, n = 30000",
                 (("BM_FmMcmcIteration", "fm_mcmc iteration / its Gibbs sweep"),
                  ("BM_PolynomialNetworkIteration", "polynomial_network iteration / its coordinate-descent epoch")))):
            suite_results = load(results, suite)
            for bench_name, what in cases:
                it = find(suite_results, bench_name)
                paired = it.get(counter) if it else None
                report.target(f"{what} ({problem})", cpu_seconds(it) / paired if paired else None, 1.2, False,
                              f"{cpu_seconds(it) * 1e3:.1f} ms vs {paired * 1e3:.1f} ms CPU" if paired
                              else f"{bench_name}'s {counter}")

    def section_7():
        # 7. Read once: a pass replayed from the parsed-record cache against the text parse of the same file.
        sources = load(results, "bench_sources")
        for fmt in ("libsvm", "csv", "ratings"):
            reread, parse = find(sources, f"reread/{fmt}"), find(sources, f"parse/{fmt}")
            report.target(f"file source {fmt}: parse CPU time / cached binary re-read CPU time (40 MB file)",
                          reread["MB/s"] / parse["MB/s"] if reread and parse else None, 10.0, True,
                          f"{reread['MB/s']:.0f} vs {parse['MB/s']:.0f} MB of text per CPU s"
                          if reread and parse else f"bench_sources reread/{fmt}, parse/{fmt}")

    for section, number in ((section_1, "1"), (section_1b, "1b"), (section_2, "2"), (section_3, "3"), (section_4, "4"), (section_5, "5"), (section_5b, "5b"), (section_5c, "5c"), (section_6, "6"), (section_6a, "6a"), (section_6b, "6b"), (section_7, "7")):
        try:
            section()
        except Exception as e:  # a result file of another shape: the line says so, the others still print
            report.error(f"section {number} of the targets", e)
    sys.exit(min(report.failed, 125))


if __name__ == "__main__":
    main()
