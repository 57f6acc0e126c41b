# Bash completion for rankone: commands, their options, plugin names (describe, test-plugin and a
# plugin-name value such as estimators.0.name=) and the key paths of an experiment's overrides
# (run, plan, validate: data.d=, estimators.0.rank=, … from `rankone validate FILE`).
# Installed as share/bash-completion/completions/rankone; in a checkout:
#   source framework/cli/rankone-completion.bash

_rankone_commands() {
  "$1" --help 2> /dev/null | sed -n 's/^  \([a-z][a-z-]*\)\( .*\)\{0,1\}$/\1/p'
}

# The plugin names, of kind $2 only when given (every name where there is no python3 to filter them).
_rankone_plugin_names() {
  if ! command -v python3 > /dev/null; then
    "$1" plugins --json 2> /dev/null | sed -n 's/^    "name": "\([^"]*\)",\{0,1\}$/\1/p'
    return
  fi
  "$1" plugins --json 2> /dev/null | python3 -c '
import json, sys
try:
    print("\n".join(p["name"] for p in json.load(sys.stdin) if not sys.argv[1] or p["kind"] == sys.argv[1]))
except ValueError:
    pass' "${2:-}" 2> /dev/null
}

# The kind of plugin a key path's `name=` takes (nothing when it is not known).
_rankone_kind_of() {
  case "$1" in
    estimators.*.init.name) echo initializer ;;
    estimators.*.name) echo estimator ;;
    metrics.*.name) echo metric ;;
    *operator.name) echo operator ;;
    *sampler.name) echo sampler ;;
    data.name) echo source ;;
  esac
}

# Every leaf of the resolved experiment as a key path (lists by index), followed by '='.
_rankone_key_paths() {
  "$1" validate "$2" 2> /dev/null | python3 -c '
import json, sys
def walk(node, path):
    if isinstance(node, dict) and node:
        for key, value in node.items(): yield from walk(value, path + [key])
    elif isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
        for index, value in enumerate(node): yield from walk(value, path + [str(index)])
    else:
        yield ".".join(path) + "="
try:
    print("\n".join(walk(json.load(sys.stdin), [])))
except ValueError:
    pass' 2> /dev/null
}

_rankone() {
  local rankone=${COMP_WORDS[0]} current=${COMP_WORDS[COMP_CWORD]} previous=${COMP_WORDS[COMP_CWORD-1]}
  COMPREPLY=()
  if ((COMP_CWORD == 1)); then
    mapfile -t COMPREPLY < <(compgen -W "$(_rankone_commands "$rankone") --help --version" -- "$current")
    return
  fi
  local command=${COMP_WORDS[1]}
  case "$previous" in
    --kind) mapfile -t COMPREPLY < <(compgen -W "estimator sampler operator source metric" -- "$current"); return ;;  # new-plugin's templates
    --format) mapfile -t COMPREPLY < <(compgen -W "table csv json" -- "$current"); return ;;
    --out | --dir | --output) mapfile -t COMPREPLY < <(compgen -d -- "$current"); return ;;
  esac
  if [[ $current == --* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$("$rankone" "$command" --help 2> /dev/null | grep -o -- '--[a-z-]*' | sort -u)" -- "$current")
    return
  fi
  case "$command" in
    describe) mapfile -t COMPREPLY < <(compgen -W "$(_rankone_plugin_names "$rankone")" -- "$current") ;;
    test-plugin) mapfile -t COMPREPLY < <(compgen -f -X '!*.so' -- "$current"; compgen -d -- "$current") ;;
    run | plan | validate)
      if ((COMP_CWORD == 2)); then
        mapfile -t COMPREPLY < <(compgen -f -X '!*.json' -- "$current"; compgen -d -- "$current")
      elif [[ $current == *.name=* ]]; then
        mapfile -t COMPREPLY < <(compgen -P "${current%%=*}=" -W "$(_rankone_plugin_names "$rankone" "$(_rankone_kind_of "${current%%=*}")")" -- "${current#*=}")
      elif [[ $current != *=* ]]; then
        compopt -o nospace 2> /dev/null
        mapfile -t COMPREPLY < <(compgen -W "$(_rankone_key_paths "$rankone" "${COMP_WORDS[2]}")" -- "$current")
      fi ;;
    *) mapfile -t COMPREPLY < <(compgen -f -- "$current") ;;
  esac
}
complete -F _rankone rankone
