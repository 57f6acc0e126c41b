#!/bin/bash
# Renders a `rankone report` page in headless Chromium and checks that every plot drew, that every
# interactive explorer renders each of its choices, shows hovered values and zooms, and that the
# console stayed clean. A negative control (a page with an empty plot, an explorer that never ran
# and a script error) must be caught by the same checks, so the test cannot pass vacuously.
#
# usage: browser_test.sh TEST_REPORT_EXECUTABLE
# Exit 0 pass, 1 fail, 77 skip (no Chromium installed).
set -u

test_exe=${1:?usage: browser_test.sh TEST_REPORT_EXECUTABLE}
chrome=""
for candidate in chromium chromium-browser google-chrome; do
  if command -v "$candidate" > /dev/null 2>&1; then chrome=$(command -v "$candidate"); break; fi
done
if [ -z "$chrome" ]; then
  echo "SKIP: no chromium on PATH (Debian: apt-get install chromium)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Headless Chromium without network, profile or background services.
browse() {
  "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --disable-extensions --user-data-dir="$work/profile" \
    --enable-logging=stderr --v=0 --virtual-time-budget=10000 "$@"
}

# For every inline plot: its rendered size and how many of its paths have length (a drawn line,
# band or heat-map cell). For every explorer (div.explorer): that its script runs it, that its first
# view draws data marks, that hovering a point shows its values, that the wheel zooms, and that
# every option of every control renders without error. The results are appended to the body,
# where --dump-dom shows them.
checker='<script id="plot-checker">
window.addEventListener("load", async () => {
  document.getElementById("plot-checker").remove();  // keep its source out of the dumped DOM
  const lines = [];
  document.querySelectorAll("svg.plot").forEach((svg, i) => {
    const box = svg.getBoundingClientRect();
    let drawn = 0;
    svg.querySelectorAll("path").forEach(p => { const b = p.getBBox(); if (b.width > 0 || b.height > 0) ++drawn; });
    lines.push("plot " + i + " " + (box.width > 50 && box.height > 50 && drawn > 0 ? "DREW" : "EMPTY") +
               " " + Math.round(box.width) + "x" + Math.round(box.height) + " paths=" + drawn);
  });
  const dataMarks = root => root.querySelectorAll(".explorer-view .mark-symbol path, .explorer-view .mark-line path").length;
  const explorers = window.rankoneExplorers || [];
  const divs = document.querySelectorAll("div.explorer").length;
  lines.push("explorers " + divs + " running " + explorers.length + (divs === explorers.length ? "" : " EXPLORER-FAIL"));
  for (const [i, e] of explorers.entries()) {
    try {
      await e.ready;
      const first = dataMarks(e.root);
      // Hover: the readout shows the values of the point under the pointer.
      const point = e.root.querySelector(".explorer-view .mark-symbol path");
      if (point) point.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
      const readout = e.root.querySelector(".explorer-readout").textContent;
      // Zoom: a wheel turn over the plot changes the y domain.
      const before = JSON.stringify(e.view.signal("ydom"));
      const svg = e.root.querySelector(".explorer-view svg");
      const box = svg.getBoundingClientRect();
      svg.dispatchEvent(new WheelEvent("wheel", {deltaY: 200, clientX: box.left + box.width / 2,
                                                 clientY: box.top + box.height / 2, bubbles: true, cancelable: true}));
      await e.view.runAsync();
      const zoomed = JSON.stringify(e.view.signal("ydom")) !== before;
      let renders = 0, failures = 0;
      const choose = async (select, value) => {
        select.value = value;
        select.dispatchEvent(new Event("change"));
        if (!(await e.ready)) ++failures;
        ++renders;
      };
      const kinds = e.root.querySelector("select[name=view]");
      for (const kind of Array.from(kinds.options).map(o => o.value)) {
        await choose(kinds, kind);
        for (const select of e.root.querySelectorAll(".explorer-controls select:not([name=view])"))
          for (const value of Array.from(select.options).map(o => o.value)) await choose(select, value);
      }
      const ok = first > 0 && readout.includes("estimator: ") && zoomed && failures === 0;
      lines.push("explorer " + i + " " + (ok ? "DREW" : "EXPLORER-FAIL") + " marks=" + first + " hover=" +
                 JSON.stringify(readout) + " zoomed=" + zoomed + " renders=" + renders + " failures=" + failures);
    } catch (error) {
      lines.push("explorer " + i + " EXPLORER-FAIL " + error);
    }
  }
  const pre = document.createElement("pre");
  pre.id = "plot-check";
  pre.textContent = "plots=" + lines.filter(l => l.startsWith("plot ")).length + "\n" + lines.join("\n");
  document.body.appendChild(pre);
});
</script>'

