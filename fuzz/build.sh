#!/usr/bin/env bash
# Builds the libFuzzer targets with clang (-fsanitize=fuzzer,address,undefined).
#
#   fuzz/build.sh [BUILD_DIR]        # default /tmp/rankone-fuzz-build
#   fuzz/run.sh BUILD_DIR 60         # every target 60 s, new inputs merged into fuzz/corpus (docs/fuzzing.md)
#
# The RankOne core and plugins are configured in BUILD_DIR with the sanitizers (and fuzzer coverage
# instrumentation), so the experiment loader and the parsers are fuzzed with full coverage.
# Installs clang and libclang-rt-14-dev from Debian if they are missing.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-/tmp/rankone-fuzz-build}
JOBS=${JOBS:-2}

if ! command -v clang++ >/dev/null || ! dpkg -s libclang-rt-14-dev >/dev/null 2>&1; then
  echo "installing clang and libclang-rt-14-dev" >&2
  SUDO=""; [[ $(id -u) -eq 0 ]] || SUDO=sudo
  $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev
fi

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS="$SAN -fsanitize=fuzzer-no-link" \
  -DCMAKE_SHARED_LINKER_FLAGS="$SAN" -DCMAKE_MODULE_LINKER_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" \
  -DRANKONE_BUILD_TESTS=OFF -DRANKONE_BUILD_BENCHMARKS=OFF >/dev/null
# The core, the file parsers, and the plugins an experiment can name.
cmake --build "$BUILD" -j"$JOBS" --target rankone_core rankone_file_formats rankone_sources rankone_operators \
  rankone_samplers rankone_metrics rankone_spectral

CXX_FLAGS=(-std=c++20 $SAN -fsanitize=fuzzer -O1
  -I"$ROOT/framework/include" -I"$ROOT/plugins/sources" -I/usr/include/eigen3)
LIBS=(-Wl,-rpath,"$BUILD/lib" -L"$BUILD/lib")
for target in libsvm csv idx ratings image; do
  clang++ "${CXX_FLAGS[@]}" "$ROOT/fuzz/fuzz_$target.cpp" -o "$BUILD/bin/fuzz_$target" \
    "$BUILD/lib/librankone_file_formats.a" "${LIBS[@]}" -lrankone -lxxhash -lz -lpng -ljpeg
done
for target in experiment npy model; do
  clang++ "${CXX_FLAGS[@]}" "$ROOT/fuzz/fuzz_$target.cpp" -o "$BUILD/bin/fuzz_$target" "${LIBS[@]}" -lrankone
done
echo "fuzz targets in $BUILD/bin: $(cd "$BUILD/bin" && ls fuzz_* | tr '\n' ' ')"
