#!/usr/bin/env bash
# Builds rankone, its plugins and the hostile corpus with AddressSanitizer and UBSan in a build
# folder of their own, and runs the corpus against that rankone: no case may make a sanitizer speak
# (the corpus checks every output for their reports; UBSan stops at the first finding).
# Usage: sanitized.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir="$1"
build_dir="$2"
cmake -S "$source_dir" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRANKONE_SANITIZE=ON \
  -DRANKONE_BUILD_BENCHMARKS=OFF > "$build_dir.log" 2>&1 || { cat "$build_dir.log"; exit 1; }
cmake --build "$build_dir" -j"$(nproc)" --target test_hostile >> "$build_dir.log" 2>&1 || { tail -n 60 "$build_dir.log"; exit 1; }
# Leaks are not the corpus's subject: plugin libraries stay loaded for the process lifetime on purpose.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1
export RANKONE_SOURCE_DIR="$source_dir" RANKONE_BINARY_DIR="$build_dir"
cd "$build_dir"
exec "$build_dir/bin/test_hostile" --order rand --rng-seed 7
