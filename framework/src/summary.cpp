// Aggregation of trials into per-cell statistics (rankone summarize).
#include "rankone/store/summary.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "rankone/core/errors.hpp"

namespace rankone {

double t_quantile_975(std::size_t df) {
  static const double table[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return std::nan("");
  if (df <= 30) return table[df - 1];
  return 1.959964 + 2.4 / static_cast<double>(df);  // within 0.002 of the exact quantile above 30
}

namespace {

struct MeanAndSd {
  double mean = 0.0, sd = 0.0;
};

MeanAndSd mean_and_sd(const std::vector<double>& values) {
  const double n = static_cast<double>(values.size());
  double sum = 0.0;
  for (double v : values) sum += v;
  const double mean = sum / n;
  double squares = 0.0;
  for (double v : values) squares += (v - mean) * (v - mean);
  return {mean, values.size() > 1 ? std::sqrt(squares / (n - 1.0)) : 0.0};
}

/// Half the width of the 95 % t-interval of the mean of n values with standard deviation sd.
double t_half_width(std::size_t n, double sd) {
  return n > 1 ? t_quantile_975(n - 1) * sd / std::sqrt(static_cast<double>(n)) : 0.0;
}

}  // namespace

Interval95 geometric_interval_95(const std::vector<double>& values) {
  Interval95 out;
  out.log_scale = true;
  std::vector<double> logs;
  for (double v : values) logs.push_back(v > 0.0 ? std::log(v) : std::nan(""));
  if (logs.empty()) return {std::nan(""), std::nan(""), std::nan(""), true};
  const MeanAndSd m = mean_and_sd(logs);
  const double half = t_half_width(logs.size(), m.sd);
  out.centre = std::exp(m.mean);
  out.low = std::exp(m.mean - half);
  out.high = std::exp(m.mean + half);
  return out;
}

Interval95 interval_95(const std::vector<double>& values) {
  if (values.empty()) return {std::nan(""), std::nan(""), std::nan(""), false};
  const MeanAndSd m = mean_and_sd(values);
  const double half = t_half_width(values.size(), m.sd);
  const auto [lowest, highest] = std::minmax_element(values.begin(), values.end());
  const bool positive = *lowest > 0.0;
  if (values.size() > 1 && positive && (*highest / *lowest >= kLogIntervalSpan || m.mean - half <= 0.0))
    return geometric_interval_95(values);
  return {m.mean, m.mean - half, m.mean + half, false};
}

std::vector<SummaryRow> summarize(const ResultsStore& store, const SummaryOptions& options) {
  // The threshold is a pair: the command line's replaces the experiment's whole, never half of it
  // (a metric from one with the value from the other would test a threshold nobody asked for).
  if (options.success_metric.has_value() != options.success_below.has_value())
    throw UsageError("a success threshold needs both a metric and a value (--metric M --below X)");
  SummaryOptions opts = options;
  const Json exp = store.latest_experiment();
  if (!opts.success_metric && exp.contains("success")) {
    opts.success_metric = exp["success"]["metric"].get<std::string>();
    opts.success_below = exp["success"]["below"].get<double>();
  }

  struct Group {
    Json coordinates;
    std::vector<double> finals;
    std::vector<double> samples_to_target, seconds_to_target;
    std::size_t success = 0;
  };
  std::map<std::tuple<std::size_t, std::string, std::string>, Group> groups;
  std::map<std::pair<std::size_t, std::string>, std::size_t> failures, stalled, attempts;
  std::map<std::pair<std::size_t, std::string>, std::vector<double>> spectrum_ratios;

  for (const auto& t : store.trials(true)) {
    const bool broken = t.status == "failed" || t.status == "diverged";
    const bool bad = broken || t.status == "stalled";  // a stalled run ended far from a fit: no success
    if (broken) ++failures[{t.cell, t.label}];
    if (t.status == "stalled") ++stalled[{t.cell, t.label}];
    ++attempts[{t.cell, t.label}];
    if (const auto s = t.diagnostics.find("singular_values"); s != t.diagnostics.end() && s->is_array() && s->size() > 1) {
      const double first = s->front().get<double>();
      const double last = s->back().get<double>();
      if (first > 0.0) spectrum_ratios[{t.cell, t.label}].push_back(last / first);
    }
    std::map<std::string, const Point*> last;
    std::map<std::string, const Point*> first_below;
    for (const auto& p : t.points) {
      auto& l = last[p.metric];
      if (!l || p.iteration >= l->iteration) l = &p;
      if (opts.success_metric && p.metric == *opts.success_metric && p.value < *opts.success_below && !first_below.count(p.metric))
        first_below[p.metric] = &p;
    }
    for (const auto& [metric, p] : last) {
      Group& g = groups[{t.cell, t.label, metric}];
      g.coordinates = t.coordinates;
      g.finals.push_back(p->value);
      if (opts.success_metric && metric == *opts.success_metric) {
        if (!bad && p->value < *opts.success_below) ++g.success;
        if (auto it = first_below.find(metric); it != first_below.end()) {
          g.samples_to_target.push_back(static_cast<double>(it->second->samples));
          g.seconds_to_target.push_back(it->second->seconds);
        }
      }
    }
  }

  if (options.success_metric) {  // a misspelt metric would otherwise print no success columns, silently
    std::set<std::string> recorded;
    for (const auto& [key, g] : groups) recorded.insert(std::get<2>(key));
    if (!recorded.empty() && !recorded.count(*options.success_metric)) {
      std::string names;
      for (const auto& m : recorded) names += (names.empty() ? "" : ", ") + m;
      throw UsageError("--metric " + *options.success_metric + ": no trial recorded this metric (recorded: " + names + ")");
    }
  }

  std::vector<SummaryRow> rows;
  for (auto& [key, g] : groups) {
    SummaryRow r;
    std::tie(r.cell, r.label, r.metric) = key;
    r.coordinates = g.coordinates;
    r.trials = g.finals.size();
    r.failures = failures[{r.cell, r.label}];
    r.stalled = stalled[{r.cell, r.label}];
    if (auto& ratios = spectrum_ratios[{r.cell, r.label}]; !ratios.empty()) {
      std::sort(ratios.begin(), ratios.end());
      const std::size_t h = ratios.size();
      const double median = h % 2 ? ratios[h / 2] : 0.5 * (ratios[h / 2 - 1] + ratios[h / 2]);
      if (median < kRankOverSpecifiedRatio) {
        std::ostringstream os;
        os << std::setprecision(2) << "rank over-specified? σ_k/σ_1 = " << median;
        r.flags = os.str();
      }
    }
    const MeanAndSd moments = mean_and_sd(g.finals);
    r.mean = moments.mean;
    r.sd = moments.sd;
    const Interval95 ci = interval_95(g.finals);
    r.ci_low = ci.low;
    r.ci_high = ci.high;
    r.ci_log_scale = ci.log_scale;
    if (std::all_of(g.finals.begin(), g.finals.end(), [](double v) { return v > 0.0; }))
      r.geometric_mean = geometric_interval_95(g.finals).centre;
    std::sort(g.finals.begin(), g.finals.end());
    const std::size_t m = g.finals.size();
    r.median = m % 2 ? g.finals[m / 2] : 0.5 * (g.finals[m / 2 - 1] + g.finals[m / 2]);
    if (opts.success_metric && r.metric == *opts.success_metric) {
      // Every attempt counts, including failed trials that recorded no value.
      r.success_rate = static_cast<double>(g.success) / static_cast<double>(attempts[{r.cell, r.label}]);
      r.reached_target = g.samples_to_target.size();
      if (!g.samples_to_target.empty()) {
        double s = 0.0, sec = 0.0;
        for (std::size_t i = 0; i < g.samples_to_target.size(); ++i) {
          s += g.samples_to_target[i];
          sec += g.seconds_to_target[i];
        }
        r.samples_to_target = s / static_cast<double>(g.samples_to_target.size());
        r.seconds_to_target = sec / static_cast<double>(g.seconds_to_target.size());
      }
    }
    rows.push_back(std::move(r));
  }
  return rows;
}

namespace {

std::string number(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

std::string optional_number(const std::optional<double>& v) { return v ? number(*v) : ""; }

/// What the 95 % CI columns bound.
std::string ci_of(const SummaryRow& r) { return r.ci_log_scale ? "geometric_mean" : "mean"; }

}  // namespace

std::string value_text(const Json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string coordinates_text(const Json& coordinates) {
  std::string s;
  for (auto it = coordinates.begin(); it != coordinates.end(); ++it)
    s += (s.empty() ? "" : " ") + it.key() + "=" + value_text(it.value());
  return s;
}

void write_summary(const std::vector<SummaryRow>& rows, const std::string& format, std::ostream& out, bool all_columns) {
  std::vector<std::string> header = {"cell", "coordinates", "estimator", "metric", "n", "failed", "stalled", "mean",
                                     "sd", "ci95_low", "ci95_high", "ci95_of", "median", "success_rate", "reached",
                                     "samples_to_target", "seconds_to_target", "flags"};
  std::vector<std::vector<std::string>> body;
  for (const auto& r : rows)
    body.push_back({std::to_string(r.cell), coordinates_text(r.coordinates), r.label, r.metric, std::to_string(r.trials),
                    std::to_string(r.failures), std::to_string(r.stalled), number(r.mean), number(r.sd), number(r.ci_low),
                    number(r.ci_high), ci_of(r), number(r.median), optional_number(r.success_rate),
                    r.success_rate ? std::to_string(r.reached_target) : "", optional_number(r.samples_to_target),
                    optional_number(r.seconds_to_target), r.flags});
  // A column no row fills (coordinates of a single cell, the success columns without a target) is
  // noise in a table; the JSON leaves such fields out too.
  if (!all_columns && !body.empty()) {
    std::vector<bool> filled(header.size(), false);
    for (const auto& f : body)
      for (std::size_t i = 0; i < f.size(); ++i) filled[i] = filled[i] || !f[i].empty();
    const auto keep = [&](std::vector<std::string>& v) {
      std::vector<std::string> kept;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (filled[i]) kept.push_back(std::move(v[i]));
      v = std::move(kept);
    };
    keep(header);
    for (auto& f : body) keep(f);
  }
  if (format == "json") {
    Json arr = Json::array();
    for (const auto& r : rows) {
      Json j = {{"cell", r.cell}, {"coordinates", r.coordinates}, {"estimator", r.label}, {"metric", r.metric},
                {"n", r.trials}, {"failed", r.failures}, {"stalled", r.stalled}, {"mean", r.mean}, {"sd", r.sd}, {"ci95_low", r.ci_low},
                {"ci95_high", r.ci_high}, {"ci95_of", ci_of(r)}, {"median", r.median}};
      if (r.geometric_mean) j["geometric_mean"] = *r.geometric_mean;
      if (r.success_rate) {
        j["success_rate"] = *r.success_rate;
        j["reached"] = r.reached_target;
      }
      if (r.samples_to_target) j["samples_to_target"] = *r.samples_to_target;
      if (r.seconds_to_target) j["seconds_to_target"] = *r.seconds_to_target;
      if (!r.flags.empty()) j["flags"] = r.flags;
      arr.push_back(std::move(j));
    }
    out << arr.dump(1) << "\n";
  } else if (format == "csv") {
    for (std::size_t i = 0; i < header.size(); ++i) out << (i ? "," : "") << header[i];
    out << "\n";
    for (const auto& f : body) {
      for (std::size_t i = 0; i < f.size(); ++i) {
        const bool quote = f[i].find_first_of(", \"") != std::string::npos;
        out << (i ? "," : "") << (quote ? "\"" + f[i] + "\"" : f[i]);
      }
      out << "\n";
    }
  } else if (format == "table") {
    std::vector<std::vector<std::string>> table = {header};
    table.insert(table.end(), body.begin(), body.end());
    std::vector<std::size_t> width(header.size(), 0);
    for (const auto& row : table)
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : table) {
      for (std::size_t i = 0; i < row.size(); ++i) out << std::left << std::setw(static_cast<int>(width[i]) + 2) << row[i];
      out << "\n";
    }
  } else {
    throw UsageError("unknown summary format '" + format + "' (expected table, csv or json)");
  }
}

}  // namespace rankone
