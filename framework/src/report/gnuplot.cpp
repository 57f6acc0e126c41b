// Static plots: axis ranges, gnuplot scripts and data for each panel kind, one gnuplot run per
// report, and its SVG made fit for inlining.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "plot.hpp"
#include "rankone/core/errors.hpp"
#include "text.hpp"

extern char** environ;

namespace rankone::reporting {

namespace fs = std::filesystem;

namespace {

const std::array<const char*, 10> kColours = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                              "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

/// A colour as the integer gnuplot's `lc rgb variable` reads from a data column.
long colour_value(std::size_t index) { return std::strtol(colour_of(index) + 1, nullptr, 16); }

bool all_positive(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return x > 0.0; });
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

/// Tick positions of a log axis narrower than a decade: 1-2-5 steps, finer when they give fewer
/// than three ticks.
std::vector<double> sub_decade_ticks(const Range& r) {
  for (const std::vector<double>& mantissas : {std::vector<double>{1, 2, 5}, std::vector<double>{1, 1.5, 2, 3, 4, 5, 6, 8},
                                               std::vector<double>{1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.5, 3, 3.5, 4,
                                                                   4.5, 5, 6, 7, 8, 9}}) {
    std::vector<double> ticks;
    for (int k = static_cast<int>(std::floor(std::log10(r.low))); k <= static_cast<int>(std::ceil(std::log10(r.high))); ++k)
      for (double m : mantissas) {
        const double t = m * std::pow(10.0, k);
        if (t >= r.low && t <= r.high) ticks.push_back(t);
      }
    if (ticks.size() >= 3) return ticks;
  }
  return {r.low, std::sqrt(r.low * r.high), r.high};
}

/// `set logscale` with ticks: whole decades labelled 10^k (at most ~8 labels), or explicit ticks
/// on an axis narrower than a decade.
void write_log_axis(std::ostream& g, const char* axis, const Range& r) {
  g << "set logscale " << axis << " 10\n";
  const double decades = std::log10(r.high / r.low);
  if (decades >= 1.0 - 1e-9) {
    const long whole = std::lround(decades);
    g << "set " << axis << "tics 1e" << std::max(1L, (whole + 7) / 8) << "\nset format " << axis << " '10^{%T}'\n";
    return;
  }
  g << "set " << axis << "tics (";
  const auto ticks = sub_decade_ticks(r);
  for (std::size_t i = 0; i < ticks.size(); ++i) g << (i ? ", " : "") << "'" << number(ticks[i], 3) << "' " << number(ticks[i], 10);
  g << ")\n";
}

std::string categories(const std::vector<std::string>& labels) {
  std::string s = "(";
  for (std::size_t i = 0; i < labels.size(); ++i) s += (i ? ", " : "") + gnuplot_quote(labels[i]) + " " + std::to_string(i);
  return s + ")";
}

void write_ranges(std::ostream& g, const Panel& p) {
  g << "set xrange [" << number(p.x.low, 10) << ":" << number(p.x.high, 10) << "]\n"
    << "set yrange [" << number(p.y.low, 10) << ":" << number(p.y.high, 10) << "]\n";
}

void heatmap_script(std::ostream& g, const Panel& p, const std::string& file) {
  g << "set border 15\nset tics scale 0\n"
    << "set xrange [-0.5:" << p.xticks.size() - 0.5 << "]\nset yrange [-0.5:" << p.yticks.size() - 0.5 << "]\n"
    << "set xtics noenhanced " << categories(p.xticks) << "\nset ytics noenhanced " << categories(p.yticks) << "\n"
    << "set cbrange [0:1]\nset cbtics 0.25\nset cblabel 'success rate'\n"
    << "set palette defined (0 '#440154', 0.25 '#3b528b', 0.5 '#21918c', 0.75 '#5ec962', 1 '#fde725')\n"
    << "plot " << file << " using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder lc palette notitle, \\\n"
    << "  '' using 1:2:($3 < 0.6 ? sprintf('%.2f', $3) : '') with labels noenhanced tc rgb 'white' notitle, \\\n"
    << "  '' using 1:2:($3 >= 0.6 ? sprintf('%.2f', $3) : '') with labels noenhanced tc rgb 'black' notitle\n";
}

void curves_script(std::ostream& g, const Panel& p, const std::string& file) {
  g << "set grid xtics ytics lc rgb '#e4e4e4' lw 1 dt 1\n";
  if (p.x.log) write_log_axis(g, "x", p.x);
  if (p.y.log) write_log_axis(g, "y", p.y);
  write_ranges(g, p);
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < p.series.size(); ++i) {
    const auto& s = p.series[i];
    if (s.rows.empty()) continue;
    const std::string colour = gnuplot_quote(colour_of(s.colour));
    const std::string block = file + " index " + std::to_string(i);
    if (s.rows.size() > 1)
      parts.push_back(block + " using 1:3:4 with filledcurves lc rgb " + colour + " fs transparent solid 0.2 noborder notitle");
    else
      parts.push_back(block + " using 1:2:3:4 with yerrorbars lc rgb " + colour + " pt 7 ps 0.9 notitle");
    const bool markers = s.rows.size() <= 40;
    parts.push_back(block + " using 1:2 with " + (markers ? "linespoints pt 7 ps 0.6" : "lines") + " lw 2 lc rgb " +
                    colour + " notitle");
  }
  if (parts.empty()) {
    g << "set label 1 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n";
    return;
  }
  g << "plot ";
  for (std::size_t i = 0; i < parts.size(); ++i) g << (i ? ", \\\n  " : "") << parts[i];
  g << "\n";
}

