// rankone report: a self-contained HTML page of a study's curves, heat maps and tables, with the
// plots drawn by gnuplot (SVG) and inlined.
#include "rankone/report/report.hpp"

#include "rankone/core/atomic_file.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <cstring>

#include "rankone/core/errors.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/summary.hpp"

extern char** environ;

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

namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// Text

std::string html_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

/// A gnuplot single-quoted string literal (the only escape is a doubled quote). A line break would
/// end the command inside the string, so control characters become spaces.
std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += ' ';
    else out += c;
  }
  return out + "'";
}

std::string number(double v, int precision = 4) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  char buf[64];
  if (v == std::round(v) && std::abs(v) < 1e9)  // counts (samples, n) read better in full
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (std::size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
    s.replace(pos, from.size(), to);
}

// ---------------------------------------------------------------------------------------------
// Statistics

/// Linear-interpolation quantile of sorted values.
double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

struct Band {
  double median = 0.0, low = 0.0, high = 0.0;
};

Band band_of(std::vector<double>& values, double band_quantile) {
  std::sort(values.begin(), values.end());
  return {quantile(values, 0.5), quantile(values, band_quantile), quantile(values, 1.0 - band_quantile)};
}

double median_of(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  return quantile(values, 0.5);
}

// ---------------------------------------------------------------------------------------------
// A study: one results folder, its sweep axes and its aggregated series

/// A sweep axis: one grid path, or the paths of a zip group (moving together; the first names
/// the position).
struct Axis {
  std::vector<std::string> keys;
  std::vector<Json> values;  ///< distinct values of keys[0], sorted
  bool numeric = true;
  std::string name() const {
    std::string s;
    for (const auto& k : keys) s += (s.empty() ? "" : " / ") + k;
    return s;
  }
};

/// Per iteration of one (cell, label, metric): the repetitions' values and where they were taken.
struct IterationValues {
  std::vector<double> samples, seconds, values;
};

/// One aggregated point of a curve.
struct CurvePoint {
  double iteration = 0.0, samples = 0.0, seconds = 0.0;
  Band y;
};

using SeriesKey = std::tuple<std::size_t, std::size_t, std::size_t>;  // cell, label index, metric index

struct Study {
  fs::path folder;
  std::string name;
  std::string description;
  Json experiment;
  std::vector<TrialRecord> trials;  ///< without points (they are aggregated while loading)
  std::vector<SummaryRow> summary;
  std::optional<std::string> success_metric;
  std::optional<double> success_below;
  std::vector<std::string> labels;   ///< experiment order
  std::vector<std::string> metrics;  ///< order of first appearance
  std::map<std::size_t, Json> cells;
  std::vector<Axis> axes;            ///< every swept axis (also those with one value)
  std::map<std::size_t, std::vector<std::size_t>> position;  ///< cell → value index per axis
  std::map<SeriesKey, std::vector<CurvePoint>> curves;
  std::map<SeriesKey, Band> finals;  ///< final value over repetitions
  int repetitions = 1;

  std::size_t label_index(const std::string& label) {
    auto it = std::find(labels.begin(), labels.end(), label);
    if (it != labels.end()) return static_cast<std::size_t>(it - labels.begin());
    labels.push_back(label);
    return labels.size() - 1;
  }
  std::size_t metric_index(const std::string& metric) {
    auto it = std::find(metrics.begin(), metrics.end(), metric);
    if (it != metrics.end()) return static_cast<std::size_t>(it - metrics.begin());
    metrics.push_back(metric);
    return metrics.size() - 1;
  }
  /// Axes that take at least two values: the ones worth a plot dimension.
  std::vector<std::size_t> varying_axes() const {
    std::vector<std::size_t> out;
    for (std::size_t a = 0; a < axes.size(); ++a)
      if (axes[a].values.size() > 1) out.push_back(a);
    return out;
  }
  std::string cell_text(std::size_t cell, const std::vector<std::size_t>& which) const {
    std::string s;
    for (std::size_t a : which)
      s += (s.empty() ? "" : ", ") + axes[a].name() + " = " + value_text(axes[a].values[position.at(cell)[a]]);
    return s;
  }
};

