// The interactive explorer: Vega's modules inlined with a minimal module loader, each study's data
// as JSON, and the script that turns controls into Vega views.
#include "explorer.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "rankone/core/errors.hpp"
#include "text.hpp"

namespace rankone::reporting {

namespace fs = std::filesystem;

namespace {

/// Debian's libjs-vega ships Vega as separate UMD modules (no single bundle): each file below,
/// loaded under the module name its dependants require (vega-selection.js provides
/// "vega-selections"). These are the modules a View of lines, areas, symbols and rules needs.
const std::vector<std::pair<const char*, const char*>> kVegaModules = {
    {"vega-util", "vega-util.min.js"},
    {"vega-time", "vega-time.min.js"},
    {"vega-format", "vega-format.min.js"},
    {"vega-loader", "vega-loader.min.js"},
    {"vega-dataflow", "vega-dataflow.min.js"},
    {"vega-scale", "vega-scale.min.js"},
    {"vega-canvas", "vega-canvas.min.js"},
    {"vega-scenegraph", "vega-scenegraph.min.js"},
    {"vega-expression", "vega-expression.min.js"},
    {"vega-selections", "vega-selection.min.js"},
    {"vega-statistics", "vega-statistics.min.js"},
    {"vega-functions", "vega-functions.min.js"},
    {"vega-event-selector", "vega-event-selector.min.js"},
    {"vega-parser", "vega-parser.min.js"},
    {"vega-runtime", "vega-runtime.min.js"},
    {"vega-view", "vega-view.min.js"},
    {"vega-transforms", "vega-transforms.min.js"},
    {"vega-view-transforms", "vega-view-transforms.min.js"},
    {"vega-encode", "vega-encode.min.js"},
};

/// Collects the modules' AMD `define` calls by name, then instantiates them on demand; the Vega
/// namespace is the union of the modules' exports with the transforms registered, as Vega's own
/// top-level package does.
const char* kLoaderPrelude = R"js(
(function () {
  const modules = {};
  let current = null;
  window.define = function (deps, factory) { modules[current] = {deps: deps, factory: factory}; };
  window.define.amd = true;
  window.rankoneModule = function (name) { current = name; };
  window.rankoneRequire = function require(name) {
    const m = modules[name];
    if (!m) throw new Error("Vega module missing from the page: " + name);
    if (!m.exports) {
      m.exports = {};
      m.factory.apply(null, m.deps.map(function (d) { return d === "exports" ? m.exports : require(d); }));
    }
    return m.exports;
  };
})();
)js";

const char* kLoaderEpilogue = R"js(
window.rankoneVega = (function (require) {
  delete window.define;
  const vega = {};
  ["vega-util", "vega-dataflow", "vega-scale", "vega-scenegraph", "vega-functions", "vega-parser", "vega-runtime",
   "vega-view"].forEach(function (name) { Object.assign(vega, require(name)); });
  Object.assign(require("vega-dataflow").transforms, require("vega-transforms"), require("vega-view-transforms"),
                require("vega-encode"));
  return vega;
})(window.rankoneRequire);
)js";

/// Curves in the explorer keep at most this many points (evenly in index, the last always).
constexpr std::size_t kExplorerPointsPerCurve = 150;

/// Six significant digits: the explorer shows four, and the page stays small.
double compact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return std::strtod(buf, nullptr);
}

}  // namespace

