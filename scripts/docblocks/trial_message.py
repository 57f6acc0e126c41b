#!/usr/bin/env python3
"""Prints the end message of one stored trial, as a code block: the trial of the given label and
repetition whose sweep coordinates have the given values.

usage: trial_message.py RESULTS_DIR LABEL REPETITION [PATH=VALUE ...]    (VALUE as JSON, or a bare string)
"""
import sys

from results import fail, print_code, select, trials, value


def main():
    if len(sys.argv) < 4 or not all("=" in a for a in sys.argv[4:]):
        fail("usage: trial_message.py RESULTS_DIR LABEL REPETITION [PATH=VALUE ...]")
    folder, label, repetition = sys.argv[1:4]
    where = {path: value(v) for path, v in (a.split("=", 1) for a in sys.argv[4:])}
    found = [t for t in select(trials(folder), **where) if t["label"] == label and t["repetition"] == repetition]
    if len(found) != 1:
        fail(f"{folder}: {len(found)} trials labelled {label}, repetition {repetition}, {where} (expected one)")
    print_code(found[0]["message"])


if __name__ == "__main__":
    main()