std::vector<Axis> sweep_axes(const Json& experiment, const std::map<std::size_t, Json>& cells) {
  std::map<std::string, std::set<Json>> values;
  for (const auto& [cell, coords] : cells)
    for (auto it = coords.begin(); it != coords.end(); ++it) values[it.key()].insert(it.value());
  // Paths of one zip group form one axis.
  std::map<std::string, std::vector<std::string>> zip_of;
  if (experiment.contains("sweep") && experiment["sweep"].contains("zip") && experiment["sweep"]["zip"].is_array())
    for (const auto& group : experiment["sweep"]["zip"]) {
      std::vector<std::string> keys;
      for (auto it = group.begin(); it != group.end(); ++it)
        if (values.count(it.key())) keys.push_back(it.key());
      for (const auto& k : keys) zip_of[k] = keys;
    }
  std::vector<Axis> axes;
  std::set<std::string> done;
  for (const auto& [key, vals] : values) {
    if (done.count(key)) continue;
    Axis axis;
    axis.keys = zip_of.count(key) ? zip_of[key] : std::vector<std::string>{key};
    for (const auto& k : axis.keys) done.insert(k);
    axis.values.assign(values[axis.keys[0]].begin(), values[axis.keys[0]].end());
    for (const auto& v : axis.values) axis.numeric = axis.numeric && v.is_number();
    axes.push_back(std::move(axis));
  }
  return axes;
}

Study load_study(const fs::path& folder, const ReportOptions& options) {
  Study s;
  s.folder = folder;
  const ResultsStore store(folder, ResultsStore::Access::read_only);
  s.experiment = store.latest_experiment();
  s.name = s.experiment.value("name", folder.filename().string());
  if (s.experiment.contains("description") && s.experiment["description"].is_string())
    s.description = s.experiment["description"].get<std::string>();
  if (s.experiment.contains("repetitions") && s.experiment["repetitions"].is_number_integer())
    s.repetitions = s.experiment["repetitions"].get<int>();
  if (s.experiment.contains("estimators") && s.experiment["estimators"].is_array())
    for (const auto& e : s.experiment["estimators"]) {
      if (e.is_string()) s.label_index(e.get<std::string>());
      else if (e.is_object() && e.contains("name")) s.label_index(e.value("label", e["name"].get<std::string>()));
    }

  SummaryOptions summary_options;
  summary_options.success_metric = options.success_metric;
  summary_options.success_below = options.success_below;
  if (s.experiment.contains("success") && !options.success_metric) {
    s.success_metric = s.experiment["success"]["metric"].get<std::string>();
    s.success_below = s.experiment["success"]["below"].get<double>();
  } else {
    s.success_metric = options.success_metric;
    s.success_below = options.success_below;
  }

  // Aggregate point by point, then drop the points: a study of millions of points never holds
  // more than the per-iteration value lists.
  std::map<SeriesKey, std::map<int, IterationValues>> by_iteration;
  std::map<SeriesKey, std::vector<double>> final_values;
  s.trials = store.trials(true);
  for (auto& t : s.trials) {
    s.cells.emplace(t.cell, t.coordinates);
    const std::size_t label = s.label_index(t.label);
    std::map<std::string, std::pair<std::map<int, IterationValues>*, const Point*>> per_metric;
    for (const auto& p : t.points) {
      if (!std::isfinite(p.value)) continue;
      auto [it, fresh] = per_metric.try_emplace(p.metric);
      if (fresh) it->second.first = &by_iteration[{t.cell, label, s.metric_index(p.metric)}];
      IterationValues& v = (*it->second.first)[p.iteration];
      v.samples.push_back(static_cast<double>(p.samples));
      v.seconds.push_back(p.seconds);
      v.values.push_back(p.value);
      if (!it->second.second || p.iteration >= it->second.second->iteration) it->second.second = &p;
    }
    for (const auto& [metric, entry] : per_metric)
      final_values[{t.cell, label, s.metric_index(metric)}].push_back(entry.second->value);
    t.points.clear();
    t.points.shrink_to_fit();
  }
  for (auto& [key, iterations] : by_iteration) {
    auto& curve = s.curves[key];
    curve.reserve(iterations.size());
    for (auto& [iteration, v] : iterations)
      curve.push_back({static_cast<double>(iteration), median_of(v.samples), median_of(v.seconds),
                       band_of(v.values, options.band_quantile)});
  }
  for (auto& [key, values] : final_values) s.finals[key] = band_of(values, options.band_quantile);

  s.axes = sweep_axes(s.experiment, s.cells);
  for (const auto& [cell, coords] : s.cells) {
    auto& pos = s.position[cell];
    for (const auto& axis : s.axes) {
      const Json& v = coords.contains(axis.keys[0]) ? coords[axis.keys[0]] : Json();
      pos.push_back(static_cast<std::size_t>(std::find(axis.values.begin(), axis.values.end(), v) - axis.values.begin()));
    }
  }
  s.summary = summarize(store, summary_options);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Plots: panels rendered by one gnuplot run

const std::array<const char*, 10> kColours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                              "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

const char* colour_of(std::size_t label) { return kColours[label % kColours.size()]; }

struct Series {
  std::size_t colour = 0;  ///< index into kColours: the estimator label, or a sweep value when overlaid
  std::vector<std::array<double, 4>> rows;  ///< x, median, low, high
};

struct Range {
  double low = 0.0, high = 0.0;
  bool log = false;
};

struct Panel {
  std::string caption;
  std::string xlabel, ylabel;
  int width = 380, height = 270;
  // Curves
  std::vector<Series> series;
  Range x, y;
  // Heat map: success rate per (x index, y index)
  bool heatmap = false;
  std::vector<std::string> xticks, yticks;
  std::vector<std::array<double, 3>> cells;  ///< x index, y index, rate
  std::string svg;  ///< filled by render_panels
};

bool all_positive(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0.0; });
}

