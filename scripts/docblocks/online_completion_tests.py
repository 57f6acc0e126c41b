#!/usr/bin/env python3
"""Prints what the unit tests of the online completion estimators measure (docs/plugins/omc_psd.md;
offline: als_completion.md and sgd_mf.md),
from runs of tests/online_completion/test_outcomes.cpp and test_online_completion.cpp (fixed
seeds), as the tests capture or report it.

usage: online_completion_tests.py floor      the messages of the noise-floor tests: a non-symmetric matrix, a source exhausted in the warm start
       online_completion_tests.py recovery   the error after the warm start and at the end of the budget of the d = 500 recovery test
       online_completion_tests.py offline    the error at the start and at the end of als_completion's and sgd_mf's recovery test
"""
import re

from catch_test import captured, run
from results import fail, print_code, run_subcommand, sig

TESTS = "test_online_completion"


def floor():
    assertions, _ = run(TESTS, "omc_psd on a non-symmetric matrix ends stalled*",
                        "omc_psd / omc_general on a source that runs out inside the warm start*")
    messages = [m for (m,) in captured(assertions, "r.summary.message")]
    if len(messages) < 2:
        fail(f"expected the messages of both tests, captured {len(messages)}")
    print_code("\n".join(dict.fromkeys(messages)))


def recovery():
    assertions, _ = run(TESTS, "omc_psd recovers a rank-3 PSD matrix*")
    infos = [k for a in assertions for k in a.values if "; errors " in k]
    m = re.search(r"; errors (\S+) -> (\S+)$", infos[0]) if infos else None
    if not m:
        fail("the recovery test reported no errors")
    print(f"Relative error {sig(float(m.group(1)))} after the warm start, "
          f"{sig(float(m.group(2)))} at the end of the budget.")


def offline():
    assertions, _ = run(TESTS, "als_completion and sgd_mf recover a planted matrix*")
    # One section per estimator, als_completion first (spectral start), then sgd_mf (random start).
    infos = list(dict.fromkeys(k for a in assertions for k in a.values if "; errors " in k))
    runs = [re.search(r"budget \((\d+)\); errors (\S+) -> (\S+)$", i) for i in infos]
    if len(runs) != 2 or not all(runs):
        fail(f"expected the errors of both sections, got {infos}")
    (sweeps, als_start, als_end), (epochs, sgd_start, sgd_end) = (m.groups() for m in runs)
    print(f"Relative error: als_completion {sig(float(als_start))} after the spectral start, "
          f"{sig(float(als_end))} after {sweeps} sweeps; sgd_mf {sig(float(sgd_start))} after the random start, "
          f"{sig(float(sgd_end))} after {epochs} epochs.")


def main():
    run_subcommand({"floor": floor, "recovery": recovery, "offline": offline})


if __name__ == "__main__":
    main()
