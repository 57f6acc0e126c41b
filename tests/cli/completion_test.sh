#!/usr/bin/env bash
# The bash completion of rankone completes commands, options, plugin names and experiment key paths.
# usage: completion_test.sh RANKONE SOURCE_DIR
set -euo pipefail
rankone=$1
source_dir=$2
source "$source_dir/framework/cli/rankone-completion.bash"
completions() { COMP_WORDS=("$rankone" "$@"); COMP_CWORD=$#; _rankone; echo "${COMPREPLY[*]}"; }
expect() {
  local expected=$1; shift
  local found
  found=$(completions "$@")
  [[ "$found" == "$expected" ]] || { echo "FAIL: rankone $* <TAB>: expected '$expected', found '$found'"; exit 1; }
}
experiment="$source_dir/experiments/quickstart.json"
expect "describe" de
expect "test-plugin" test-
expect "gfm_one_pass" describe gfm_o
expect "--trial-memory --trial-seconds --trial-stall" run "$experiment" --tr
expect "estimators.0.rank=" run "$experiment" estimators.0.ra
expect "data.eigenvalues=" validate "$experiment" data.eig
expect "estimators.1.name=spectral" run "$experiment" estimators.1.name=spec  # an estimator, not the start
expect "estimators.0.init.name=spectral_init" run "$experiment" estimators.0.init.name=spec
expect "data.sampler.name=gaussian" run "$experiment" data.sampler.name=gau
expect "metric" new-plugin my_metric --kind me
echo "completion: ok"
