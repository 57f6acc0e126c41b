"""Running a Catch2 test executable of the build for the generated blocks of the docs: the values
its assertions capture (CAPTURE, INFO) and its warnings (WARN), from its XML report (standard
library only). The executables sit beside the rankone binary ($RANKONE_BIN's folder)."""
import os
import re
import subprocess
import xml.etree.ElementTree as ET

from results import fail, rankone


class Assertion:
    """One assertion the test passed, with the values captured when it ran (name -> value)."""

    def __init__(self, test_case, values):
        self.test_case, self.values = test_case, values

    def __getitem__(self, name):
        return self.values[name]


def executable(name):
    path = os.path.join(os.path.dirname(rankone()), name)
    if not os.access(path, os.X_OK):
        fail(f"no test executable {path} (build with RANKONE_BUILD_TESTS=ON beside $RANKONE_BIN)")
    return path


def value(text):
    """A captured value as Catch prints it: a string without its quotes, an integer without its
    hexadecimal form (`4000 (0xfa0)`), a number as float; anything else as the text."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    text = re.sub(r" \(0x[0-9a-f]+\)$", "", text)
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def run(name, *specs):
    """(assertions, warnings) of `name SPEC,… -s -r xml` (Catch reads one argument, its patterns
    separated by commas, so a spec must not contain one): every passed assertion with the values
    captured for it, and the text of every WARN, in the order the test ran them. A failing test
    stops the printer: a page is never written from a test that does not pass."""
    proc = subprocess.run([executable(name), ",".join(specs), "--success", "--reporter", "xml"], capture_output=True, text=True)
    if proc.returncode != 0:
        fail(f"{name} {' '.join(specs)} exited {proc.returncode}:\n{proc.stdout[-2000:]}{proc.stderr}")
    assertions, warnings = [], []

    def walk(element, test_case, pending):
        for child in element:
            if child.tag == "Info":  # precedes the assertion it belongs to, at the same level
                n, _, v = child.text.strip().partition(" := ")
                pending[n] = value(v) if v else n
            elif child.tag == "Warning":
                warnings.append(child.text.strip())
            elif child.tag == "Expression":
                assertions.append(Assertion(test_case, dict(pending)))
                pending.clear()
            elif child.tag == "Section":
                walk(child, test_case, pending)

    root = ET.fromstring(proc.stdout)
    for case in root.iter("TestCase"):
        walk(case, case.get("name"), {})
    if not assertions and not warnings:
        fail(f"{name} {' '.join(specs)}: no test case matched")
    return assertions, warnings


def captured(assertions, *names):
    """The distinct tuples of the named values over the assertions that captured all of them, in
    the order the test first captured them (a loop body captures the same values for each check)."""
    seen = []
    for a in assertions:
        if all(n in a.values for n in names):
            row = tuple(a[n] for n in names)
            if row not in seen:
                seen.append(row)
    return seen
