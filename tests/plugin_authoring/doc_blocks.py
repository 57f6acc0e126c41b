#!/usr/bin/env python3
"""Extracts the C++ code of a Markdown page: every ```cpp block after a `<!-- file: NAME.cpp -->`
marker belongs to NAME.cpp, until the next marker; a ```cpp block before any marker is an error
(every C++ block of the page is compiled). Writes the files into OUT_DIR and prints their names,
one per line.

usage: doc_blocks.py PAGE.md OUT_DIR"""
import pathlib
import re
import sys

page, out_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
files = {}
current = None
in_block = False
for number, line in enumerate(page.read_text().splitlines(), 1):
    marker = re.fullmatch(r"<!-- file: ([A-Za-z0-9_]+\.cpp) -->", line.strip())
    if marker and not in_block:
        current = marker.group(1)
        files.setdefault(current, [])
    elif line.strip() == "```cpp" and not in_block:
        in_block = True
        if not current:
            sys.exit(f"{page}:{number}: a ```cpp block before any <!-- file: NAME.cpp --> marker")
    elif line.strip() == "```" and in_block:
        in_block = False
    elif in_block and current:
        files[current].append(line)
if in_block:
    sys.exit(f"{page}: a ```cpp block is not closed")
for name, lines in files.items():
    (out_dir / name).write_text("\n".join(lines) + "\n")
    print(name)
