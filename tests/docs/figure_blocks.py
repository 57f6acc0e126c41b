#!/usr/bin/env python3
"""Figure blocks of scripts/regenerate-docs (docs/generated.md), with a stand-in plot command.

A throw-away manifest and page in a scratch folder: the command draws into {figure}, a file under
the results root; --check and --cheap never touch the committed figure, a writing run copies it
and puts the image line in the page; a missing Python module and a command that draws nothing
fail with exit 2 and say so. Standard library only, no rankone runs: well under a second.

usage: tests/docs/figure_blocks.py    (CTest: docs_figure_blocks)
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DRAW = f"{sys.executable} -c \"import sys; open(sys.argv[1], 'wb').write(b'drawn')\" {{figure}}"
failures = []


def expect(what, condition):
    print(("ok:     " if condition else "FAILED: ") + what)
    if not condition:
        failures.append(what)


def regenerate(scratch, manifest, *arguments):
    cmd = [sys.executable, os.path.join(ROOT, "scripts", "regenerate-docs"), "--manifest", manifest,
           "--results", os.path.join(scratch, "results")] + list(arguments)
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, RANKONE_BIN="/bin/true"))
    return proc.returncode, proc.stdout + proc.stderr


def read(path):
    return open(path, "rb").read()


with tempfile.TemporaryDirectory() as scratch:
    page = os.path.join(scratch, "docs", "page.md")
    figure = os.path.join(scratch, "docs", "figures", "curve.png")
    os.makedirs(os.path.dirname(figure))
    open(figure, "wb").write(b"committed")
    blocks = {
        "curve": {"page": page, "runs": [], "figure": figure, "caption": "error vs samples", "command": DRAW, "cheap": True},
        "needs-module": {"page": page, "runs": [], "figure": figure, "caption": "x",
                         "command": f"{sys.executable} -c \"import no_such_module_for_this_test\" {{figure}}"},
        "draws-nothing": {"page": page, "runs": [], "figure": figure, "caption": "x", "command": f"{sys.executable} -c pass {{figure}}"},
    }
    open(page, "w").write("".join(f"<!-- generated: {b} -->\n<!-- /generated: {b} -->\n" for b in blocks))
    manifest = os.path.join(scratch, "generated.json")
    json.dump({"runs": {}, "blocks": blocks}, open(manifest, "w"))
    drawn = os.path.join(scratch, "results", "figures", "curve.png")

    status, out = regenerate(scratch, manifest, "--check", "curve")
    expect("--check on an empty block: drift (exit 1)", status == 1)
    expect("--check draws into RESULTS/figures/ID.png", os.path.isfile(drawn) and read(drawn) == b"drawn")
    expect("--check leaves the committed figure", read(figure) == b"committed")

    status, out = regenerate(scratch, manifest, "curve")
    expect("writing: exit 0", status == 0)
    expect("writing copies the figure over the committed one", read(figure) == b"drawn")
    expect("writing puts the image line, relative to the page, in the block",
           "<!-- generated: curve -->\n![error vs samples](figures/curve.png)\n<!-- /generated: curve -->" in open(page).read())
    status, out = regenerate(scratch, manifest, "--check", "curve")
    expect("--check after writing: exit 0", status == 0)

    open(figure, "wb").write(b"committed")
    status, out = regenerate(scratch, manifest, "--cheap", "curve")
    expect("--cheap draws into RESULTS/cheap/figures/ID.png",
           os.path.isfile(os.path.join(scratch, "results", "cheap", "figures", "curve.png")))
    expect("--cheap (a reduced run) never copies the figure", status == 0 and read(figure) == b"committed")

    status, out = regenerate(scratch, manifest, "needs-module")
    expect("a missing module: exit 2, naming the block and the module, no traceback",
           status == 2 and "needs-module: FAILED" in out and "no_such_module_for_this_test" in out
           and "Traceback" not in out)
    status, out = regenerate(scratch, manifest, "draws-nothing")
    expect("a command that draws nothing: exit 2", status == 2 and "drew no figure" in out)

    blocks["curve"]["command"] = "true"
    json.dump({"runs": {}, "blocks": blocks}, open(manifest, "w"))
    status, out = regenerate(scratch, manifest, "--check", "curve")
    expect("a figure block whose command has no {figure} is refused (exit 2)", status == 2 and "{figure}" in out)

listed = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "regenerate-docs"), "--list"], cwd=ROOT,
                        capture_output=True, text=True)
expect("docs/generated.json is a valid manifest (--list)", listed.returncode == 0)
if failures:
    sys.exit(f"figure_blocks: {len(failures)} failed")
print("figure_blocks: passed")
