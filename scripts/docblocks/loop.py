#!/usr/bin/env python3
"""The contributor's loop, measured (README block `loop`): a fresh clone of this checkout's HEAD in a
scratch folder, then the README's two commands there, `scripts/quickstart` and `scripts/test`, each
timed as a whole (wall clock, and the CPU time of all its processes), with the build's own share and
its compiler warnings as `scripts/build` prints them. Not compared by --check: it measures the
machine at hand (about 15 minutes on 2 cores).

usage: loop.py [--keep]    --keep: leave the scratch clone (its path is printed on stderr)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

from results import ROOT, fail, machine_now

BUILD = re.compile(r"^build: ok in (\d+) s \(CPU (\d+) s\), (\d+) compiler warnings", re.M)
SETUP = re.compile(r"^setup: (all dependencies present|installed (\d+) packages)", re.M)


def minutes(seconds):
    seconds = int(round(seconds))
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def timed(command, cwd):
    """Runs COMMAND in CWD under /usr/bin/time: (wall, cpu, its output)."""
    times = os.path.join(cwd, ".loop-time")
    run = subprocess.run(["/usr/bin/time", "-f", "%e %U %S", "-o", times] + command, cwd=cwd,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        sys.stderr.write(run.stdout[-4000:])
        fail(f"{' '.join(command)} failed (exit {run.returncode}) in {cwd}")
    wall, user, system = (float(x) for x in open(times).read().split()[-3:])
    return wall, user + system, run.stdout


def main():
    keep = sys.argv[1:] == ["--keep"]
    scratch = tempfile.mkdtemp(prefix="rankone-loop-")
    os.chmod(scratch, 0o755)  # the hostile suite runs rankone as another user, who must reach the clone
    clone = os.path.join(scratch, "rankone")
    subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=clone, capture_output=True, text=True,
                          check=True).stdout.strip()
    rows, setups = [], []
    for command in (["scripts/quickstart"], ["scripts/test"]):
        wall, cpu, out = timed(command, clone)
        build = BUILD.search(out)
        setup = SETUP.search(out)
        if not build or not setup:
            fail(f"{command[0]} printed no 'build: ok …' or 'setup: …' line")
        setups.append(setup.group(1))
        rows.append((command[0], wall, cpu, int(build.group(1)), int(build.group(2)), int(build.group(3))))
    if keep:
        print(f"loop.py: the clone is kept in {clone}", file=sys.stderr)
    else:
        shutil.rmtree(scratch)
    print("| command (fresh clone) | wall clock | CPU | of which the build: wall, CPU | compiler warnings |")
    print("|---|---|---|---|---|")
    for name, wall, cpu, build_wall, build_cpu, warnings in rows:
        print(f"| `{name}` | {minutes(wall)} | {minutes(cpu)} | {minutes(build_wall)}, {minutes(build_cpu)} | "
              f"{warnings} |")
    installed = "the Debian packages already installed" if setups[0].startswith("all") else \
        f"scripts/setup installing {setups[0].split()[1]} Debian packages"
    print()
    print(f"(Commit {head}, one after the other, {installed}; measured on {machine_now()} by "
          f"`scripts/regenerate-docs loop`.)")


if __name__ == "__main__":
    main()
