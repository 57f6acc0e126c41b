#!/usr/bin/env bash
# The repository must stand on its own: users have only what is in it.
#
# Fails (exit 1), naming file:line, when
#   1. a tracked file (git ls-files; this script excepted) mentions a file outside the repository:
#      NOTES.md or "NOTES §" (reading notes that were never part of the project), /work/shared or
#      ../shared (a folder users do not have), or a paper text papers/NAME.txt (the paper texts are
#      not distributed; cite the page in docs/papers/ instead);
#   2. a relative markdown link `](path)` in docs/*.md, docs/*/*.md or README.md points to a file or
#      folder that does not exist in the repository (missing, or present only because git ignores
#      it, e.g. a build product). http(s), mailto and other scheme links and pure #anchor links are
#      ignored; a #anchor or ?query is stripped before the check. Links inside fenced code blocks and
#      inline code spans are not links and are ignored. Markdown files not yet tracked (but not
#      ignored) are checked too, so a new page is checked before it is committed.
#
# Run from anywhere inside the work tree: bash tests/docs/no_outside_references.sh
# Registered with CTest as `docs_references` (tests/CMakeLists.txt).
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
root=$(git -C "$here" rev-parse --show-toplevel 2>/dev/null) || {
  echo "no_outside_references: $here is not inside a git work tree (the check reads git ls-files)" >&2
  exit 1
}
cd "$root" || exit 1
self=tests/docs/no_outside_references.sh
failures=0

# 1. Mentions of files outside the repository, in every tracked text file.
patterns=(-e 'NOTES\.md' -e 'NOTES §' -e '/work/shared' -e '\.\./shared' -e 'papers/[A-Za-z0-9._-]*\.txt')
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  echo "$file:${rest%%:*}: refers to something outside the repository: ${rest#*:}"
  failures=$((failures + 1))
done < <(git ls-files -z | grep -z -v -x -F -- "$self" | xargs -0 -r grep -s -n -H -I -E "${patterns[@]}" --)

# 2. Relative markdown links that do not resolve inside the repository.
# Prints "line<TAB>target" for every ](target) outside code fences and inline code spans.
extract_links() {
  awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; next }
    fence { next }
    {
      line = $0
      gsub(/`[^`]*`/, "", line)
      while (match(line, /\]\([^)]*\)/)) {
        print FNR "\t" substr(line, RSTART + 2, RLENGTH - 3)
        line = substr(line, RSTART + RLENGTH)
      }
    }' "$1"
}

while IFS= read -r -d '' file; do
  [[ -f "$file" ]] || continue
  dir=$(dirname "$file")
  while IFS=$'\t' read -r lineno target; do
    target="${target#"${target%%[![:space:]]*}"}"          # leading blanks
    if [[ "$target" == \<* ]]; then                          # ](<path with spaces> "title")
      target="${target#<}"
      target="${target%%>*}"
    else
      target="${target%%[[:space:]]*}"                       # drop a "title"
    fi
    [[ -z "$target" || "$target" == \#* ]] && continue       # pure #anchor
    [[ "$target" =~ ^[A-Za-z][A-Za-z0-9+.-]*: ]] && continue # http:, https:, mailto:, ...
    path="${target%%#*}"
    path="${path%%\?*}"
    path="${path//%20/ }"
    [[ -z "$path" ]] && continue
    if [[ "$path" == /* ]]; then
      resolved="$root$path"                                  # GitHub: / is the repository root
    else
      resolved="$root/$dir/$path"
    fi
    resolved=$(realpath -m -- "$resolved")
    if [[ "$resolved" != "$root" && "$resolved" != "$root"/* ]]; then
      echo "$file:$lineno: link points outside the repository: $target"
      failures=$((failures + 1))
    elif [[ ! -e "$resolved" ]]; then
      echo "$file:$lineno: broken link: $target (no ${resolved#"$root"/})"
      failures=$((failures + 1))
    elif [[ "$resolved" != "$root" ]] && git check-ignore -q -- "${resolved#"$root"/}"; then
      echo "$file:$lineno: link to a file git ignores (users will not have it): $target"
      failures=$((failures + 1))
    fi
  done < <(extract_links "$file")
done < <(git ls-files -z --cached --others --exclude-standard -- ':(glob)docs/*.md' ':(glob)docs/*/*.md' README.md | sort -zu)

if ((failures > 0)); then
  echo "no_outside_references: $failures problem(s)" >&2
  exit 1
fi
echo "no_outside_references: no references outside the repository, every relative link resolves"
