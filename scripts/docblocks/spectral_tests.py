#!/usr/bin/env python3
"""Prints the error distribution the hidden calibration test of the spectral estimator reports
(tests/spectral/test_spectral.cpp, "[.calibration]": 100 fixed seeds per case), for
docs/plugins/spectral.md.

usage: spectral_tests.py calibration
"""
import re
import sys

from catch_test import run
from results import count, fail, sig

LINE = re.compile(r"(.+) n=(\d+): M rel\. error mean (\S+) max (\S+); w rel\. error mean (\S+) max (\S+)")


def main():
    if sys.argv[1:] != ["calibration"]:
        fail("usage: spectral_tests.py calibration")
    _, warnings = run("test_spectral", "[.calibration]")
    print("| problem | n | M: mean | M: max | w: mean | w: max |")
    print("|---|---|---|---|---|---|")
    for w in warnings:
        m = LINE.fullmatch(w)
        if not m:
            fail(f"unexpected calibration line: {w}")
        problem, n, *errors = m.groups()
        print(f"| {problem} | {count(int(n))} | " + " | ".join(sig(float(e), 3) for e in errors) + " |")


if __name__ == "__main__":
    main()
