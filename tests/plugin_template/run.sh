#!/usr/bin/env bash
# Installs this build into a scratch prefix, builds examples/plugin-template against the installed
# RankOne package, and runs the installed CLI with the out-of-tree plugin.
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

cmake --install "$build_dir" --prefix "$scratch/prefix" > "$scratch/install.log"
cmake -S "$source_dir/examples/plugin-template" -B "$scratch/build" -DCMAKE_PREFIX_PATH="$scratch/prefix" > "$scratch/configure.log"
cmake --build "$scratch/build" > "$scratch/build.log"

rankone="$scratch/prefix/bin/rankone"
export RANKONE_PLUGIN_PATH="$scratch/build"
"$rankone" describe student_t | grep -q "degrees of freedom"
"$rankone" plugins | grep -q "synthetic"    # the installed plugins are found next to the installed CLI

cat > "$scratch/exp.json" <<'JSON'
{"name": "t-designs", "seed": 1, "repetitions": 1,
 "data": {"name": "synthetic", "d": 10, "rank": 1, "sampler": {"name": "student_t", "dof": 8}},
 "estimators": [{"name": "spectral", "rank": 1, "batch_size": 2000}],
 "metrics": ["relative_error_M"]}
JSON
"$rankone" run "$scratch/exp.json" --out "$scratch/out" --quiet | grep -q "1 run now"
"$rankone" export "$scratch/out" --format csv | grep -q "relative_error_M"
# A bad parameter of the out-of-tree plugin is reported like any other.
if "$rankone" validate "$scratch/exp.json" data.sampler.dof=3 2> "$scratch/err.txt"; then
  echo "expected a validation error for dof=3"; exit 1
fi
grep -q "at /data/sampler/dof: expected a number > 4" "$scratch/err.txt"
echo "plugin template: ok"