// Data blocks of a dot plot, in this order; a block without rows is left out of the plot command.
enum DotBlock { kDots, kBoxes, kIntervals };

void dots_script(std::ostream& g, const Panel& p, const std::string& file) {
  g << "set grid ytics lc rgb '#e4e4e4' lw 1 dt 1\n"
    << "set xtics noenhanced " << categories(p.xticks) << "\nset xtics scale 0\n";
  if (p.y.log) write_log_axis(g, "y", p.y);
  write_ranges(g, p);
  if (p.reference_y)
    g << "set arrow from graph 0, first " << number(*p.reference_y, 10) << " to graph 1, first " << number(*p.reference_y, 10)
      << " nohead dt 2 lw 1.5 lc rgb '#555555' back\n";
  int label = 1;
  for (const auto& group : p.groups)
    if (!group.note.empty())
      g << "set label " << label++ << " " << gnuplot_quote(group.note) << " at first " << number(group.x, 10)
        << ", graph 0.97 center noenhanced font ',11' tc rgb '#444444'\n";
  bool dots = false, boxes = false, intervals = false;
  for (const auto& group : p.groups) {
    dots = dots || !group.values.empty();
    boxes = boxes || (group.box && !group.values.empty());
    intervals = intervals || group.interval.has_value();
  }
  std::vector<std::string> parts;
  const auto block = [&](DotBlock b) { return file + " index " + std::to_string(static_cast<int>(b)); };
  if (boxes) {
    parts.push_back(block(kBoxes) + " using 1:2:3:4:5:6:7 with boxxyerror fs empty lw 1.5 lc rgb variable notitle");
    parts.push_back(block(kBoxes) + " using 3:2:($4-$3):(0):7 with vectors nohead lw 3 lc rgb variable notitle");
  }
  if (dots) parts.push_back(block(kDots) + " using 1:2:3 with points pt 7 ps 0.6 lc rgb variable notitle");
  if (intervals)
    parts.push_back(block(kIntervals) + " using 1:2:3:4 with yerrorbars pt 12 ps 1.5 lw 2 lc rgb '#222222' notitle");
  if (parts.empty()) {
    g << "set label 1000 'no data' at graph 0.5, graph 0.5 center\nplot NaN notitle\n";
    return;
  }
  g << "plot ";
  for (std::size_t i = 0; i < parts.size(); ++i) g << (i ? ", \\\n  " : "") << parts[i];
  g << "\n";
}

std::string panel_script(const Panel& p, const fs::path& data, const fs::path& svg) {
  std::ostringstream g;
  g << "reset\n"
    << "set terminal svg size " << p.width << "," << p.height << " font 'sans-serif,13' enhanced background rgb 'white'\n"
    << "set output " << gnuplot_quote(svg.string()) << "\n"
    << "set border 3 lc rgb '#444444'\nset tics nomirror out scale 0.6\nset key off\n"
    // User text is never parsed as enhanced-text markup (an underscore would subscript).
    << "set xlabel " << gnuplot_quote(p.xlabel) << " noenhanced\nset ylabel " << gnuplot_quote(p.ylabel) << " noenhanced\n";
  const std::string file = gnuplot_quote(data.string());
  switch (p.kind) {
    case PanelKind::heatmap: heatmap_script(g, p, file); break;
    case PanelKind::curves: curves_script(g, p, file); break;
    case PanelKind::dots: dots_script(g, p, file); break;
  }
  return g.str();
}

/// A deterministic horizontal offset in [-1, 1] for the i-th dot of a group (golden-ratio
/// sequence), so dots of equal value stay apart and the page is the same on every run.
double jitter(std::size_t i) {
  const double t = std::fmod(0.5 + static_cast<double>(i) * 0.6180339887498949, 1.0);
  return 2.0 * t - 1.0;
}