/// The shared range of a figure's axis: log when forced, or (automatic) when positive and spanning
/// at least `decades_for_log` decades. A log range spans whole decades; a linear one is widened by
/// `pad` of its span on each side (so markers at the ends are not cut by the border).
Range choose_range(std::vector<double> values, AxisScale scale, double decades_for_log, double pad) {
  Range r;
  if (values.empty()) return {0.0, 1.0, false};
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  const bool positive = all_positive(values);
  r.log = scale == AxisScale::log ? true
          : scale == AxisScale::linear ? false
          : positive && *mx / *mn >= std::pow(10.0, decades_for_log);
  if (r.log) {
    double lo = *mx, hi = *mx;
    for (double v : values)
      if (v > 0.0) lo = std::min(lo, v);
    if (!(hi > 0.0)) return {0.1, 10.0, true};
    r.low = std::pow(10.0, std::floor(std::log10(lo)));
    r.high = std::pow(10.0, std::ceil(std::log10(hi)));
    if (r.low == r.high) { r.low /= 10.0; r.high *= 10.0; }
  } else {
    r.low = *mn - pad * (*mx - *mn);
    r.high = *mx + pad * (*mx - *mn);
    if (r.low == r.high) {
      const double pad = r.low == 0.0 ? 1.0 : 0.1 * std::abs(r.low);
      r.low -= pad;
      r.high += pad;
    }
  }
  return r;
}

/// Thins rows to at most `max_rows`, evenly in index (log-spaced when the x axis is logarithmic),
/// always keeping the first and last.
void thin(std::vector<std::array<double, 4>>& rows, std::size_t max_rows, bool log_x) {
  const std::size_t n = rows.size();
  if (n <= max_rows) return;
  std::set<std::size_t> keep;
  for (std::size_t j = 0; j < max_rows; ++j) {
    const double t = static_cast<double>(j) / static_cast<double>(max_rows - 1);
    const double index = log_x ? std::exp(t * std::log(static_cast<double>(n))) - 1.0 : t * static_cast<double>(n - 1);
    keep.insert(std::min(n - 1, static_cast<std::size_t>(std::llround(index))));
  }
  std::vector<std::array<double, 4>> out;
  for (std::size_t i : keep) out.push_back(rows[i]);
  rows = std::move(out);
}

