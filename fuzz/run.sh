#!/usr/bin/env bash
# Runs every fuzz target for SECONDS (default 60) from the repository's corpus, then merges the new
# interesting inputs back into fuzz/corpus/<target> (libFuzzer -merge=1 keeps only inputs that add
# coverage). Stops at the first finding: the crashing input is left in OUT/<target>/ (crash-*,
# leak-*, timeout-*, oom-*).
#
#   fuzz/build.sh /tmp/rankone-fuzz-build
#   fuzz/run.sh /tmp/rankone-fuzz-build [SECONDS] [TARGET...]      # logs in OUT=/tmp/rankone-fuzz-runs
# CORPUS=DIR runs from (and merges into) DIR/<target> instead of fuzz/corpus/<target>.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-/tmp/rankone-fuzz-build}
SECONDS_EACH=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
TARGETS=("$@")
[[ ${#TARGETS[@]} -gt 0 ]] || TARGETS=(libsvm csv idx ratings image experiment npy model)
OUT=${OUT:-/tmp/rankone-fuzz-runs}
CORPUS=${CORPUS:-$ROOT/fuzz/corpus}
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

for t in "${TARGETS[@]}"; do
  mkdir -p "$OUT/$t/new"
  echo "== fuzz_$t: ${SECONDS_EACH} s" >&2
  (cd "$OUT/$t" && "$BUILD/bin/fuzz_$t" new "$CORPUS/$t" -max_total_time="$SECONDS_EACH" -timeout=10 \
     -rss_limit_mb=2048 -print_final_stats=1 >"$OUT/$t/run.log" 2>&1) || {
    echo "fuzz_$t: FINDING, see $OUT/$t/run.log and $OUT/$t/" >&2
    exit 1
  }
  grep -E "DONE|stat::number_of_executed_units" "$OUT/$t/run.log" >&2
  "$BUILD/bin/fuzz_$t" -merge=1 "$CORPUS/$t" "$OUT/$t/new" >"$OUT/$t/merge.log" 2>&1
  echo "   corpus: $(ls "$CORPUS/$t" | wc -l) files, $(du -sk "$CORPUS/$t" | cut -f1) KB" >&2
done
