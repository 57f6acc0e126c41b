// rankone report: the HTML page — a section per study with its tables, figures, explorer and
// provenance — written atomically.
#include <algorithm>
#include <set>
#include <sstream>

#include "explorer.hpp"
#include "figures.hpp"
#include "rankone/core/atomic_file.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/report/report.hpp"
#include "study.hpp"
#include "text.hpp"

namespace rankone {

AxisScale parse_axis_scale(const std::string& text) {
  if (text == "auto") return AxisScale::automatic;
  if (text == "linear") return AxisScale::linear;
  if (text == "log") return AxisScale::log;
  throw UsageError("axis scale: expected auto, linear or log, found '" + text + "'");
}

bool ReportOptions::is_valid(std::string* error) const {
  auto fail = [error](const std::string& what) {
    if (error) *error = "Invalid report options. Violated constraint: " + what;
    return false;
  };
  for (const auto& x : x_axes)
    if (x != "iteration" && x != "samples" && x != "seconds")
      return fail("every x axis is iteration, samples or seconds (found '" + x + "')");
  if (success_metric.has_value() != success_below.has_value())
    return fail("a success threshold needs both a metric and a value (--metric M --below X)");
  if (!(band_quantile >= 0.0 && band_quantile < 0.5)) return fail("0 <= band_quantile < 0.5");
  if (max_points_per_curve < 2) return fail("max_points_per_curve >= 2");
  return true;
}

namespace reporting {
namespace {

namespace fs = std::filesystem;

const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 1500px; padding: 0 24px 48px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; border-bottom: 2px solid #ddd; padding-bottom: 6px; }
h2 { font-size: 1.35em; margin-top: 2.2em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 1.1em; margin: 1.6em 0 0.3em; }
.meta { color: #555; }
.note { color: #555; font-size: 0.9em; margin: 0.2em 0 0.6em; max-width: 75em; }
.legend { margin: 0.3em 0 0.6em; }
.legend span.entry { margin-right: 18px; white-space: nowrap; }
.legend span.swatch { display: inline-block; width: 22px; height: 4px; vertical-align: middle; margin-right: 6px;
                      border-radius: 2px; }
.panels { display: grid; grid-template-columns: repeat(auto-fill, minmax(560px, 1fr)); gap: 12px 16px; }
figure.panel { margin: 0; border: 1px solid #eee; border-radius: 4px; padding: 6px; background: #fff; }
figure.panel.wide { grid-column: 1 / -1; }
figure.panel figcaption { font-size: 0.9em; color: #333; text-align: center; min-height: 1.2em; }
svg.plot { display: block; width: 100%; height: auto; }
figure.panel.wide svg.plot { max-width: 1300px; margin: 0 auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0 1em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; }
th { background: #f3f3f3; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
tr.all td { font-weight: 600; }
td.bad { color: #b00020; }
td.code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.95em; word-break: break-all; }
details pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 0.8em; }
nav li { margin: 0.2em 0; }
div.explorer { border: 1px solid #ddd; border-radius: 6px; padding: 10px 12px; background: #fcfcfc; }
.explorer-controls label { margin-right: 14px; white-space: nowrap; font-size: 0.9em; }
.explorer-controls select { font-size: 0.95em; margin-left: 2px; }
.explorer-readout { font-size: 0.9em; color: #333; min-height: 1.4em; margin: 6px 0; font-variant-numeric: tabular-nums; }
.explorer-view { min-height: 200px; }
)";

void write_legend(std::ostream& out, const std::vector<std::pair<std::size_t, std::string>>& legend) {
  if (legend.empty()) return;
  out << "<div class=\"legend\">";
  for (const auto& [colour, text] : legend)
    out << "<span class=\"entry\"><span class=\"swatch\" style=\"background:" << colour_of(colour) << "\"></span>"
        << html_escape(text) << "</span>";
  out << "</div>\n";
}

void write_figure(std::ostream& out, const Figure& f) {
  out << "<h3>" << html_escape(f.title) << "</h3>\n";
  if (!f.note.empty()) out << "<p class=\"note\">" << html_escape(f.note) << "</p>\n";
  write_legend(out, f.legend);
  out << "<div class=\"panels\">\n";
  for (const auto& p : f.panels) {
    const bool wide = p.width > 800;  // a panel drawn wide spans the row rather than being squeezed
    out << "<figure class=\"panel" << (wide ? " wide" : "") << "\"><figcaption>" << html_escape(p.caption)
        << "</figcaption>\n" << p.svg << "</figure>\n";
  }
  out << "</div>\n";
}

std::string td(const std::string& text, bool numeric = false, bool bad = false) {
  std::string cls = numeric ? (bad ? "num bad" : "num") : (bad ? "bad" : "");
  return "<td" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") + ">" + html_escape(text) + "</td>";
}

std::string anchor(std::size_t study, const std::string& part) { return "s" + std::to_string(study) + "-" + part; }

void write_status_table(std::ostream& out, const Study& s) {
  const std::vector<std::string> known = {"converged", "max_iterations", "stalled", "diverged", "failed"};
  std::map<std::string, std::map<std::string, std::size_t>> counts;
  std::map<std::string, double> seconds;
  std::set<std::string> statuses(known.begin(), known.end());
  for (const auto& t : s.trials) {
    ++counts[t.label][t.status];
    seconds[t.label] += t.seconds;
    statuses.insert(t.status);
  }
  out << "<table class=\"status\"><tr><th>estimator</th><th>trials</th>";
  for (const auto& st : statuses) out << "<th>" << html_escape(st) << "</th>";
  out << "<th>mean seconds / trial</th></tr>\n";
  for (const auto& label : s.labels) {
    if (!counts.count(label)) continue;
    std::size_t total = 0;
    for (const auto& [st, n] : counts[label]) total += n;
    out << "<tr>" << td(label) << td(std::to_string(total), true);
    for (const auto& st : statuses) {
      const std::size_t n = counts[label].count(st) ? counts[label][st] : 0;
      out << td(std::to_string(n), true, n > 0 && (st == "failed" || st == "diverged" || st == "stalled"));
    }
    out << td(number(seconds[label] / static_cast<double>(total)), true) << "</tr>\n";
  }
  out << "</table>\n";
  std::vector<const TrialRecord*> bad;
  for (const auto& t : s.trials)
    if (t.status == "failed" || t.status == "diverged" || t.status == "stalled") bad.push_back(&t);
  if (bad.empty()) return;
  constexpr std::size_t kShown = 20;
  out << "<p class=\"note\">Failed, diverged or stalled trials" << (bad.size() > kShown ? " (first " + std::to_string(kShown) + ")" : "")
      << ":</p>\n<table><tr><th>estimator</th><th>cell</th><th>repetition</th><th>status</th><th>iteration</th><th>message</th></tr>\n";
  for (std::size_t i = 0; i < std::min(bad.size(), kShown); ++i) {
    const auto& t = *bad[i];
    out << "<tr>" << td(t.label) << td(s.cell_text(t.cell, s.varying_axes())) << td(std::to_string(t.repetition), true)
        << td(t.status, false, true) << td(std::to_string(t.iterations), true) << td(t.message) << "</tr>\n";
  }
  out << "</table>\n";
}

/// Summary rows ordered by their cell's sweep values (numeric order), then by label.
std::vector<const SummaryRow*> ordered_rows(const Study& s, const std::string& metric) {
  std::vector<const SummaryRow*> rows;
  for (const auto& r : s.summary)
    if (r.metric == metric) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [&s](const SummaryRow* a, const SummaryRow* b) {
    const auto& pa = s.position.at(a->cell);
    const auto& pb = s.position.at(b->cell);
    return pa != pb ? pa < pb : s.find_label(a->label) < s.find_label(b->label);
  });
  return rows;
}

void write_summary_tables(std::ostream& out, const Study& s, const std::vector<std::size_t>& metrics) {
  const auto varying = s.varying_axes();
  for (std::size_t m : metrics) {
    const std::string& metric = s.metrics[m];
    const bool success = s.success_metric && *s.success_metric == metric;
    out << "<h3>" << html_escape(metric) << "</h3>\n<table class=\"summary\" data-metric=\"" << html_escape(metric)
        << "\"><tr>";
    for (std::size_t a : varying) out << "<th>" << html_escape(s.axes[a].name()) << "</th>";
    out << "<th>estimator</th><th>n</th><th>failed</th><th>stalled</th><th>median</th><th>mean</th><th>geometric mean</th>"
           "<th>95 % CI</th><th>CI of</th><th>sd</th>";
    if (success)
      out << "<th>success rate</th><th>reached</th><th>samples to target</th><th>seconds to target</th>";
    out << "<th>flags</th></tr>\n";
    for (const SummaryRow* row : ordered_rows(s, metric)) {
      const SummaryRow& r = *row;
      out << "<tr>";
      for (std::size_t a : varying) out << td(value_text(s.axes[a].values[s.position.at(r.cell)[a]]), s.axes[a].numeric);
      out << td(r.label) << td(std::to_string(r.trials), true) << td(std::to_string(r.failures), true, r.failures > 0)
          << td(std::to_string(r.stalled), true, r.stalled > 0) << td(number(r.median), true) << td(number(r.mean), true)
          << td(r.geometric_mean ? number(*r.geometric_mean) : "", true)
          << td(r.trials > 1 ? "[" + number(r.ci_low) + ", " + number(r.ci_high) + "]" : "", true)
          << td(r.trials > 1 ? (r.ci_log_scale ? "geometric mean" : "mean") : "")
          << td(r.trials > 1 ? number(r.sd, 3) : "", true);
      if (success)
        out << td(r.success_rate ? number(*r.success_rate, 3) : "", true) << td(std::to_string(r.reached_target), true)
            << td(r.samples_to_target ? number(*r.samples_to_target) : "", true)
            << td(r.seconds_to_target ? number(*r.seconds_to_target) : "", true);
      out << td(r.flags, false, !r.flags.empty()) << "</tr>\n";
    }
    out << "</table>\n";
  }
}

void write_paired_table(std::ostream& out, const Study& s, const PairedComparison& c) {
  const auto varying = s.varying_axes();
  out << "<table class=\"paired\"><tr><th>quantity</th><th>cell</th><th>estimator</th><th>pairs</th>"
         "<th>geometric mean ratio</th><th>95 % CI</th><th>median ratio</th><th>ratio &lt; 1</th></tr>\n";
  for (const auto& r : c.rows) {
    out << "<tr" << (r.cell ? "" : " class=\"all\"") << " data-quantity=\"" << html_escape(r.quantity) << "\" data-label=\""
        << html_escape(s.labels[r.label]) << "\">" << td(r.quantity)
        << td(r.cell ? s.cell_text(*r.cell, varying) : "all cells") << td(s.labels[r.label]) << td(std::to_string(r.pairs), true)
        << "<td class=\"num\" data-value=\"" << number(r.geometric_mean.centre, 17) << "\">"
        << html_escape(number(r.geometric_mean.centre)) << "</td>"
        << td(r.pairs > 1 ? "[" + number(r.geometric_mean.low) + ", " + number(r.geometric_mean.high) + "]" : "", true)
        << td(number(r.median), true) << td(std::to_string(r.below_one) + "/" + std::to_string(r.pairs), true) << "</tr>\n";
  }
  out << "</table>\n";
}

void write_paired(std::ostream& out, std::size_t index, const Study& s, const StudyFigures& f) {
  const PairedComparison& c = *f.comparison;
  out << "<h2 id=\"" << anchor(index, "paired") << "\">Paired comparison against " << html_escape(c.baseline) << " — "
      << html_escape(s.name) << "</h2>\n"
      << "<p class=\"note\">Trials of one sweep cell and repetition see the same data, so each estimator's outcome is "
         "divided by the baseline's on the same (cell, repetition): below 1 means smaller than the baseline's (for errors, "
         "samples and seconds: better). The geometric mean ratio and its 95 % CI come from a t-interval of the log ratios. "
         "Choose the baseline with <code>--baseline LABEL</code>.</p>\n";
  if (!c.note.empty()) out << "<p class=\"note\">" << html_escape(c.note) << "</p>\n";
  write_paired_table(out, s, c);
  if (!c.unpaired.empty()) {
    std::string names;
    for (const auto& q : c.unpaired) names += (names.empty() ? "" : ", ") + q;
    out << "<p class=\"note\">No pair for " << html_escape(names)
        << ": in no repetition did both the estimator and the baseline reach the target.</p>\n";
  }
  for (const auto& fig : f.paired) write_figure(out, fig);
}

void write_provenance(std::ostream& out, std::size_t index, const Study& s) {
  out << "<h2 id=\"" << anchor(index, "provenance") << "\">Provenance — " << html_escape(s.name) << "</h2>\n"
      << "<p class=\"note\">Each <code>rankone run</code> into this folder, with the build that ran it, and the code of "
         "the stored trials (core library and plugins: version and content fingerprint).</p>\n";
  out << "<table class=\"runs\"><tr><th>run</th><th>started (UTC)</th><th>ended</th><th>status</th><th>trials</th>"
         "<th>RankOne</th><th>git commit</th><th>compiler</th><th>flags</th><th>host</th><th>libraries</th><th>command</th></tr>\n";
  std::set<std::string> builds;
  for (const auto& r : s.runs) {
    std::string libraries;
    for (auto it = r.libraries.begin(); it != r.libraries.end(); ++it)
      if (it.key() != "rankone") libraries += (libraries.empty() ? "" : ", ") + it.key() + " " + value_text(it.value());
    const std::string version = r.libraries.contains("rankone") ? value_text(r.libraries["rankone"]) : "";
    builds.insert(r.git_commit + "|" + r.compiler + "|" + r.flags);
    out << "<tr>" << td(std::to_string(r.id), true) << td(r.started) << td(r.ended) << td(r.status, false, r.status != "completed")
        << td(std::to_string(r.trials), true) << td(version) << "<td class=\"code\">" << html_escape(r.git_commit) << "</td>"
        << td(r.compiler) << "<td class=\"code\">" << html_escape(r.flags) << "</td>" << td(r.host) << td(libraries)
        << "<td class=\"code\">" << html_escape(r.command) << "</td></tr>\n";
  }
  out << "</table>\n";
  if (builds.size() > 1)
    out << "<p class=\"note\">The runs differ in commit, compiler or flags: the trials come from " << builds.size()
        << " builds.</p>\n";
  if (!s.code.empty()) {
    std::map<std::string, std::size_t> versions_of_role;
    for (const auto& c : s.code) ++versions_of_role[c.role];
    out << "<table class=\"code\"><tr><th>code</th><th>version</th><th>fingerprint</th><th>library</th><th>trials</th></tr>\n";
    for (const auto& c : s.code) {
      const bool mixed = versions_of_role[c.role] > 1;  // trials of one role built from different code
      out << "<tr>" << td(c.role, false, mixed) << td(c.version, false, mixed) << "<td class=\"code\">"
          << html_escape(c.fingerprint) << "</td><td class=\"code\">" << html_escape(c.library) << "</td>"
          << td(std::to_string(c.trials), true) << "</tr>\n";
    }
    out << "</table>\n";
  }
  if (!s.damage.empty()) {
    out << "<p class=\"note\">The store reported damage:</p><ul>\n";
    for (const auto& d : s.damage) out << "<li>" << html_escape(d) << "</li>\n";
    out << "</ul>\n";
  }
}

void write_explorer(std::ostream& out, std::size_t index, const Study& s, const StudyFigures& f, const VegaRuntime* vega) {
  out << "<h2 id=\"" << anchor(index, "explore") << "\">Explore — " << html_escape(s.name) << "</h2>\n";
  if (!vega) {
    out << "<p class=\"note\">No interactive explorer: the report was written without it (--static).</p>\n";
    return;
  }
  if (!vega->missing.empty()) {
    out << "<p class=\"note\">No interactive explorer: " << html_escape(vega->missing) << ".</p>\n";
    return;
  }
  out << "<p class=\"note\">Choose what to plot: the curves of a metric in one sweep cell, or the final value (or the samples "
         "and seconds to the target) of every repetition across a sweep axis. Hover a point for its values; drag to pan, "
         "scroll to zoom, double-click to reset.</p>\n"
      << "<div class=\"explorer\" id=\"" << anchor(index, "explorer") << "\">\n<div class=\"explorer-controls\"></div>\n"
      << "<div class=\"explorer-readout\">Hover a point to read its values.</div>\n<div class=\"explorer-view\"></div>\n"
      << "<noscript><p class=\"note\">The explorer needs JavaScript; the figures below do not.</p></noscript>\n"
      << "<script type=\"application/json\" class=\"explorer-data\">" << explorer_data(s, f) << "</script>\n</div>\n";
}

void write_study(std::ostream& out, std::size_t index, const Study& s, const StudyFigures& f, const VegaRuntime* vega) {
  out << "<section class=\"study\" id=\"" << anchor(index, "study") << "\">\n<h2>" << html_escape(s.name) << "</h2>\n";
  if (!s.description.empty()) out << "<p>" << html_escape(s.description) << "</p>\n";
  std::string axes_text;
  for (std::size_t a : s.varying_axes())
    axes_text += (axes_text.empty() ? "" : " × ") + s.axes[a].name() + " (" + std::to_string(s.axes[a].values.size()) + ")";
  out << "<p class=\"meta\">Folder <code>" << html_escape(s.folder.string()) << "</code>: " << s.trials.size()
      << " trials, " << s.cells.size() << " sweep cell" << (s.cells.size() == 1 ? "" : "s")
      << (axes_text.empty() ? "" : " (" + html_escape(axes_text) + ")") << ", " << s.labels.size() << " estimator"
      << (s.labels.size() == 1 ? "" : "s") << ", " << s.repetitions << " repetition" << (s.repetitions == 1 ? "" : "s")
      << ".";
  if (s.success_metric)
    out << " Success: final " << html_escape(*s.success_metric) << " &lt; " << html_escape(number(*s.success_below)) << ".";
  out << "</p>\n";

  out << "<h3 id=\"" << anchor(index, "status") << "\">Trials</h3>\n";
  write_status_table(out, s);
  write_explorer(out, index, s, f, vega);

  if (!f.heatmaps.empty()) {
    out << "<h2 id=\"" << anchor(index, "phase") << "\">Phase transitions — " << html_escape(s.name) << "</h2>\n";
    for (const auto& fig : f.heatmaps) write_figure(out, fig);
  } else if (s.varying_axes().size() >= 2 && !s.success_metric) {
    out << "<p class=\"note\">No phase-transition heat map: the experiment declares no \"success\" section "
           "(pass --metric M --below X).</p>\n";
  }
  if (!f.sweeps.empty()) {
    out << "<h2 id=\"" << anchor(index, "sweeps") << "\">Final values across the sweep — " << html_escape(s.name) << "</h2>\n";
    for (const auto& fig : f.sweeps) write_figure(out, fig);
  }
  if (!f.per_repetition.empty()) {
    out << "<h2 id=\"" << anchor(index, "finals") << "\">Final values per repetition — " << html_escape(s.name) << "</h2>\n";
    for (const auto& fig : f.per_repetition) write_figure(out, fig);
  }
  if (!f.targets.empty()) {
    out << "<h2 id=\"" << anchor(index, "targets") << "\">Samples and seconds to the target — " << html_escape(s.name) << "</h2>\n";
    for (const auto& fig : f.targets) write_figure(out, fig);
  }
  if (f.comparison) write_paired(out, index, s, f);
  out << "<h2 id=\"" << anchor(index, "curves") << "\">Curves — " << html_escape(s.name) << "</h2>\n";
  if (!f.skipped_curves.empty()) {
    std::string xs;
    for (const auto& x : f.skipped_curves) xs += (xs.empty() ? "" : ", ") + x;
    out << "<p class=\"note\">No curves against " << html_escape(xs)
        << ": every trial recorded a single point (one-shot estimators); see the final values above.</p>\n";
  }
  for (const auto& fig : f.curves) write_figure(out, fig);

  out << "<h2 id=\"" << anchor(index, "tables") << "\">Summary tables — " << html_escape(s.name) << "</h2>\n"
      << "<p class=\"note\">Final values per sweep cell and estimator over repetitions (as <code>rankone summarize</code>), "
         "rows in the order of the sweep values. The 95 % CI is Student's t for the mean; for a positive metric whose values "
         "span a decade or more (or whose t-interval would reach zero) it is that of the geometric mean — a t-interval of "
         "the logarithms, exponentiated — so it never goes negative (column \"CI of\").</p>\n";
  write_summary_tables(out, s, f.metrics);
  write_provenance(out, index, s);
  out << "<details><summary>Experiment (as stored with the latest run)</summary><pre>" << html_escape(s.experiment.dump(2))
      << "</pre></details>\n</section>\n";
}

std::vector<fs::path> study_folders(const fs::path& dir) {
  if (!fs::is_directory(dir)) throw InputError(dir.string() + ": no such folder");
  if (ResultsStore::exists(dir)) return {dir};
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.is_directory() && ResultsStore::exists(entry.path())) out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  if (out.empty())
    throw InputError(dir.string() + ": no results database here (expected " + ResultsStore::database_path(dir).string() +
                     " or subfolders holding one)");
  return out;
}

/// A --baseline that no study has is a typo, not a choice: refuse it with the labels there are.
void check_baseline(const std::vector<Study>& studies, const std::string& baseline) {
  if (baseline.empty()) return;
  std::set<std::string> labels;
  for (const auto& s : studies)
    for (const auto& o : s.outcomes) labels.insert(o.label);
  if (labels.count(baseline)) return;
  std::string known;
  for (const auto& l : labels) known += (known.empty() ? "" : ", ") + l;
  throw UsageError("--baseline " + baseline + ": no estimator has this label (labels: " + known + ")");
}

}  // namespace
}  // namespace reporting

void write_report(const std::filesystem::path& results_dir, const std::filesystem::path& html_out,
                  const ReportOptions& options) {
  using namespace reporting;
  std::string error;
  if (!options.is_valid(&error)) throw UsageError(error);
  std::vector<Study> studies;
  for (const auto& folder : study_folders(results_dir)) studies.push_back(load_study(folder, options));
  check_baseline(studies, options.baseline);

  std::vector<StudyFigures> figures;
  std::vector<Panel*> panels;
  for (const auto& s : studies) figures.push_back(build_figures(s, options));
  for (auto& f : figures)
    for (auto* group : {&f.heatmaps, &f.sweeps, &f.per_repetition, &f.targets, &f.paired, &f.curves})
      for (auto& fig : *group)
        for (auto& p : fig.panels) panels.push_back(&p);
  render_panels(panels, options);
  std::optional<VegaRuntime> vega;
  if (options.interactive) vega = load_vega(options.vega_dir);
  const bool scripts = vega && vega->missing.empty();

  std::string title = options.title;
  if (title.empty()) {
    title = "RankOne report:";
    for (std::size_t i = 0; i < studies.size(); ++i) title += (i ? ", " : " ") + studies[i].name;
  }
  std::ostringstream html;
  html << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" << html_escape(title)
       << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n<h1>" << html_escape(title) << "</h1>\n";
  html << "<nav><ul>\n";
  for (std::size_t i = 0; i < studies.size(); ++i) {
    const auto link = [&](const std::string& part, const std::string& text) {
      html << "<a href=\"#" << anchor(i, part) << "\">" << text << "</a>";
    };
    html << "<li><a href=\"#" << anchor(i, "study") << "\">" << html_escape(studies[i].name) << "</a>: ";
    link("explore", "explore");
    if (!figures[i].heatmaps.empty()) html << " · ", link("phase", "phase transitions");
    if (!figures[i].sweeps.empty()) html << " · ", link("sweeps", "sweeps");
    html << " · ", link("finals", "per repetition");
    if (!figures[i].targets.empty()) html << " · ", link("targets", "to target");
    if (figures[i].comparison) html << " · ", link("paired", "paired");
    html << " · ", link("curves", "curves");
    html << " · ", link("tables", "tables");
    html << " · ", link("provenance", "provenance");
    html << "</li>\n";
  }
  html << "</ul></nav>\n";
  for (std::size_t i = 0; i < studies.size(); ++i) write_study(html, i, studies[i], figures[i], vega ? &*vega : nullptr);
  html << "<p class=\"note\">Written by <code>rankone report</code>; static plots drawn by gnuplot"
       << (scripts ? ", the explorer by Vega (inlined from Debian's libjs-vega, BSD-3-Clause)" : "") << ".</p>\n";
  if (scripts) html << "<script>" << vega->script << "</script>\n<script>" << explorer_script() << "</script>\n";
  html << "</body>\n</html>\n";

  if (html_out.has_parent_path()) std::filesystem::create_directories(html_out.parent_path());
  AtomicFile out(html_out);  // a reader never sees a half-written page; a failed write keeps the old one
  out.stream() << html.str();
  out.commit();
}

}  // namespace rankone
