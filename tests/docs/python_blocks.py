"""Runs the ```python blocks of a docs page in order, in one namespace, as a notebook session would
(in a scratch folder; figures drawn off-screen). A block that raises fails the test, naming it."""
import os
import pathlib
import re
import sys
import tempfile
import traceback

import matplotlib

matplotlib.use("Agg")

page = pathlib.Path(sys.argv[1]).resolve()
blocks = re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)
if not blocks:
    sys.exit(f"{page}: no ```python blocks")
namespace = {"__name__": "__main__"}
with tempfile.TemporaryDirectory(prefix="rankone-docs-") as folder:
    os.chdir(folder)
    os.environ.setdefault("RANKONE_SOURCE_DIR", str(page.parent.parent))
    for number, code in enumerate(blocks, 1):
        line = page.read_text()[: page.read_text().index(code)].count("\n") + 1
        try:
            exec(compile(code, f"{page.name}:{line}", "exec"), namespace)
        except Exception:
            traceback.print_exc()
            sys.exit(f"{page}: block {number} (line {line}) failed")
print(f"{page.name}: {len(blocks)} blocks ran")
