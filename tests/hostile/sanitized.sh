#!/usr/bin/env bash
# Builds rankone and the plugins the hostile corpus loads with AddressSanitizer and UBSan, in a
# build folder of their own, and runs the corpus (the normal build's test_hostile) against that
# rankone: no case may make a sanitizer speak (the corpus checks every output for their reports,
# and UBSan stops at its first finding).
# Usage: sanitized.sh SOURCE_DIR BUILD_DIR SANITIZED_BUILD_DIR
set -euo pipefail
source_dir="$1"
build_dir="$2"
sanitized="$3"
# -O1 -g1: what the sanitizers need, at a fraction of an optimised build's compile time; the x86-64
# baseline, whose Eigen compiles faster than AVX-512's (the corpus is about input, not SIMD).
cmake -S "$source_dir" -B "$sanitized" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" -DRANKONE_SANITIZE=ON \
  -DRANKONE_ARCH=portable -DRANKONE_BUILD_BENCHMARKS=OFF > "$sanitized.log" 2>&1 || { cat "$sanitized.log"; exit 1; }
# The corpus needs the CLI, the generic plugins and the deliberately broken ones; not the papers'.
cmake --build "$sanitized" -j"$(nproc)" --target rankone rankone_sources rankone_metrics rankone_samplers \
  rankone_operators rankone_spectral bad_throws_in_initialiser bad_throws_in_describe bad_api_mismatch \
  bad_not_a_plugin >> "$sanitized.log" 2>&1 || { tail -n 60 "$sanitized.log"; exit 1; }
# Leaks are not the corpus's subject: plugin libraries stay loaded for the process lifetime on purpose.
export ASAN_OPTIONS=detect_leaks=0
export UBSAN_OPTIONS=print_stacktrace=1
export RANKONE_SOURCE_DIR="$source_dir" RANKONE_BINARY_DIR="$sanitized"
cd "$sanitized"
exec "$build_dir/bin/test_hostile" --order rand --rng-seed 7