/// Sets the shared x and y ranges of a figure's curve panels and drops the rows a log axis cannot
/// show.
void fit_ranges(std::vector<Panel>& panels, AxisScale x_scale, AxisScale y_scale, double x_decades, double x_pad,
                std::size_t max_points) {
  std::vector<double> xs, ys;
  for (const auto& p : panels)
    for (const auto& s : p.series)
      for (const auto& r : s.rows) {
        xs.push_back(r[0]);
        ys.insert(ys.end(), {r[1], r[2], r[3]});
      }
  const Range x = choose_range(xs, x_scale, x_decades, x_pad);
  const Range y = choose_range(ys, y_scale, 1.0, 0.04);
  for (auto& p : panels) {
    p.x = x;
    p.y = y;
    for (auto& s : p.series) {
      auto& rows = s.rows;
      rows.erase(std::remove_if(rows.begin(), rows.end(),
                                [&](const auto& r) { return (x.log && r[0] <= 0.0) || (y.log && r[1] <= 0.0); }),
                 rows.end());
      if (y.log)
        for (auto& r : rows) r[2] = std::max(r[2], y.low);  // a band reaching zero is clipped at the axis
      thin(rows, max_points, x.log);
    }
  }
}

std::string panel_script(const Panel& p, const fs::path& data, const fs::path& svg) {
  std::ostringstream g;
  g << "reset\n"
    << "set terminal svg size " << p.width << "," << p.height
    << " font 'sans-serif,11' enhanced background rgb 'white'\n"
    << "set output " << gnuplot_quote(svg.string()) << "\n"
    << "set border 3 lc rgb '#444444'\nset tics nomirror out scale 0.6\nset key off\n"
    // User text is never parsed as enhanced-text markup (an underscore would subscript).
    << "set xlabel " << gnuplot_quote(p.xlabel) << " noenhanced\nset ylabel " << gnuplot_quote(p.ylabel) << " noenhanced\n";
  const std::string file = gnuplot_quote(data.string());
  if (p.heatmap) {
    auto tics = [](const std::vector<std::string>& labels) {
      std::string s = "(";
      for (std::size_t i = 0; i < labels.size(); ++i) s += (i ? ", " : "") + gnuplot_quote(labels[i]) + " " + std::to_string(i);
      return s + ")";
    };
    g << "set border 15\nset tics scale 0\n"
      << "set xrange [-0.5:" << p.xticks.size() - 0.5 << "]\nset yrange [-0.5:" << p.yticks.size() - 0.5 << "]\n"
      << "set xtics noenhanced " << tics(p.xticks) << "\nset ytics noenhanced " << tics(p.yticks) << "\n"
      << "set cbrange [0:1]\nset cbtics 0.25\nset cblabel 'success rate'\n"
      << "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')\n"
      << "plot " << file << " using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder lc palette notitle, \\\n"
      << "  '' using 1:2:($3 < 0.6 ? sprintf('%.2f', $3) : '') with labels noenhanced tc rgb 'white' notitle, \\\n"
      << "  '' using 1:2:($3 >= 0.6 ? sprintf('%.2f', $3) : '') with labels noenhanced tc rgb 'black' notitle\n";
    return g.str();
  }
  g << "set grid xtics ytics lc rgb '#e4e4e4' lw 1 dt 1\n";
  // A log axis spans whole decades (see choose_range): label them 10^k, at most ~8 labels.
  auto log_axis = [&g](const char* axis, const Range& r) {
    const long decades = std::lround(std::log10(r.high / r.low));
    g << "set logscale " << axis << " 10\nset " << axis << "tics 1e" << std::max(1L, (decades + 7) / 8) << "\nset format "
      << axis << " '10^{%T}'\n";
  };
  if (p.x.log) log_axis("x", p.x);
  if (p.y.log) log_axis("y", p.y);
  g << "set xrange [" << number(p.x.low, 10) << ":" << number(p.x.high, 10) << "]\n"
    << "set yrange [" << number(p.y.low, 10) << ":" << number(p.y.high, 10) << "]\n";
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const auto& s = p.series[i];
    if (s.rows.empty()) continue;
    const std::string colour = gnuplot_quote(colour_of(s.colour));
    const std::string block = file + " index " + std::to_string(i);
    if (s.rows.size() > 1)
      parts.push_back(block + " using 1:3:4 with filledcurves lc rgb " + colour + " fs transparent solid 0.2 noborder notitle");
    else
      parts.push_back(block + " using 1:2:3:4 with yerrorbars lc rgb " + colour + " pt 7 ps 0.7 notitle");
    const bool markers = s.rows.size() <= 40;
    parts.push_back(block + " using 1:2 with " + (markers ? "linespoints pt 7 ps 0.45" : "lines") + " lw 1.8 lc rgb " +
                    colour + " notitle");
  }
  if (parts.empty()) {
    g << "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n";
    return g.str();
  }
  g << "plot ";
  for (std::size_t i = 0; i < parts.size(); ++i) g << (i ? ", \\\n  " : "") << parts[i];
  g << "\n";
  return g.str();
}

