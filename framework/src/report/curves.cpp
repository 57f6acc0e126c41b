// Figures of aggregated values: metric curves against iteration / samples / seconds, final values
// against a numeric sweep axis, and phase-transition heat maps of the success rate.
#include <algorithm>
#include <set>

#include "figures.hpp"
#include "rankone/core/errors.hpp"
#include "text.hpp"

namespace rankone::reporting {

std::string band_text(const ReportOptions& o, int repetitions) {
  const std::string band = o.band_quantile == 0.0
                               ? "min–max"
                               : number(100 * o.band_quantile, 3) + "–" + number(100 * (1 - o.band_quantile), 3) + " % quantiles";
  return "Median and " + band + " over " + std::to_string(repetitions) + " repetition" + (repetitions == 1 ? "" : "s");
}

std::vector<std::size_t> plotted_metrics(const Study& s, const ReportOptions& o) {
  std::vector<std::size_t> out;
  if (o.metrics.empty()) {
    for (std::size_t m = 0; m < s.metrics.size(); ++m)
      if (s.metrics[m] != "samples" && s.metrics[m] != "seconds") out.push_back(m);
    return out;
  }
  for (const auto& name : o.metrics) {
    auto it = std::find(s.metrics.begin(), s.metrics.end(), name);
    if (it == s.metrics.end()) {
      std::string known;
      for (const auto& m : s.metrics) known += (known.empty() ? "" : ", ") + m;
      throw UsageError("metric '" + name + "' is not recorded in " + s.folder.string() + " (recorded: " + known + ")");
    }
    out.push_back(static_cast<std::size_t>(it - s.metrics.begin()));
  }
  return out;
}

std::optional<Figure> curve_figure(const Study& s, std::size_t metric, const std::string& x_axis, const ReportOptions& o) {
  Figure f;
  f.title = s.metrics[metric] + " vs " + x_axis;
  const auto varying = s.varying_axes();
  bool informative = false;
  std::set<std::size_t> labels;
  for (std::size_t cell : s.ordered_cells()) {
    Panel p;
    p.caption = s.cell_text(cell, varying);
    p.xlabel = x_axis;
    p.ylabel = s.metrics[metric];
    for (std::size_t l = 0; l < s.labels.size(); ++l) {
      auto it = s.curves.find({cell, l, metric});
      if (it == s.curves.end()) continue;
      Series series{l, {}};
      std::set<double> distinct_x;
      for (const auto& c : it->second) {
        const double x = x_axis == "iteration" ? c.iteration : x_axis == "samples" ? c.samples : c.seconds;
        series.rows.push_back({x, c.y.median, c.y.low, c.y.high});
        distinct_x.insert(x);
      }
      informative = informative || distinct_x.size() > 1;
      labels.insert(l);
      p.series.push_back(std::move(series));
    }
    if (!p.series.empty()) f.panels.push_back(std::move(p));
  }
  if (!informative) return std::nullopt;
  for (std::size_t l : labels) f.legend.push_back({l, s.labels[l]});
  // Iterations start at 0, so only samples and seconds are candidates for an automatic log axis.
  fit_ranges(f.panels, x_axis == "iteration" && o.x_scale == AxisScale::automatic ? AxisScale::linear : o.x_scale,
             o.y_scale, 2.0, 0.0, o.max_points_per_curve);
  f.note = band_text(o, s.repetitions) + "; one panel per sweep cell.";
  return f;
}

/// With one estimator label and one other varying axis of at most ten values, one panel with a
/// curve per value of that axis; otherwise one panel per combination of the other varying axes,
/// a curve per label.
Figure sweep_figure(const Study& s, std::size_t metric, std::size_t axis, const ReportOptions& o) {
  Figure f;
  f.title = "final " + s.metrics[metric] + " vs " + s.axes[axis].name();
  std::vector<std::size_t> others;
  for (std::size_t a : s.varying_axes())
    if (a != axis) others.push_back(a);
  std::set<std::size_t> labels_present;
  for (const auto& [key, band] : s.finals)
    if (std::get<2>(key) == metric) labels_present.insert(std::get<1>(key));
  const bool overlay = labels_present.size() == 1 && others.size() == 1 && s.axes[others[0]].values.size() <= 10;

  // panel key (other positions, or none when overlaid) → colour index → series
  std::map<std::vector<std::size_t>, std::map<std::size_t, Series>> groups;
  std::map<std::vector<std::size_t>, std::size_t> representative;
  for (std::size_t cell : s.ordered_cells()) {
    std::vector<std::size_t> key;
    for (std::size_t a : others) key.push_back(s.position.at(cell)[a]);
    if (overlay) key.clear();
    representative.emplace(key, cell);
    const double x = s.axes[axis].values[s.position.at(cell)[axis]].get<double>();
    for (std::size_t l = 0; l < s.labels.size(); ++l) {
      auto it = s.finals.find({cell, l, metric});
      if (it == s.finals.end()) continue;
      const std::size_t colour = overlay ? s.position.at(cell)[others[0]] : l;
      auto& series = groups[key][colour];
      series.colour = colour;
      series.rows.push_back({x, it->second.median, it->second.low, it->second.high});
    }
  }
  std::set<std::size_t> colours;
  for (auto& [key, by_colour] : groups) {
    Panel p;
    p.caption = overlay ? s.labels[*labels_present.begin()] : others.empty() ? "" : s.cell_text(representative[key], others);
    p.xlabel = s.axes[axis].name();
    p.ylabel = "final " + s.metrics[metric];
    if (overlay) p.width = 720, p.height = 460;
    for (auto& [colour, series] : by_colour) {
      std::sort(series.rows.begin(), series.rows.end());
      colours.insert(colour);
      p.series.push_back(std::move(series));
    }
    f.panels.push_back(std::move(p));
  }
  for (std::size_t c : colours)
    f.legend.push_back({c, overlay ? s.axes[others[0]].name() + " = " + value_text(s.axes[others[0]].values[c]) : s.labels[c]});
  fit_ranges(f.panels, o.x_scale, o.y_scale, 1.3, 0.03, o.max_points_per_curve);
  f.note = "Value at each trial's last recorded iteration. " + band_text(o, s.repetitions) +
           (overlay ? "; one curve per value of " + s.axes[others[0]].name() + "."
                    : others.empty() ? "." : "; one panel per value of the other sweep axes.");
  return f;
}

/// The success rate over the first two varying axes, one heat map per label (and per combination
/// of further axes); rows and columns in the axes' (numeric) order.
std::optional<Figure> heatmap_figure(const Study& s) {
  const auto varying = s.varying_axes();
  if (varying.size() < 2 || !s.success_metric) return std::nullopt;
  const std::size_t ax = varying[0], ay = varying[1];
  const std::vector<std::size_t> others(varying.begin() + 2, varying.end());
  std::map<std::pair<std::size_t, std::vector<std::size_t>>, Panel> panels;  // (label, other positions)
  for (const auto& r : s.summary) {
    if (r.metric != *s.success_metric || !r.success_rate) continue;
    const std::size_t l = s.find_label(r.label);
    const auto& pos = s.position.at(r.cell);
    std::vector<std::size_t> key;
    for (std::size_t a : others) key.push_back(pos[a]);
    Panel& p = panels[{l, key}];
    if (p.kind != PanelKind::heatmap) {
      p.kind = PanelKind::heatmap;
      p.caption = r.label + (others.empty() ? "" : " — " + s.cell_text(r.cell, others));
      p.xlabel = s.axes[ax].name();
      p.ylabel = s.axes[ay].name();
      for (const auto& v : s.axes[ax].values) p.xticks.push_back(value_text(v));
      for (const auto& v : s.axes[ay].values) p.yticks.push_back(value_text(v));
      p.width = std::max(560, 90 * static_cast<int>(p.xticks.size()) + 240);
      p.height = std::max(380, 48 * static_cast<int>(p.yticks.size()) + 150);
    }
    p.cells.push_back({static_cast<double>(pos[ax]), static_cast<double>(pos[ay]), *r.success_rate});
  }
  if (panels.empty()) return std::nullopt;
  Figure f;
  f.title = "Phase transition: success rate (" + *s.success_metric + " < " + number(*s.success_below) + ")";
  f.note = "Fraction of all attempts (failed, diverged and stalled trials count as failures) whose final " + *s.success_metric +
           " is below " + number(*s.success_below) + "; one heat map per estimator label.";
  for (auto& [key, p] : panels) f.panels.push_back(std::move(p));
  return f;
}

}  // namespace rankone::reporting
