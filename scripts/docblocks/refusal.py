#!/usr/bin/env python3
"""Prints a command of rankone that refuses its input (exit 2) and the error it prints, as a code
block, for docs/studies.md: `$ rankone ARGS` and the message, wrapped at 100 columns (its ellipsis
as ...). The command runs from the repository; paths inside it are printed relative to the
repository. `run` and `plan`
write into a scratch folder (--out), which the printed command leaves out.

usage: refusal.py ARGS...
  e.g. refusal.py validate experiments/tutorial/refused/bomb.json --max-memory 1024
"""
import re
import subprocess
import sys
import tempfile
import textwrap

from results import ROOT, fail, rankone

WIDTH = 100
GLUE = "\ue000"  # stands for a space the wrapping must not break: inside 1 000 000, before a unit


def main():
    args = sys.argv[1:]
    if not args:
        fail("usage: refusal.py ARGS...")
    with tempfile.TemporaryDirectory() as scratch:
        out = ["--out", scratch] if args[0] in ("run", "plan") and "--out" not in args else []
        proc = subprocess.run([rankone(), *args, *out], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 2:
        fail(f"rankone {' '.join(args)} exited {proc.returncode}, not 2 (bad input):\n{proc.stdout[-2000:]}{proc.stderr}")
    # regenerate-docs reserves … for cells without results: the message's own ellipsis becomes ...
    message = proc.stderr.strip().replace(ROOT + "/", "").replace("…", "...")
    print("```")
    print("$ rankone " + " ".join(args))
    for line in message.splitlines():
        line = re.sub(r"(?<=\d) (?=\d{3}\b|[KMGT]iB\b|instances\b)", GLUE, line)
        wrapped = textwrap.wrap(line, WIDTH, break_long_words=False, break_on_hyphens=False)
        print("\n".join(wrapped).replace(GLUE, " "))
    print("```")


if __name__ == "__main__":
    main()
