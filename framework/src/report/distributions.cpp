// Figures of per-repetition values as dot plots: final values, samples and seconds to the
// success target, and the ratios of paired trials against a baseline estimator.
#include <algorithm>
#include <cmath>
#include <set>

#include "figures.hpp"
#include "text.hpp"

namespace rankone::reporting {

namespace {

/// At most this many dots per group are drawn (evenly spaced order statistics); the box and the
/// interval use every value.
constexpr std::size_t kMaxDotsPerGroup = 200;

/// What one (cell, label) group of a dot plot shows.
struct GroupValues {
  std::vector<double> values;
  std::string note;
  bool box = true;
  bool interval = false;  ///< draw the geometric mean with its 95 % CI
};

using GroupKey = std::pair<std::size_t, std::size_t>;  // cell, label index

DotGroup dot_group(GroupValues g, std::size_t colour) {
  DotGroup d;
  d.colour = colour;
  d.note = std::move(g.note);
  d.box = g.box;
  auto& v = g.values;
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  std::sort(v.begin(), v.end());
  if (!v.empty()) {
    d.q1 = quantile(v, 0.25);
    d.median = quantile(v, 0.5);
    d.q3 = quantile(v, 0.75);
  }
  if (g.interval && v.size() > 1) d.interval = geometric_interval_95(v);
  if (v.size() > kMaxDotsPerGroup) {
    std::vector<double> shown;
    for (std::size_t i = 0; i < kMaxDotsPerGroup; ++i)
      shown.push_back(v[i * (v.size() - 1) / (kMaxDotsPerGroup - 1)]);
    v = std::move(shown);
  }
  d.values = std::move(v);
  return d;
}

/// A figure of dot plots from values per (cell, label): along x the values of the first varying
/// axis (or, without one, the labels), within each a group per label; one panel per combination
/// of the other varying axes.
Figure dot_figure(const Study& s, std::map<GroupKey, GroupValues> groups, const std::string& ylabel, AxisScale y_scale,
                  std::optional<double> reference) {
  Figure f;
  const auto varying = s.varying_axes();
  const bool by_axis = !varying.empty();  // without a varying axis, the labels are the categories
  const std::size_t category_axis = by_axis ? varying.front() : 0;
  const std::vector<std::size_t> others(varying.empty() ? varying.end() : varying.begin() + 1, varying.end());
  std::set<std::size_t> labels;
  for (const auto& [key, g] : groups) labels.insert(key.second);
  std::map<std::size_t, std::size_t> slot;  // label → its place within a category
  for (std::size_t l : labels) slot.emplace(l, slot.size());
  const double slot_width = by_axis ? 0.8 / static_cast<double>(std::max<std::size_t>(1, labels.size())) : 0.8;

  std::map<std::vector<std::size_t>, std::size_t> panel_of;  // other positions → panel
  for (std::size_t cell : s.ordered_cells()) {
    std::vector<std::size_t> key;
    for (std::size_t a : others) key.push_back(s.position.at(cell)[a]);
    for (std::size_t l : labels) {
      auto it = groups.find({cell, l});
      if (it == groups.end()) continue;
      auto [at, fresh] = panel_of.try_emplace(key, f.panels.size());
      if (fresh) {
        Panel p;
        p.kind = PanelKind::dots;
        p.caption = s.cell_text(cell, others);
        p.ylabel = ylabel;
        p.reference_y = reference;
        if (by_axis) {
          p.xlabel = s.axes[category_axis].name();
          for (const auto& v : s.axes[category_axis].values) p.xticks.push_back(value_text(v));
        } else {
          p.xlabel = "estimator";
          for (std::size_t label : labels) p.xticks.push_back(s.labels[label]);
        }
        const auto slots = by_axis ? p.xticks.size() * labels.size() : labels.size();
        p.width = std::clamp(200 + 55 * static_cast<int>(slots), 600, 1300);
        f.panels.push_back(std::move(p));
      }
      DotGroup d = dot_group(std::move(it->second), l);
      d.x = by_axis ? static_cast<double>(s.position.at(cell)[category_axis]) - 0.4 +
                                (static_cast<double>(slot[l]) + 0.5) * slot_width
                          : static_cast<double>(slot[l]);
      d.half_width = 0.35 * slot_width;
      f.panels[at->second].groups.push_back(std::move(d));
    }
  }
  for (std::size_t l : labels) f.legend.push_back({l, s.labels[l]});
  fit_dot_ranges(f.panels, y_scale);
  return f;
}

std::string panels_text(const Study& s) {
  const auto varying = s.varying_axes();
  if (varying.empty()) return "";
  std::string text = " Groups along " + s.axes[varying.front()].name();
  if (varying.size() > 1) text += "; one panel per value of the other sweep axes";
  return text + ".";
}

}  // namespace

Figure per_repetition_figure(const Study& s, std::size_t metric, const ReportOptions& o) {
  const std::string& name = s.metrics[metric];
  std::map<GroupKey, GroupValues> groups;
  for (const auto& outcome : s.outcomes)
    if (auto it = outcome.finals.find(name); it != outcome.finals.end())
      groups[{outcome.cell, s.find_label(outcome.label)}].values.push_back(it->second);
  Figure f = dot_figure(s, std::move(groups), "final " + name, o.y_scale, std::nullopt);
  f.title = "final " + name + " per repetition";
  f.note = "One dot per trial: its value at its last recorded iteration (one-shot estimators have only this one); "
           "box: quartiles, thick bar: median." + panels_text(s);
  return f;
}

std::vector<Figure> target_figures(const Study& s, const ReportOptions& o) {
  if (!s.success_metric) return {};
  std::vector<Figure> figures;
  const std::string target = *s.success_metric + " < " + number(*s.success_below);
  for (const std::string& quantity : {kSamplesToTarget, kSecondsToTarget}) {
    std::map<GroupKey, GroupValues> groups;
    std::map<GroupKey, std::pair<std::size_t, std::size_t>> reached;  // (reached, attempts)
    for (const auto& outcome : s.outcomes) {
      const GroupKey key{outcome.cell, s.find_label(outcome.label)};
      ++reached[key].second;
      if (const auto v = quantity_of(outcome, quantity)) {
        groups[key].values.push_back(*v);
        ++reached[key].first;
      }
    }
    if (groups.empty()) continue;
    for (auto& [key, g] : groups) g.note = std::to_string(reached[key].first) + "/" + std::to_string(reached[key].second);
    Figure f = dot_figure(s, std::move(groups), quantity, o.y_scale, std::nullopt);
    f.title = quantity + " (" + target + ")";
    f.note = "One dot per trial that reached " + target + ": the " + (quantity == kSamplesToTarget ? "samples" : "seconds") +
             " at its first recorded point below the threshold; box: quartiles, thick bar: median; above each group, "
             "the trials that reached the target out of all attempts." + panels_text(s);
    figures.push_back(std::move(f));
  }
  return figures;
}

std::optional<PairedComparison> paired_comparison(const Study& s, const std::vector<std::size_t>& metrics,
                                                  const ReportOptions& o, std::vector<Figure>& figures) {
  std::vector<std::string> present;  // labels with trials, in experiment order
  for (const auto& label : s.labels)
    if (std::any_of(s.outcomes.begin(), s.outcomes.end(), [&](const TrialOutcome& t) { return t.label == label; }))
      present.push_back(label);
  if (present.size() < 2) return std::nullopt;
  PairedComparison c;
  const bool has_requested = std::find(present.begin(), present.end(), o.baseline) != present.end();
  c.baseline = has_requested ? o.baseline : present.front();
  // write_report refuses a baseline no study has; a folder of studies may have it in some only.
  if (!o.baseline.empty() && !has_requested)
    c.note = "This study has no estimator labelled " + o.baseline + " (--baseline): its first label is the baseline.";

  std::vector<std::string> quantities;
  for (std::size_t m : metrics) quantities.push_back(s.metrics[m]);
  if (s.success_metric) quantities.insert(quantities.end(), {kSamplesToTarget, kSecondsToTarget});
  for (const auto& quantity : quantities) {
    const auto ratios = paired_ratios(s.outcomes, c.baseline, quantity);
    if (ratios.empty()) {
      c.unpaired.push_back(quantity);
      continue;
    }
    std::map<GroupKey, GroupValues> groups;
    std::map<std::size_t, std::vector<double>> all_cells;  // label → every ratio
    for (const auto& r : ratios) {
      const std::size_t label = s.find_label(r.label);
      auto& g = groups[{r.cell, label}];
      g.values.push_back(r.ratio);
      g.box = false;
      g.interval = true;
      all_cells[label].push_back(r.ratio);
    }
    const auto add_row = [&](std::optional<std::size_t> cell, std::size_t label, std::vector<double> values) {
      PairedRow row;
      row.quantity = quantity;
      row.cell = cell;
      row.label = label;
      row.pairs = values.size();
      row.geometric_mean = geometric_interval_95(values);
      row.median = median_of(values);
      row.below_one = static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [](double v) { return v < 1.0; }));
      c.rows.push_back(std::move(row));
    };
    for (const auto& [label, values] : all_cells) {
      add_row(std::nullopt, label, values);
      if (s.cells.size() > 1)
        for (std::size_t cell : s.ordered_cells())
          if (auto it = groups.find({cell, label}); it != groups.end()) add_row(cell, label, it->second.values);
    }
    for (auto& [key, g] : groups) g.note = std::to_string(g.values.size());
    Figure f = dot_figure(s, std::move(groups), quantity + " / " + c.baseline, AxisScale::log, 1.0);
    f.title = quantity + ": ratio to " + c.baseline + " per repetition";
    f.note = "One dot per repetition: the estimator's " + quantity + " divided by " + c.baseline +
             "'s on the same cell and repetition (the same data); diamond and bar: geometric mean ratio and its 95 % CI; "
             "dashed line: equal. Above each group, the number of pairs." + panels_text(s);
    figures.push_back(std::move(f));
  }
  return c;
}

StudyFigures build_figures(const Study& s, const ReportOptions& o) {
  StudyFigures f;
  f.metrics = plotted_metrics(s, o);
  if (auto h = heatmap_figure(s)) f.heatmaps.push_back(std::move(*h));
  for (std::size_t a : s.varying_axes())
    if (s.axes[a].numeric)
      for (std::size_t m : f.metrics) f.sweeps.push_back(sweep_figure(s, m, a, o));
  for (std::size_t m : f.metrics) f.per_repetition.push_back(per_repetition_figure(s, m, o));
  f.targets = target_figures(s, o);
  f.comparison = paired_comparison(s, f.metrics, o, f.paired);
  for (const auto& x : o.x_axes) {
    bool any = false;
    for (std::size_t m : f.metrics)
      if (auto c = curve_figure(s, m, x, o)) {
        f.curves.push_back(std::move(*c));
        any = true;
      }
    if (!any) f.skipped_curves.push_back(x);
  }
  return f;
}

}  // namespace rankone::reporting