void write_panel_data(const Panel& p, const fs::path& data) {
  std::ofstream out(data);
  out.precision(10);
  // Two blank lines end a data block (the next `index`). gnuplot merges the separators around an
  // empty block, which would shift every later index: an empty block gets a row of NaN, never drawn.
  std::streampos block_start = out.tellp();
  const auto end_block = [&out, &block_start] {
    if (out.tellp() == block_start) out << "NaN NaN NaN NaN NaN NaN NaN\n";
    out << "\n\n";
    block_start = out.tellp();
  };
  switch (p.kind) {
    case PanelKind::heatmap:
      for (const auto& c : p.cells) out << c[0] << " " << c[1] << " " << c[2] << "\n";
      break;
    case PanelKind::curves:
      for (const auto& s : p.series) {
        for (const auto& r : s.rows) out << r[0] << " " << r[1] << " " << r[2] << " " << r[3] << "\n";
        end_block();
      }
      break;
    case PanelKind::dots:
      // With an interval the dots move left and the interval stands to their right, not on them.
      for (const auto& group : p.groups) {
        const double centre = group.interval ? group.x - 0.3 * group.half_width : group.x;
        const double spread = group.interval ? 0.5 * group.half_width : 0.6 * group.half_width;
        for (std::size_t i = 0; i < group.values.size(); ++i)
          out << centre + spread * jitter(i) << " " << group.values[i] << " " << colour_value(group.colour) << "\n";
      }
      end_block();
      for (const auto& group : p.groups)
        if (group.box && !group.values.empty())
          out << group.x << " " << group.median << " " << group.x - group.half_width << " " << group.x + group.half_width << " "
              << group.q1 << " " << group.q3 << " " << colour_value(group.colour) << "\n";
      end_block();
      for (const auto& group : p.groups)
        if (group.interval)
          out << group.x + 0.7 * group.half_width << " " << group.interval->centre << " " << group.interval->low << " "
              << group.interval->high << "\n";
      end_block();
      break;
  }
  if (!out) throw std::runtime_error("cannot write " + data.string());
}

/// The gnuplot executable: the option, $RANKONE_GNUPLOT, or gnuplot / gnuplot-nox on PATH.
std::string find_gnuplot(const fs::path& requested) {
  if (!requested.empty()) return requested.string();
  if (const char* env = std::getenv("RANKONE_GNUPLOT"); env && *env) {
    if (::access(env, X_OK) != 0 || std::filesystem::is_directory(env))
      throw InputError(std::string("RANKONE_GNUPLOT: '") + env + "' is not an executable file (expected the gnuplot program)");
    return env;
  }
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

}  // namespace

const char* colour_of(std::size_t index) { return kColours[index % kColours.size()]; }

Range choose_range(std::vector<double> values, AxisScale scale, double decades_for_log, double pad) {
  Range r;
  if (values.empty()) return {0.0, 1.0, false};
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  r.log = scale == AxisScale::log ? true
          : scale == AxisScale::linear ? false
          : all_positive(values) && *mx / *mn >= std::pow(10.0, decades_for_log);
  if (r.log) {
    double lo = *mx;
    const double hi = *mx;
    for (double v : values)
      if (v > 0.0) lo = std::min(lo, v);
    if (!(hi > 0.0)) return {0.1, 10.0, true};
    if (hi / lo >= 10.0) {  // whole decades, labelled 10^k
      r.low = std::pow(10.0, std::floor(std::log10(lo)));
      r.high = std::pow(10.0, std::ceil(std::log10(hi)));
    } else {  // narrower than a decade (ratios near 1): padded in log space
      const double margin = std::max(0.08 * std::log10(hi / lo), 0.02);
      r.low = lo / std::pow(10.0, margin);
      r.high = hi * std::pow(10.0, margin);
    }
  } else {
    r.low = *mn - pad * (*mx - *mn);
    r.high = *mx + pad * (*mx - *mn);
    if (r.low == r.high) {
      const double widen = r.low == 0.0 ? 1.0 : 0.1 * std::abs(r.low);
      r.low -= widen;
      r.high += widen;
    }
  }
  return r;
}

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

void fit_dot_ranges(std::vector<Panel>& panels, AxisScale y_scale) {
  std::vector<double> ys;
  for (const auto& p : panels) {
    if (p.reference_y) ys.push_back(*p.reference_y);
    for (const auto& g : p.groups) {
      ys.insert(ys.end(), g.values.begin(), g.values.end());
      if (g.interval) ys.insert(ys.end(), {g.interval->low, g.interval->high});
    }
  }
  if (ys.empty()) ys.push_back(1.0);
  Range y = choose_range(ys, y_scale, 1.0, 0.06);
  if (!y.log) {  // room for the notes above the groups
    y.high += 0.08 * (y.high - y.low);
  } else {
    y.high *= std::pow(y.high / y.low, 0.08);
  }
  for (auto& p : panels) {
    p.y = y;
    p.x = {-0.5, static_cast<double>(p.xticks.size()) - 0.5, false};
    if (y.log)
      for (auto& g : p.groups) {
        g.values.erase(std::remove_if(g.values.begin(), g.values.end(), [](double v) { return v <= 0.0; }), g.values.end());
        g.q1 = std::max(g.q1, y.low);
      }
  }
}

void render_panels(const std::vector<Panel*>& panels, const ReportOptions& options) {
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

}  // namespace rankone::reporting