void write_panel_data(const Panel& p, const fs::path& data) {
  std::ofstream out(data);
  out.precision(10);
  if (p.heatmap) {
    for (const auto& c : p.cells) out << c[0] << " " << c[1] << " " << c[2] << "\n";
  } else {
    for (const auto& s : p.series) {
      for (const auto& r : s.rows) out << r[0] << " " << r[1] << " " << r[2] << " " << r[3] << "\n";
      out << "\n\n";  // gnuplot data-block separator: the next series is the next `index`
    }
  }
  if (!out) throw std::runtime_error("cannot write " + data.string());
}

/// The gnuplot executable: the option, $RANKONE_GNUPLOT, or gnuplot / gnuplot-nox on PATH.
std::string find_gnuplot(const fs::path& requested) {
  if (!requested.empty()) return requested.string();
  if (const char* env = std::getenv("RANKONE_GNUPLOT"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  std::vector<std::string> folders;
  for (std::string d; std::getline(dirs, d, ':');) folders.push_back(d.empty() ? "." : d);
  for (const char* name : {"gnuplot", "gnuplot-nox"})
    for (const auto& d : folders) {
      const fs::path candidate = fs::path(d) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  throw std::runtime_error(
      "rankone report needs gnuplot: install it (Debian: apt-get install gnuplot-nox, or scripts/setup) "
      "or point RANKONE_GNUPLOT at the executable");
}

/// A private temporary folder, removed with its contents on scope exit.
struct TempFolder {
  fs::path path;
  TempFolder() {
    std::string pattern = (fs::temp_directory_path() / "rankone-report-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder in " + fs::temp_directory_path().string());
    path = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    fs::remove_all(path, ignored);
  }
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
};

/// Runs `gnuplot script`, stdout discarded, stderr to `stderr_file`; returns the exit status.
int run_gnuplot(const std::string& gnuplot, const fs::path& script, const fs::path& stderr_file) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::string arg0 = gnuplot, arg1 = script.string();
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, gnuplot.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot run gnuplot '" + gnuplot + "': " + std::strerror(spawned));
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw std::runtime_error("waiting for gnuplot failed: " + std::string(std::strerror(errno)));
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

/// Makes gnuplot's standalone SVG fit inline in HTML: no XML prolog or namespace declarations
/// (HTML parsing supplies them), ids made unique to the panel, a title for tooltips.
std::string inline_svg(std::string svg, std::size_t panel, const std::string& caption) {
  const std::size_t start = svg.find("<svg");
  if (start == std::string::npos) throw std::runtime_error("gnuplot wrote no <svg> element for panel " + std::to_string(panel));
  svg.erase(0, start);
  for (const char* attr : {"xmlns=\"", "xmlns:xlink=\""}) {
    const std::size_t at = svg.find(attr);
    const std::size_t tag_end = svg.find('>');
    if (at == std::string::npos || at > tag_end) continue;
    const std::size_t close = svg.find('"', at + std::strlen(attr));
    svg.erase(at, close + 1 - at);
  }
  const std::string prefix = "p" + std::to_string(panel) + "_";
  for (const char* q : {"'", "\""}) {
    replace_all(svg, std::string(" id=") + q, std::string(" id=") + q + prefix);
    replace_all(svg, std::string("href=") + q + "#", std::string("href=") + q + "#" + prefix);
  }
  replace_all(svg, "url(#", "url(#" + prefix);
  replace_all(svg, "<title>Gnuplot</title>", "<title>" + html_escape(caption) + "</title>");
  svg.insert(4, " class=\"plot\" role=\"img\"");
  return svg;
}

/// Renders every panel with one gnuplot process and stores the inline SVG in each.
void render_panels(std::vector<Panel*>& panels, const ReportOptions& options) {
  if (panels.empty()) return;
  const std::string gnuplot = find_gnuplot(options.gnuplot);
  TempFolder tmp;
  const fs::path script = tmp.path / "report.gp";
  {
    std::ofstream out(script);
    for (std::size_t i = 0; i < panels.size(); ++i) {
      const fs::path data = tmp.path / ("panel" + std::to_string(i) + ".dat");
      write_panel_data(*panels[i], data);
      out << panel_script(*panels[i], data, tmp.path / ("panel" + std::to_string(i) + ".svg"));
    }
    out << "unset output\n";
    if (!out) throw std::runtime_error("cannot write the gnuplot script " + script.string());
  }
  const fs::path errors = tmp.path / "gnuplot.stderr";
  const int status = run_gnuplot(gnuplot, script, errors);
  if (status != 0) {
    std::string text = read_text(errors);
    if (text.size() > 4000) text = "…" + text.substr(text.size() - 4000);
    throw std::runtime_error("gnuplot (" + gnuplot + ") failed with exit status " + std::to_string(status) + ":\n" + text);
  }
  for (std::size_t i = 0; i < panels.size(); ++i) {
    const fs::path svg = tmp.path / ("panel" + std::to_string(i) + ".svg");
    if (!fs::exists(svg)) throw std::runtime_error("gnuplot wrote no " + svg.filename().string() + ":\n" + read_text(errors));
    panels[i]->svg = inline_svg(read_text(svg), i, panels[i]->caption);
  }
}

// ---------------------------------------------------------------------------------------------
// Figures of a study

struct Figure {
  std::string title;
  std::string note;
  std::vector<std::pair<std::size_t, std::string>> legend;  ///< colour index and text of each entry
  std::vector<Panel> panels;
};

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

/// Curves of a metric against an x axis, one panel per sweep cell; none when no curve has two
/// distinct x values.
std::optional<Figure> curve_figure(const Study& s, std::size_t metric, const std::string& x_axis, const ReportOptions& o) {
  Figure f;
  f.title = s.metrics[metric] + " vs " + x_axis;
  const auto varying = s.varying_axes();
  bool informative = false;
  std::set<std::size_t> labels;
  for (const auto& [cell, coords] : s.cells) {
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

/// Final values of a metric against a numeric sweep axis. With one estimator label and one other
/// varying axis of at most ten values, one panel with a curve per value of that axis; otherwise
/// one panel per combination of the other varying axes, a curve per label.
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
  for (const auto& [cell, coords] : s.cells) {
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
    if (overlay) p.width = 520, p.height = 340;
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

/// Phase transitions: the success rate over the first two varying axes, one heat map per label
/// (and per combination of further axes).
std::optional<Figure> heatmap_figure(const Study& s) {
  const auto varying = s.varying_axes();
  if (varying.size() < 2 || !s.success_metric) return std::nullopt;
  const std::size_t ax = varying[0], ay = varying[1];
  const std::vector<std::size_t> others(varying.begin() + 2, varying.end());
  std::map<std::pair<std::size_t, std::vector<std::size_t>>, Panel> panels;  // (label, other positions)
  for (const auto& r : s.summary) {
    if (r.metric != *s.success_metric || !r.success_rate) continue;
    const std::size_t l = std::find(s.labels.begin(), s.labels.end(), r.label) - s.labels.begin();
    const auto& pos = s.position.at(r.cell);
    std::vector<std::size_t> key;
    for (std::size_t a : others) key.push_back(pos[a]);
    Panel& p = panels[{l, key}];
    if (!p.heatmap) {
      p.heatmap = true;
      p.caption = r.label + (others.empty() ? "" : " — " + s.cell_text(r.cell, others));
      p.xlabel = s.axes[ax].name();
      p.ylabel = s.axes[ay].name();
      for (const auto& v : s.axes[ax].values) p.xticks.push_back(value_text(v));
      for (const auto& v : s.axes[ay].values) p.yticks.push_back(value_text(v));
      p.width = std::max(420, 70 * static_cast<int>(p.xticks.size()) + 200);
      p.height = std::max(300, 36 * static_cast<int>(p.yticks.size()) + 120);
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

// ---------------------------------------------------------------------------------------------
// HTML

const char* kStyle = R"(
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; margin: 0 auto;
       max-width: 1500px; padding: 0 24px 48px; color: #222; line-height: 1.4; }
h1 { font-size: 1.6em; border-bottom: 2px solid #ddd; padding-bottom: 6px; }
h2 { font-size: 1.35em; margin-top: 2.2em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 1.1em; margin: 1.6em 0 0.3em; }
.meta { color: #555; }
.note { color: #555; font-size: 0.9em; margin: 0.2em 0 0.6em; }
.legend { margin: 0.3em 0 0.6em; }
.legend span.entry { margin-right: 18px; white-space: nowrap; }
.legend span.swatch { display: inline-block; width: 22px; height: 4px; vertical-align: middle; margin-right: 6px;
                      border-radius: 2px; }
.panels { display: flex; flex-wrap: wrap; gap: 10px 14px; }
figure.panel { margin: 0; border: 1px solid #eee; border-radius: 4px; padding: 4px; background: #fff; }
figure.panel figcaption { font-size: 0.85em; color: #333; text-align: center; min-height: 1.2em; }
svg.plot { display: block; max-width: 100%; height: auto; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.4em 0 1em; }
th, td { border: 1px solid #ddd; padding: 3px 8px; }
th { background: #f3f3f3; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr:nth-child(even) td { background: #fafafa; }
td.bad { color: #b00020; }
details pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 0.8em; }
nav ul { columns: 2; }
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
  for (const auto& p : f.panels)
    out << "<figure class=\"panel\"><figcaption>" << html_escape(p.caption) << "</figcaption>\n" << p.svg << "</figure>\n";
  out << "</div>\n";
}

std::string td(const std::string& text, bool numeric = false, bool bad = false) {
  std::string cls = numeric ? (bad ? "num bad" : "num") : (bad ? "bad" : "");
  return "<td" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") + ">" + html_escape(text) + "</td>";
}

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

void write_summary_tables(std::ostream& out, const Study& s, const std::vector<std::size_t>& metrics) {
  const auto varying = s.varying_axes();
  for (std::size_t m : metrics) {
    const std::string& metric = s.metrics[m];
    const bool success = s.success_metric && *s.success_metric == metric;
    out << "<h3>" << html_escape(metric) << "</h3>\n<table class=\"summary\" data-metric=\"" << html_escape(metric)
        << "\"><tr>";
    for (std::size_t a : varying) out << "<th>" << html_escape(s.axes[a].name()) << "</th>";
    out << "<th>estimator</th><th>n</th><th>failed</th><th>stalled</th><th>median</th><th>mean</th><th>95 % CI</th><th>sd</th>";
    if (success)
      out << "<th>success rate</th><th>reached</th><th>samples to target</th><th>seconds to target</th>";
    out << "<th>flags</th></tr>\n";
    for (const auto& r : s.summary) {
      if (r.metric != metric) continue;
      out << "<tr>";
      for (std::size_t a : varying) out << td(value_text(s.axes[a].values[s.position.at(r.cell)[a]]), s.axes[a].numeric);
      out << td(r.label) << td(std::to_string(r.trials), true) << td(std::to_string(r.failures), true, r.failures > 0)
          << td(std::to_string(r.stalled), true, r.stalled > 0) << td(number(r.median), true) << td(number(r.mean), true)
          << td(r.trials > 1 ? "[" + number(r.ci_low) + ", " + number(r.ci_high) + "]" : "", true)
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

std::string anchor(std::size_t study, const std::string& part) { return "s" + std::to_string(study) + "-" + part; }

struct StudyFigures {
  std::vector<Figure> heatmaps, sweeps, curves;
  std::vector<std::string> skipped_curves;  ///< x axes without an informative curve
  std::vector<std::size_t> metrics;
};

StudyFigures build_figures(const Study& s, const ReportOptions& o) {
  StudyFigures f;
  f.metrics = plotted_metrics(s, o);
  if (auto h = heatmap_figure(s)) f.heatmaps.push_back(std::move(*h));
  for (std::size_t a : s.varying_axes())
    if (s.axes[a].numeric)
      for (std::size_t m : f.metrics) f.sweeps.push_back(sweep_figure(s, m, a, o));
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

void write_study(std::ostream& out, std::size_t index, const Study& s, const StudyFigures& f) {
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
  out << "<h2 id=\"" << anchor(index, "curves") << "\">Curves — " << html_escape(s.name) << "</h2>\n";
  if (!f.skipped_curves.empty()) {
    std::string xs;
    for (const auto& x : f.skipped_curves) xs += (xs.empty() ? "" : ", ") + x;
    out << "<p class=\"note\">No curves against " << html_escape(xs)
        << ": every trial recorded a single point (one-shot estimators); see the final values above.</p>\n";
  }
  for (const auto& fig : f.curves) write_figure(out, fig);

  out << "<h2 id=\"" << anchor(index, "tables") << "\">Summary tables — " << html_escape(s.name) << "</h2>\n"
      << "<p class=\"note\">Final values per sweep cell and estimator over repetitions (as <code>rankone summarize</code>); "
         "95 % CI of the mean from Student's t.</p>\n";
  write_summary_tables(out, s, f.metrics);
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

}  // namespace

void write_report(const fs::path& results_dir, const fs::path& html_out, const ReportOptions& options) {
  std::string error;
  if (!options.is_valid(&error)) throw UsageError(error);
  std::vector<Study> studies;
  for (const auto& folder : study_folders(results_dir)) studies.push_back(load_study(folder, options));

  std::vector<StudyFigures> figures;
  std::vector<Panel*> panels;
  for (const auto& s : studies) figures.push_back(build_figures(s, options));
  for (auto& f : figures)
    for (auto* group : {&f.heatmaps, &f.sweeps, &f.curves})
      for (auto& fig : *group)
        for (auto& p : fig.panels) panels.push_back(&p);
  render_panels(panels, options);

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
    html << "<li><a href=\"#" << anchor(i, "study") << "\">" << html_escape(studies[i].name) << "</a>: ";
    if (!figures[i].heatmaps.empty()) html << "<a href=\"#" << anchor(i, "phase") << "\">phase transitions</a> · ";
    if (!figures[i].sweeps.empty()) html << "<a href=\"#" << anchor(i, "sweeps") << "\">sweeps</a> · ";
    html << "<a href=\"#" << anchor(i, "curves") << "\">curves</a> · <a href=\"#" << anchor(i, "tables")
         << "\">tables</a></li>\n";
  }
  html << "</ul></nav>\n";
  for (std::size_t i = 0; i < studies.size(); ++i) write_study(html, i, studies[i], figures[i]);
  html << "<p class=\"note\">Written by <code>rankone report</code>; plots drawn by gnuplot.</p>\n</body>\n</html>\n";

  if (html_out.has_parent_path()) fs::create_directories(html_out.parent_path());
  AtomicFile out(html_out);  // a reader never sees a half-written page; a failed write keeps the old one
  out.stream() << html.str();
  out.commit();
}

}  // namespace rankone
