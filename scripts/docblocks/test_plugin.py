#!/usr/bin/env python3
"""Prints lines of `rankone test-plugin` (the conformance checks) for docs/writing-plugins.md: for
each pair LIB PREFIX, the first line that `rankone test-plugin BUILD/LIB` prints starting with
PREFIX, in a code block. BUILD is the build folder of $RANKONE_BIN (its parent's parent), where the
built-in plugins and the test suite's non-conforming ones are.

usage: test_plugin.py LIB PREFIX [LIB PREFIX ...]
  e.g. test_plugin.py tests/nonconforming/libnonconforming_plugins.so "FAIL not_adjoint: adjoint identity"
"""
import os
import subprocess
import sys

from results import fail, print_code, rankone


def main():
    pairs = sys.argv[1:]
    if not pairs or len(pairs) % 2:
        fail("usage: test_plugin.py LIB PREFIX [LIB PREFIX ...]")
    build = os.path.dirname(os.path.dirname(rankone()))
    lines = []
    for lib, prefix in zip(pairs[::2], pairs[1::2]):
        path = os.path.join(build, lib)
        if not os.path.exists(path):
            fail(f"no plugin library {path} (the test suite's libraries need a build with tests)")
        # exit 1 means some check failed, which is what a FAIL line shows
        proc = subprocess.run([rankone(), "test-plugin", path], capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            fail(f"rankone test-plugin {path} exited {proc.returncode}:\n{proc.stderr}")
        found = [l for l in proc.stdout.splitlines() if l.startswith(prefix)]
        if not found:
            fail(f"rankone test-plugin {path} printed no line starting with {prefix!r}")
        lines.append(found[0])
    print_code("\n".join(lines))


if __name__ == "__main__":
    main()
