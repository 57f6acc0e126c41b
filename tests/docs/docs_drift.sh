#!/usr/bin/env bash
# The documentation's generated blocks still say what the code computes (docs/generated.md).
#
# 1. `scripts/regenerate-docs --check --cheap` in a scratch results folder: the cheap blocks'
#    experiments run (at the reduced size of the manifest) and every cheap block must be within
#    its tolerance of what its page says;
# 2. negative control: a copy of a page with one number of a cheap block doubled must fail the
#    check (exit 1); and a copy with a time of a cheap block changed must pass (times are not
#    compared). Both reuse the results of 1, so they cost seconds.
#
# usage: tests/docs/docs_drift.sh BUILD_DIR [SOURCE_DIR]    (CTest: docs_drift)
set -u
build=$(cd "$1" && pwd -P)
root=$(cd "${2:-$(dirname "$0")/../..}" && pwd -P)
export RANKONE_BIN=$build/bin/rankone
# The pages' numbers come from a portable build (the x86-64 baseline: the same bits on every machine,
# docs/PERFORMANCE.md#instruction-set); a native build rounds differently wherever it uses FMA or
# wider vectors, so its counts and last digits may legitimately differ. scripts/test builds portable.
arch=$(sed -n 's/^RANKONE_ARCH:[A-Z]*=//p' "$build/CMakeCache.txt")
if [[ "$arch" != portable ]]; then
  echo "docs_drift: skipped: $build is a RANKONE_ARCH=$arch build; the pages are checked against a portable one (scripts/test)"
  exit 77
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$root" || exit 1

echo "== check of the cheap blocks (results in $scratch)"
scripts/regenerate-docs --check --cheap --results "$scratch" --jobs 2
status=$?
if ((status != 0)); then
  echo "docs_drift: FAILED: the cheap blocks drifted (exit $status); regenerate them with scripts/regenerate-docs"
  exit 1
fi

# tamper MODE COPY: picks a cheap, compared block and writes to COPY its page with, for MODE
# number, the block's first number that is not a time doubled, for MODE time, its first time
# changed; prints "BLOCK PAGE" (nothing when no cheap block has such a number).
tamper() {
  python3 - "$1" "$2" <<'PY'
import json, re, sys
mode, copy = sys.argv[1:]
time = r"\d+(?:\.\d+)?\s?(?:ms|s|min)\b"
number = r"(?<![\w.\u2212-])\d+(?:\.\d+)?(?:e-?\d+)?(?![\d.]*\s?(?:ms|s|min)\b)"
m = json.load(open("docs/generated.json"))
for bid, b in m["blocks"].items():
    if not (b.get("cheap") and b.get("check", True) and all("cheap" in m["runs"][r] for r in b["runs"])):
        continue
    text = open(b["page"], encoding="utf-8").read()
    start = text.index("\n", text.index(f"<!-- generated: {bid} -->")) + 1
    stop = text.index(f"<!-- /generated: {bid} -->")
    floor = b.get("tolerance", {}).get("floor", 0)
    hits = [h for h in re.finditer(number if mode == "number" else time, text[start:stop])
            if mode == "time" or float(h.group(0)) > floor]  # below the floor any change is equal
    if not hits:
        continue
    hit = hits[0]
    old = hit.group(0)
    new = f"{2 * float(old):g}" if mode == "number" else re.sub(r"^\d+(?:\.\d+)?", "99", old)
    at = start + hit.start()
    open(copy, "w", encoding="utf-8").write(text[:at] + new + text[at + len(old):])
    print(bid, b["page"])
    break
PY
}

copy=$scratch/tampered.md
read -r block page < <(tamper number "$copy")
echo "== negative control: $page with the first number of block $block doubled must fail"
scripts/regenerate-docs --check --cheap --results "$scratch" --page "$page=$copy" "$block"
status=$?
if ((status != 1)); then
  echo "docs_drift: FAILED: the tampered copy of $page passed the check (exit $status, expected 1)"
  exit 1
fi
read -r block page < <(tamper time "$copy")
if [[ -n "${block:-}" ]]; then
  echo "== control: $page with a time of block $block changed must pass (times are not compared)"
  scripts/regenerate-docs --check --cheap --results "$scratch" --page "$page=$copy" "$block"
  status=$?
  if ((status != 0)); then
    echo "docs_drift: FAILED: a page differing only in a time failed the check (exit $status)"
    exit 1
  fi
fi
echo "docs_drift: passed"