# check PAGE NAME: prints the number of plots; fails on an empty plot or a console error.
check_page() {
  local page=$1 name=$2
  { sed '/<\/body>/,$d' "$page"; printf '%s\n' "$checker" "</body></html>"; } > "$work/$name.check.html"
  browse --dump-dom "file://$work/$name.check.html" > "$work/$name.dom" 2> "$work/$name.log" || return 2
  local plots empty explorer_failures errors
  plots=$(sed -n 's/.*plots=\([0-9]*\).*/\1/p' "$work/$name.dom" | head -n1)
  empty=$(grep -c "EMPTY" "$work/$name.dom")
  explorer_failures=$(grep -c "EXPLORER-FAIL" "$work/$name.dom")
  errors=$(grep -E "Uncaught|ERROR:CONSOLE|:CONSOLE.*(Error|Failed|Refused)" "$work/$name.log" | head -n5)
  echo "$name: ${plots:-0} plots, $empty empty; $(grep -E "^explorers " "$work/$name.dom"), $explorer_failures failing"
  grep -E "^explorer [0-9]" "$work/$name.dom"
  [ -n "$errors" ] && echo "$name console: $errors"
  [ -n "$plots" ] && [ "$plots" -gt 0 ] && [ "$empty" -eq 0 ] && [ "$explorer_failures" -eq 0 ] && [ -z "$errors" ]
}

# Negative control: one drawn plot, one empty plot, an explorer that never ran, a script error.
cat > "$work/control.html" << 'EOF'
<!DOCTYPE html><html><body>
<svg class="plot" width="200" height="100"><path d="M10,10 L190,90" stroke="black"/></svg>
<svg class="plot" width="200" height="100"></svg>
<div class="explorer"><div class="explorer-controls"></div><div class="explorer-readout"></div><div class="explorer-view"></div></div>
<script>no_such_function();</script>
</body></html>
EOF
if check_page "$work/control.html" control > "$work/control.out"; then
  cat "$work/control.out"
  fail "the checks did not catch the negative control (empty plot, explorer not running, script error)"
fi
grep -q "plots=2" "$work/control.dom" || fail "the checker did not run on the negative control: $(head -c 400 "$work/control.dom")"
grep -q "explorers 1 running 0 EXPLORER-FAIL" "$work/control.dom" || fail "the checker missed the explorer that never ran"
grep -q "Uncaught" "$work/control.log" || fail "console errors are not visible in Chromium's log"

# The report: a folder with a 2-D spectral sweep and an iterative study.
RANKONE_REPORT_OUT="$work/report.html" "$test_exe" "[.browser]" > "$work/writer.log" 2>&1 ||
  { cat "$work/writer.log"; fail "could not write the report"; }
check_page "$work/report.html" report ||
  { grep -E "EMPTY|EXPLORER-FAIL" "$work/report.dom"; fail "a plot or an explorer did not draw, or the console reported errors"; }
grep -q "^explorers 2 running 2$" "$work/report.dom" || fail "the report's two explorers did not both run"

# A screenshot of the page as delivered (no checker script): it must render to a non-trivial PNG.
browse --screenshot="$work/report.png" --window-size=1400,2400 --hide-scrollbars "file://$work/report.html" \
  > /dev/null 2> "$work/shot.log" || fail "screenshot failed: $(tail -n5 "$work/shot.log")"
size=$(stat -c %s "$work/report.png" 2> /dev/null || echo 0)
[ "$size" -gt 20000 ] || fail "the screenshot is ($size bytes): the page did not render"
if grep -E "Uncaught|ERROR:CONSOLE" "$work/shot.log"; then fail "console errors while rendering the report"; fi
if [ -n "${RANKONE_REPORT_SCREENSHOT:-}" ]; then cp "$work/report.png" "$RANKONE_REPORT_SCREENSHOT"; fi
echo "PASS: report rendered ($size-byte screenshot)"