VegaRuntime load_vega(const fs::path& folder) {
  fs::path dir = folder;
  if (dir.empty()) {
    const char* env = std::getenv("RANKONE_VEGA_DIR");
    dir = env && *env ? fs::path(env) : fs::path("/usr/share/javascript/vega");
  }
  VegaRuntime runtime;
  std::ostringstream script;
  script << kLoaderPrelude;
  for (const auto& [name, file] : kVegaModules) {
    std::ifstream in(dir / file, std::ios::binary);
    if (!in) {
      // A folder the user named must hold them; Debian's own missing only leaves the explorer out.
      if (const char* env = std::getenv("RANKONE_VEGA_DIR"); folder.empty() && env && *env)
        throw InputError("RANKONE_VEGA_DIR: " + (dir / file).string() + " not found (expected the folder of Vega's modules, "
                         "e.g. /usr/share/javascript/vega)");
      runtime.missing = (dir / file).string() + " not found (Debian: apt-get install libjs-vega, or scripts/setup; "
                        "or point RANKONE_VEGA_DIR at the folder of Vega's modules)";
      return runtime;
    }
    std::ostringstream text;
    text << in.rdbuf();
    // A module text holding "</script" would end the inline element early: refuse it rather than break the page.
    if (text.str().find("</script") != std::string::npos) {
      runtime.missing = (dir / file).string() + " contains \"</script\" and cannot be inlined";
      return runtime;
    }
    script << "rankoneModule(\"" << name << "\");\n" << text.str() << "\n";
  }
  script << kLoaderEpilogue;
  runtime.script = script.str();
  return runtime;
}

std::string explorer_data(const Study& s, const StudyFigures& f) {
  Json d;
  d["labels"] = s.labels;
  Json colours = Json::array();
  for (std::size_t l = 0; l < s.labels.size(); ++l) colours.push_back(colour_of(l));
  d["colours"] = colours;
  const auto varying = s.varying_axes();
  d["axes"] = Json::array();
  for (std::size_t a : varying) {
    Json texts = Json::array();
    for (const auto& v : s.axes[a].values) texts.push_back(value_text(v));
    d["axes"].push_back({{"name", s.axes[a].name()}, {"texts", texts}});
  }
  const auto cells = s.ordered_cells();
  std::map<std::size_t, std::size_t> explorer_cell;
  d["cells"] = Json::array();
  for (std::size_t cell : cells) {
    Json at = Json::array();
    for (std::size_t a : varying) at.push_back(s.position.at(cell)[a]);
    explorer_cell[cell] = explorer_cell.size();
    d["cells"].push_back({{"text", s.cell_text(cell, varying)}, {"at", at}});
  }

  Json metrics = Json::array();
  for (std::size_t m : f.metrics) metrics.push_back(s.metrics[m]);
  d["metrics"] = metrics;
  bool informative_curves = false;
  for (const auto& [key, curve] : s.curves) informative_curves = informative_curves || curve.size() > 1;
  Json curves = {{"cell", Json::array()}, {"label", Json::array()}, {"metric", Json::array()}, {"iteration", Json::array()},
                 {"samples", Json::array()}, {"seconds", Json::array()}, {"median", Json::array()}, {"low", Json::array()},
                 {"high", Json::array()}};
  if (informative_curves)
    for (std::size_t cell : cells)
      for (std::size_t l = 0; l < s.labels.size(); ++l)
        for (std::size_t m = 0; m < f.metrics.size(); ++m) {
          const auto it = s.curves.find({cell, l, f.metrics[m]});
          if (it == s.curves.end()) continue;
          const auto& points = it->second;
          std::set<std::size_t> keep;
          for (std::size_t j = 0; j < std::min(points.size(), kExplorerPointsPerCurve); ++j)
            keep.insert(points.size() <= kExplorerPointsPerCurve ? j : j * (points.size() - 1) / (kExplorerPointsPerCurve - 1));
          for (std::size_t j : keep) {
            const CurvePoint& p = points[j];
            curves["cell"].push_back(explorer_cell[cell]);
            curves["label"].push_back(l);
            curves["metric"].push_back(m);
            curves["iteration"].push_back(p.iteration);
            curves["samples"].push_back(compact(p.samples));
            curves["seconds"].push_back(compact(p.seconds));
            curves["median"].push_back(compact(p.y.median));
            curves["low"].push_back(compact(p.y.low));
            curves["high"].push_back(compact(p.y.high));
          }
        }
  d["curves"] = curves;

  std::vector<std::string> quantities;
  for (std::size_t m : f.metrics) quantities.push_back(s.metrics[m]);
  if (s.success_metric) quantities.insert(quantities.end(), {kSamplesToTarget, kSecondsToTarget});
  d["quantities"] = quantities;
  Json finals = {{"cell", Json::array()}, {"label", Json::array()}, {"quantity", Json::array()},
                 {"repetition", Json::array()}, {"value", Json::array()}};
  for (const auto& o : s.outcomes)
    for (std::size_t q = 0; q < quantities.size(); ++q) {
      const auto v = quantity_of(o, quantities[q]);
      if (!v || !std::isfinite(*v)) continue;
      finals["cell"].push_back(explorer_cell[o.cell]);
      finals["label"].push_back(s.find_label(o.label));
      finals["quantity"].push_back(q);
      finals["repetition"].push_back(o.repetition);
      finals["value"].push_back(compact(*v));
    }
  d["finals"] = finals;
  return json_for_script(d);
}

