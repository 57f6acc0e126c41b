#!/usr/bin/env python3
"""Prints the table of docs/studies.md that compares each plugin's declared memory footprint with the
peak its trial reached: benchmarks/memory_estimates.py at full size, run with $RANKONE_BIN.

usage: memory_estimates.py
"""
import os
import subprocess
import sys

from results import ROOT, fail, print_code, rankone


def main():
    if len(sys.argv) != 1:
        fail("usage: memory_estimates.py")
    script = os.path.join(ROOT, "benchmarks", "memory_estimates.py")
    proc = subprocess.run([sys.executable, script, rankone()], capture_output=True, text=True)
    if proc.returncode != 0:  # a ratio outside the accepted band is a finding, not a table
        fail(f"{script} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    print_code("\n".join(line.rstrip() for line in proc.stdout.rstrip("\n").splitlines()))


if __name__ == "__main__":
    main()
