#!/usr/bin/env bash
# Installs this build into a scratch prefix, builds examples/plugin-template against the installed
# RankOne package, and runs the installed CLI with the out-of-tree plugin.
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build_dir" --prefix "$scratch/prefix" > "$scratch/install.log" 2>&1 || { cat "$scratch/install.log"; exit 1; }
cmake -S "$source_dir/examples/plugin-template" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" > "$scratch/configure.log" 2>&1 || { cat "$scratch/configure.log"; exit 1; }
cmake --build "$scratch/build" > "$scratch/build.log" 2>&1 || { cat "$scratch/build.log"; exit 1; }

rankone="$scratch/prefix/bin/rankone"

# Runs a command to completion and checks its output; never `cmd | grep -q`, whose early exit can
# kill the writer with SIGPIPE and fail the pipeline under pipefail.
expect_output() {
  local pattern=$1; shift
  "$@" > "$scratch/out.txt"
  if ! grep -q -- "$pattern" "$scratch/out.txt"; then
    echo "expected '$pattern' in the output of: $*"; cat "$scratch/out.txt"; exit 1
  fi
}
export RANKONE_PLUGIN_PATH="$scratch/build"
expect_output "degrees of freedom" "$rankone" describe student_t
expect_output "synthetic" "$rankone" plugins    # the installed plugins are found next to the installed CLI

cat > "$scratch/exp.json" <<'JSON'
{"name": "t-designs", "seed": 1, "repetitions": 1,
 "data": {"name": "synthetic", "d": 10, "rank": 1, "sampler": {"name": "student_t", "dof": 8}},
 "estimators": [{"name": "spectral", "rank": 1, "batch_size": 2000}],
 "metrics": ["relative_error_M"]}
JSON
expect_output "1 run now" "$rankone" run "$scratch/exp.json" --out "$scratch/out" --quiet
expect_output "relative_error_M" "$rankone" export "$scratch/out" --format csv
# A bad parameter of the out-of-tree plugin is reported like any other.
code=0
"$rankone" validate "$scratch/exp.json" data.sampler.dof=3 2> "$scratch/err.txt" || code=$?
if [[ "$code" != 2 ]]; then
  echo "expected exit code 2 (bad input) for dof=3, got $code"; cat "$scratch/err.txt"; exit 1
fi
if ! grep -q "at /data/sampler/dof: expected a number > 4" "$scratch/err.txt"; then
  echo "unexpected validation message:"; cat "$scratch/err.txt"; exit 1
fi
echo "plugin template: ok"