const char* explorer_script() {
  return R"js(
(function () {
  "use strict";
  const vega = window.rankoneVega;
  // Every explorer of the page, with its current view and a promise of its latest rendering (tests await it).
  const explorers = window.rankoneExplorers = [];

  function rowsOf(columns) {
    const keys = Object.keys(columns), n = keys.length ? columns[keys[0]].length : 0, rows = new Array(n);
    for (let i = 0; i < n; ++i) {
      const row = {};
      for (const k of keys) row[k] = columns[k][i];
      rows[i] = row;
    }
    return rows;
  }
  function control(parent, name, choices) {  // choices: [value, text] pairs
    const label = document.createElement("label");
    label.textContent = name + " ";
    const select = document.createElement("select");
    select.name = name;
    for (const [value, text] of choices) {
      const option = document.createElement("option");
      option.value = String(value);
      option.textContent = text;
      select.appendChild(option);
    }
    label.appendChild(select);
    parent.appendChild(label);
    return select;
  }
  function fmt(v) {
    if (typeof v !== "number") return String(v);
    return Number.isInteger(v) && Math.abs(v) < 1e9 ? String(v) : v.toPrecision(4);
  }
  function minMax(values) {
    let lo = Infinity, hi = -Infinity;
    for (const v of values) { if (v < lo) lo = v; if (v > hi) hi = v; }
    return [lo, hi];
  }
  // Log when every value is positive and they span `decades` decades (as the static plots choose).
  function wantsLog(choice, values, decades) {
    if (choice !== "auto") return choice === "log";
    if (!values.length || values.some(v => !(v > 0))) return false;
    const [lo, hi] = minMax(values);
    return hi / lo >= Math.pow(10, decades);
  }
  function extent(values, log) {
    const v = values.filter(x => Number.isFinite(x) && (!log || x > 0));
    if (!v.length) return log ? [0.1, 10] : [0, 1];
    const [lo, hi] = minMax(v);
    if (log) return lo === hi ? [lo / 2, hi * 2] : [lo / Math.pow(hi / lo, 0.04), hi * Math.pow(hi / lo, 0.04)];
    const pad = (hi - lo) * 0.04 || Math.abs(lo) * 0.1 || 1;
    return [lo - pad, hi + pad];
  }
  function tipText(tip) { return Object.keys(tip).map(k => k + ": " + tip[k]).join(" · "); }

  // Drag pans, the wheel zooms (about the pointer), a double click restores the initial domains.
  function zoomSignals(zoomX, xLog, xExt, yLog, yExt) {
    const pan = (log, domain, delta) => (log ? "panLog(" : "panLinear(") + domain + ", " + delta + ")";
    const zoom = (log, domain, anchor) => (log ? "zoomLog(" : "zoomLinear(") + domain + ", " + anchor + ", zoom)";
    const signals = [
      {name: "down", value: null, on: [{events: "mousedown", update: "xy()"}, {events: "window:mouseup", update: "null"}]},
      {name: "ycur", value: null, on: [{events: "mousedown", update: "slice(ydom)"}]},
      {name: "delta", value: [0, 0], on: [{
        events: [{source: "window", type: "mousemove", consume: true,
                  between: [{type: "mousedown"}, {source: "window", type: "mouseup"}]}],
        update: "down ? [down[0] - x(), y() - down[1]] : [0, 0]"}]},
      {name: "anchor", value: [0, 0], on: [{events: "wheel",
        update: zoomX ? "[invert('x', x()), invert('y', y())]" : "[0, invert('y', y())]"}]},
      {name: "zoom", value: 1, on: [{events: "wheel!", force: true, update: "pow(1.001, event.deltaY * pow(16, event.deltaMode))"}]},
      {name: "ydom", value: yExt, on: [
        {events: {signal: "delta"}, update: pan(yLog, "ycur", "delta[1] / height")},
        {events: {signal: "zoom"}, update: zoom(yLog, "ydom", "anchor[1]")},
        {events: "dblclick", update: JSON.stringify(yExt)}]}
    ];
    if (zoomX) {
      signals.push({name: "xcur", value: null, on: [{events: "mousedown", update: "slice(xdom)"}]});
      signals.push({name: "xdom", value: xExt, on: [
        {events: {signal: "delta"}, update: pan(xLog, "xcur", "delta[0] / width")},
        {events: {signal: "zoom"}, update: zoom(xLog, "xdom", "anchor[0]")},
        {events: "dblclick", update: JSON.stringify(xExt)}]});
    }
    return signals;
  }
  function colourScale(data) { return {name: "colour", type: "ordinal", domain: data.labels, range: data.colours}; }
  const legend = {stroke: "colour", fill: "colour", orient: "top", direction: "horizontal", symbolType: "circle", labelFontSize: 13};
  // A log axis labels its decades as 1e-6 rather than 0.000001.
  function axis(orient, scale, title, log) {
    const a = {orient: orient, scale: scale, title: title, labelFontSize: 12, titleFontSize: 13, grid: true, gridColor: "#e8e8e8"};
    if (log) a.format = "~e";
    return a;
  }

  function curvesSpec(data, rows, o) {
    const at = field => ({scale: field === "x" ? "x" : "y", field: field});
    return {
      width: o.width, height: o.height, padding: 8, autosize: "pad",
      signals: zoomSignals(true, o.xLog, o.xExt, o.yLog, o.yExt),
      data: [{name: "points", values: rows}],
      scales: [
        {name: "x", type: o.xLog ? "log" : "linear", domain: {signal: "xdom"}, range: "width", zero: false, nice: false},
        {name: "y", type: o.yLog ? "log" : "linear", domain: {signal: "ydom"}, range: "height", zero: false, nice: false},
        colourScale(data)],
      axes: [axis("bottom", "x", o.xName, o.xLog), axis("left", "y", o.yName, o.yLog)],
      legends: [legend],
      marks: [{type: "group", encode: {enter: {width: {signal: "width"}, height: {signal: "height"}, clip: {value: true}}},
        marks: [
          {type: "group", from: {facet: {name: "series", data: "points", groupby: "label"}}, marks: [
            {type: "area", from: {data: "series"}, encode: {update: {x: at("x"), y: at("low"), y2: at("high"),
              fill: {scale: "colour", field: "label"}, fillOpacity: {value: 0.18}}}},
            {type: "line", from: {data: "series"}, encode: {update: {x: at("x"), y: at("median"),
              stroke: {scale: "colour", field: "label"}, strokeWidth: {value: 2}}}}]},
          {type: "symbol", from: {data: "points"}, encode: {update: {x: at("x"), y: at("median"),
            fill: {scale: "colour", field: "label"}, size: {value: 30}, tooltip: {signal: "datum.tip"}},
            hover: {size: {value: 120}}}}]}]
    };
  }

  function finalsSpec(data, rows, medians, o) {
    // Within a category, each label has its slot (one slot when the categories are the labels).
    const centre = share => ({signal: "scale('x', datum.category) + scale('dodge', datum.slot) + bandwidth('dodge') * " + share});
    return {
      width: o.width, height: o.height, padding: 8, autosize: "pad",
      signals: zoomSignals(false, false, null, o.yLog, o.yExt),
      data: [{name: "dots", values: rows}, {name: "medians", values: medians}],
      scales: [
        {name: "x", type: "band", domain: o.categories, range: "width", paddingInner: 0.15, paddingOuter: 0.05},
        {name: "dodge", type: "band", domain: o.slots, range: [0, {signal: "bandwidth('x')"}], paddingInner: 0.1},
        {name: "y", type: o.yLog ? "log" : "linear", domain: {signal: "ydom"}, range: "height", zero: false, nice: false},
        colourScale(data)],
      axes: [Object.assign(axis("bottom", "x", o.xName, false), {grid: false}), axis("left", "y", o.yName, o.yLog)],
      legends: [legend],
      marks: [{type: "group", encode: {enter: {width: {signal: "width"}, height: {signal: "height"}, clip: {value: true}}},
        marks: [
          {type: "group", from: {facet: {name: "trend", data: "medians", groupby: "label"}}, marks: [
            {type: "line", from: {data: "trend"}, encode: {update: {x: centre("0.5"), y: {scale: "y", field: "median"},
              stroke: {scale: "colour", field: "label"}, strokeWidth: {value: 1}, strokeDash: {value: [4, 3]}}}}]},
          {type: "rule", from: {data: "medians"}, encode: {update: {x: centre("0.1"), x2: centre("0.9"),
            y: {scale: "y", field: "median"}, stroke: {scale: "colour", field: "label"}, strokeWidth: {value: 3},
            tooltip: {signal: "datum.tip"}}}},
          {type: "symbol", from: {data: "dots"}, encode: {update: {x: {signal: "scale('x', datum.category) + " +
              "scale('dodge', datum.slot) + bandwidth('dodge') * (0.5 + 0.35 * datum.jitter)"},
            y: {scale: "y", field: "value"}, fill: {scale: "colour", field: "label"}, fillOpacity: {value: 0.75},
            size: {value: 36}, tooltip: {signal: "datum.tip"}}, hover: {size: {value: 140}}}}]}]
    };
  }

  function setup(root) {
    const data = JSON.parse(root.querySelector("script.explorer-data").textContent);
    const controls = root.querySelector(".explorer-controls");
    const target = root.querySelector(".explorer-view");
    const readout = root.querySelector(".explorer-readout");
    const curves = rowsOf(data.curves), finals = rowsOf(data.finals);
    const kinds = [];
    if (curves.length) kinds.push(["curves", "curves over a run"]);
    if (finals.length) kinds.push(["finals", "final values per repetition"]);
    if (!kinds.length) { readout.textContent = "Nothing to explore: no trial recorded a value."; return; }
    const explorer = {root: root, view: null, ready: Promise.resolve()};
    explorers.push(explorer);
    const kind = control(controls, "view", kinds);
    const choices = document.createElement("span");
    controls.appendChild(choices);
    let selects = {};

    function makeControls() {
      choices.textContent = "";
      selects = {};
      if (kind.value === "curves") {
        selects.metric = control(choices, "metric", data.metrics.map((m, i) => [i, m]));
        selects.x = control(choices, "x", [["iteration", "iteration"], ["samples", "samples"], ["seconds", "seconds"]]);
        selects.cell = control(choices, "cell", data.cells.map((c, i) => [i, c.text || "(one cell)"]));
        selects.xscale = control(choices, "x scale", [["auto", "auto"], ["linear", "linear"], ["log", "log"]]);
      } else {
        selects.quantity = control(choices, "quantity", data.quantities.map((q, i) => [i, q]));
        selects.x = control(choices, "x", data.axes.length ? data.axes.map((a, i) => [i, a.name]) : [[-1, "estimator"]]);
        data.axes.forEach((a, i) => { selects["axis" + i] = control(choices, a.name, a.texts.map((t, j) => [j, t])); });
      }
      selects.yscale = control(choices, "y scale", [["auto", "auto"], ["log", "log"], ["linear", "linear"]]);
      Object.values(selects).forEach(s => s.addEventListener("change", render));
    }

    function curvesView(width) {
      const metric = +selects.metric.value, cell = +selects.cell.value, x = selects.x.value;
      let rows = curves.filter(r => r.metric === metric && r.cell === cell && Number.isFinite(r[x]));
      const xLog = wantsLog(selects.xscale.value, x === "iteration" ? [] : rows.map(r => r[x]), 2);
      const yLog = wantsLog(selects.yscale.value, rows.map(r => r.median), 1);
      rows = rows.filter(r => (!xLog || r[x] > 0) && (!yLog || r.median > 0));
      const floor = yLog ? minMax(rows.map(r => r.median))[0] / 10 : -Infinity;
      const points = rows.map(r => ({
        label: data.labels[r.label], x: r[x], median: r.median, low: Math.max(r.low, floor), high: r.high,
        tip: {estimator: data.labels[r.label], [x]: fmt(r[x]), median: fmt(r.median), band: "[" + fmt(r.low) + ", " + fmt(r.high) + "]"}
      })).sort((a, b) => a.x - b.x);
      return curvesSpec(data, points, {
        width: width, height: 440, xName: x, yName: data.metrics[metric], xLog: xLog, yLog: yLog,
        xExt: extent(points.map(p => p.x), xLog), yExt: extent(points.flatMap(p => [p.median, p.low, p.high]), yLog)});
    }

    function finalsView(width) {
      const quantity = +selects.quantity.value, axis = +selects.x.value;
      // The x axis's selector is moot; the others fix their axis's value.
      data.axes.forEach((a, i) => { selects["axis" + i].parentNode.style.display = i === axis ? "none" : ""; });
      const inView = r => r.quantity === quantity && data.axes.every((a, i) => i === axis || data.cells[r.cell].at[i] === +selects["axis" + i].value);
      let rows = finals.filter(inView);
      const yLog = wantsLog(selects.yscale.value, rows.map(r => r.value), 1);
      if (yLog) rows = rows.filter(r => r.value > 0);
      const categoryOf = r => axis < 0 ? data.labels[r.label] : data.axes[axis].texts[data.cells[r.cell].at[axis]];
      const categories = axis < 0 ? data.labels.filter((l, i) => rows.some(r => r.label === i)) : data.axes[axis].texts;
      const slotOf = r => axis < 0 ? "" : data.labels[r.label];
      const slots = axis < 0 ? [""] : data.labels.filter((l, i) => rows.some(r => r.label === i));
      const groups = new Map();
      const dots = rows.map((r, i) => {
        const dot = {label: data.labels[r.label], slot: slotOf(r), category: categoryOf(r), value: r.value,
          jitter: 2 * ((0.5 + i * 0.6180339887) % 1) - 1,
          tip: {estimator: data.labels[r.label], cell: data.cells[r.cell].text || "(one cell)", repetition: r.repetition,
                [data.quantities[quantity]]: fmt(r.value)}};
        const key = dot.label + "\u0000" + dot.category;
        if (!groups.has(key)) groups.set(key, {label: dot.label, slot: dot.slot, category: dot.category, values: []});
        groups.get(key).values.push(r.value);
        return dot;
      });
      const medians = Array.from(groups.values()).map(g => {
        const v = g.values.sort((a, b) => a - b), mid = (v.length - 1) / 2;
        const median = (v[Math.floor(mid)] + v[Math.ceil(mid)]) / 2;
        return {label: g.label, slot: g.slot, category: g.category, median: median, order: categories.indexOf(g.category),
                tip: {estimator: g.label, at: g.category, median: fmt(median), repetitions: v.length}};
      }).sort((a, b) => a.order - b.order);
      return finalsSpec(data, dots, medians, {
        width: width, height: 440, xName: axis < 0 ? "estimator" : data.axes[axis].name, yName: data.quantities[quantity],
        yLog: yLog, yExt: extent(rows.map(r => r.value), yLog), categories: categories, slots: slots});
    }

    function render() {
      if (explorer.view) explorer.view.finalize();
      target.textContent = "";
      const width = Math.max(520, Math.min(1200, (target.clientWidth || 900) - 100));
      const spec = kind.value === "curves" ? curvesView(width) : finalsView(width);
      const view = new vega.View(vega.parse(spec), {renderer: "svg", container: target, hover: true});
      view.addEventListener("mouseover", (event, item) => {
        if (item && item.datum && item.datum.tip) readout.textContent = tipText(item.datum.tip);
      });
      explorer.view = view;
      explorer.ready = view.runAsync().then(() => view, error => {
        readout.textContent = "The explorer failed: " + error.message;
        console.error(error);
      });
    }
    kind.addEventListener("change", () => { makeControls(); render(); });
    makeControls();
    render();
  }

  document.querySelectorAll("div.explorer").forEach(setup);
})();
)js";
}

}  // namespace rankone::reporting
