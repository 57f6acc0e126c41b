#!/usr/bin/env python3
"""Prints what the unit tests of gfm_one_pass measure (docs/plugins/gfm_one_pass.md), from a run of
tests/gfm_one_pass/test_gfm_one_pass.cpp (fixed seeds), as the tests capture or report it.

usage: gfm_one_pass_tests.py divergence    the message of the test's diverging run (n = 150, d = 100, k = 3)
       gfm_one_pass_tests.py noise-floor   the error floors at the test's two noise levels, and their ratio
       gfm_one_pass_tests.py calibration   worst final error and rate over the hidden calibration test's seeds
"""
import re

from catch_test import captured, run
from results import fail, print_code, run_subcommand, sig

TESTS = "test_gfm_one_pass"


def divergence():
    assertions, _ = run(TESTS, "gfm_one_pass: far below the sample complexity*")
    (message,), = captured(assertions, "trace.summary.message")
    print_code(message)


def noise_floor():
    assertions, _ = run(TESTS, "gfm_one_pass: the error floor scales with the noise level")
    (low, high), = captured(assertions, "low", "high")
    print(f"Floors {sig(low, 3)} and {sig(high, 3)}, ratio {high / low:.2f}.")


def calibration():
    _, warnings = run(TESTS, "[.calibration]")
    print("| case | worst final error | worst ratio of successive errors |")
    print("|---|---|---|")
    for w in warnings:
        m = re.fullmatch(r"(.+): worst final error (\S+), worst ratio of successive errors (\S+)", w)
        if not m:
            fail(f"unexpected calibration line: {w}")
        print(f"| {m.group(1)} | {sig(float(m.group(2)))} | {sig(float(m.group(3)))} |")


def main():
    run_subcommand({"divergence": divergence, "noise-floor": noise_floor, "calibration": calibration})


if __name__ == "__main__":
    main()
