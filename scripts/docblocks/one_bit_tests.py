#!/usr/bin/env python3
"""Prints what the unit tests of the one-bit multi-label estimators report (docs/plugins/one_bit_mll.md,
multilabel_baselines.md), from runs of tests/one_bit_multilabel/test_one_bit_mll.cpp and
test_baselines.cpp (fixed seeds), as their warnings give it.

usage: one_bit_tests.py recovery   one_bit_mll's recovery error and average AUC after the start and each iteration
       one_bit_tests.py leml       leml's average AUC on the one_bit_mll test problem
"""
import re

from catch_test import run
from results import fail, run_subcommand, sig

TESTS = "test_one_bit_multilabel"


def warning(spec, pattern):
    """The groups of `pattern` in the test's one matching warning."""
    _, warnings = run(TESTS, spec)
    found = [m for m in (re.fullmatch(pattern, w) for w in warnings) if m]
    if len(found) != 1:
        fail(f"{TESTS} {spec}: expected one warning matching {pattern!r}, got {warnings}")
    return found[0].groups()


def recovery():
    errors, aucs = (text.split() for text in warning("one_bit_mll recovers*", r"one_bit_mll recovery errors (.*); AUCs (.*)"))
    print(f"- Recovery error `‖W − W*‖₂` after the start and iterations 1–{len(errors) - 1}: "
          + ", ".join(sig(float(e), 3) for e in errors) + ".")
    print("- Average AUC: " + ", ".join(sig(float(a), 4) for a in aucs) + ".")


def leml():
    (auc,) = warning("leml reaches*", r"leml test AUC (\S+)")
    print(f"Measured average AUC: {sig(float(auc), 4)}.")


def main():
    run_subcommand({"recovery": recovery, "leml": leml})


if __name__ == "__main__":
    main()
