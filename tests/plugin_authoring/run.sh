#!/usr/bin/env bash
# A plugin author's path, on the installed package: install this build into a scratch prefix; for
# every kind, `rankone new-plugin`, build the folder out of tree, run its own tests (Catch2 and
# `rankone test-plugin`) and its experiment with a report; check that new-plugin refuses bad
# requests; and compile every C++ block of docs/writing-plugins.md into plugins that pass
# `rankone test-plugin`.
#
# usage: run.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build_dir=$1
source_dir=$2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# Runs a command with its output in a log, shown only when it fails.
quietly() {
  local log=$1; shift
  "$@" > "$log" 2>&1 || { echo "FAIL: $*"; tail -n 60 "$log"; exit 1; }
}

quietly "$scratch/install.log" cmake --install "$build_dir" --prefix "$scratch/prefix"
rankone="$scratch/prefix/bin/rankone"
package="$scratch/prefix/lib/cmake/RankOne"
# The Python package, installed beside the CLI (when the build has it): it imports and finds its CLI.
python_site=""
if [[ -d "$build_dir/python/rankone" ]]; then
  python_site=$(echo "$scratch"/prefix/lib/python3*/dist-packages)
  PYTHONPATH="$python_site" quietly "$scratch/python.log" env -u RANKONE_BIN /usr/bin/python3 -c "import rankone, rankone.sklearn
assert rankone.study.cli() == '$rankone', rankone.study.cli()"
fi
for internal in runner store report experiment; do
  [[ ! -e "$scratch/prefix/include/rankone/$internal" ]] || fail "internal headers installed: include/rankone/$internal"
done

# Builds a plugin folder against the installed package.
build_plugin() {
  local folder=$1
  quietly "$folder.configure.log" cmake -S "$folder" -B "$folder/build" -DRankOne_DIR="$package"
  quietly "$folder.build.log" cmake --build "$folder/build" -j2
}

for kind in estimator sampler operator source metric; do
  name="my_$kind"
  quietly "$scratch/$name.new.log" "$rankone" new-plugin "$name" --kind "$kind" --dir "$scratch"
  for file in CMakeLists.txt "$name.cpp" "$name.md" "test_$name.cpp" "$name.json"; do
    [[ -s "$scratch/$name/$file" ]] || fail "new-plugin --kind $kind did not write $file"
  done
  build_plugin "$scratch/$name"
  quietly "$scratch/$name.ctest.log" ctest --test-dir "$scratch/$name/build" --output-on-failure
  quietly "$scratch/$name.conformance.log" "$rankone" test-plugin "$scratch/$name/build/lib$name.so"
  grep -q " 0 failed" "$scratch/$name.conformance.log" || fail "test-plugin on $name: $(tail -n 1 "$scratch/$name.conformance.log")"
  RANKONE_PLUGIN_PATH="$scratch/$name/build" quietly "$scratch/$name.run.log" \
    "$rankone" run "$scratch/$name/$name.json" --out "$scratch/results-$name" --report
  grep -q "0 failed or diverged" "$scratch/$name.run.log" || fail "the experiment of $name: $(cat "$scratch/$name.run.log")"
  [[ -s "$scratch/results-$name/report.html" ]] || fail "no report for $name"
  # The installed Python package offers an out-of-tree estimator as a scikit-learn class, and fits it.
  if [[ $kind == estimator && -n "$python_site" ]]; then
    RANKONE_PLUGIN_PATH="$scratch/$name/build" PYTHONPATH="$python_site" quietly "$scratch/$name.python.log" env -u RANKONE_BIN \
      /usr/bin/python3 -c "import numpy as np, rankone.sklearn as rs
X = np.random.default_rng(0).standard_normal((2000, 6)); y = X.sum(axis=1)
model = rs.MyEstimator(random_state=1).fit(X, y)
assert rs.make('my_estimator').get_params()['random_state'] is None and np.all(np.isfinite(model.predict(X)))"
  fi
  echo "new-plugin --kind $kind: built, tests and test-plugin pass, experiment ran"
done

# A bad parameter of an out-of-tree plugin is reported like any other: file, JSON path, expectation.
cat > "$scratch/bad-variance.json" <<'JSON'
{"name": "bad-variance", "seed": 1, "repetitions": 1,
 "data": {"name": "synthetic", "d": 10, "rank": 1, "sampler": {"name": "my_sampler", "variance": -1}},
 "estimators": [{"name": "spectral", "rank": 1, "batch_size": 2000}],
 "metrics": ["relative_error_M"]}
JSON
code=0
RANKONE_PLUGIN_PATH="$scratch/my_sampler/build" "$rankone" validate "$scratch/bad-variance.json" > "$scratch/validate.txt" 2>&1 || code=$?
[[ $code == 2 ]] || fail "validate with variance = -1: expected exit 2, got $code: $(cat "$scratch/validate.txt")"
grep -q "bad-variance.json: at /data/sampler/variance: expected a number > 0" "$scratch/validate.txt" ||
  fail "unexpected validation message: $(cat "$scratch/validate.txt")"

# Bad requests are refused with exit 2 and nothing written.
expect_refusal() {
  local what=$1; shift
  local code=0
  "$@" > "$scratch/refused.txt" 2>&1 || code=$?
  [[ $code == 2 ]] || fail "$what: expected exit 2, got $code: $(cat "$scratch/refused.txt")"
  grep -q "$what" "$scratch/refused.txt" || fail "expected '$what' in: $(cat "$scratch/refused.txt")"
}
expect_refusal "already exists" "$rankone" new-plugin my_estimator --kind estimator --dir "$scratch"
expect_refusal "a plugin called 'spectral' already exists" "$rankone" new-plugin spectral --kind estimator --dir "$scratch"
expect_refusal "expected a NAME" "$rankone" new-plugin My-Plugin --kind metric --dir "$scratch"
expect_refusal "expected estimator, sampler" "$rankone" new-plugin other --kind solver --dir "$scratch"
[[ ! -e "$scratch/other" && -z "$(ls -A "$scratch" | grep partial || true)" ]] || fail "a refused new-plugin wrote files"
expect_refusal "is not a RankOne plugin" "$rankone" test-plugin "$scratch/prefix/lib/librankone.so"
expect_refusal "is not a file" "$rankone" test-plugin "$scratch/nothing.so"

# docs/writing-plugins.md: its C++ blocks, one plugin per `<!-- file: NAME.cpp -->` marker.
mkdir -p "$scratch/doc"
python3 "$source_dir/tests/plugin_authoring/doc_blocks.py" "$source_dir/docs/writing-plugins.md" "$scratch/doc" > "$scratch/doc-files.txt"
[[ $(wc -l < "$scratch/doc-files.txt") -ge 3 ]] || fail "expected at least 3 plugins in docs/writing-plugins.md, found: $(cat "$scratch/doc-files.txt")"
# The page shows what new-plugin writes (blank lines aside: the page splits the file into blocks).
for file in my_estimator.cpp my_operator.cpp my_metric.cpp; do
  kind=${file#my_}; kind=${kind%.cpp}
  [[ -d "$scratch/my_$kind" ]] || quietly "$scratch/doc-new.log" "$rankone" new-plugin "my_$kind" --kind "$kind" --dir "$scratch"
  diff <(grep -v '^$' "$scratch/my_$kind/$file") <(grep -v '^$' "$scratch/doc/$file") > "$scratch/doc-diff.txt" ||
    fail "docs/writing-plugins.md's $file differs from what new-plugin writes:
$(cat "$scratch/doc-diff.txt")"
done
{
  echo 'cmake_minimum_required(VERSION 3.25)'
  echo 'project(writing_plugins_doc LANGUAGES CXX)'
  echo 'set(CMAKE_CXX_STANDARD 20)'
  echo 'find_package(RankOne 0.1 REQUIRED)'
  while read -r file; do echo "rankone_add_plugin(${file%.cpp} $file)"; done < "$scratch/doc-files.txt"
  echo 'set_target_properties(${RANKONE_DOC_TARGETS} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})'
} > "$scratch/doc/CMakeLists.txt"
sed -i "s/\${RANKONE_DOC_TARGETS}/$(sed 's/\.cpp$//' "$scratch/doc-files.txt" | tr '\n' ' ')/" "$scratch/doc/CMakeLists.txt"
build_plugin "$scratch/doc"
while read -r file; do
  quietly "$scratch/doc.$file.log" "$rankone" test-plugin "$scratch/doc/build/lib${file%.cpp}.so"
  echo "docs/writing-plugins.md: $file compiles and passes test-plugin ($(tail -n 1 "$scratch/doc.$file.log" | sed 's/.*: //'))"
done < "$scratch/doc-files.txt"
echo "plugin authoring: ok"
