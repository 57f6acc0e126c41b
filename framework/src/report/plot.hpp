#pragma once
// The report's static plots: panels (curves, heat maps, dot plots) grouped into figures, their
// shared axis ranges, and rendering by gnuplot into inline SVG.
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rankone/report/report.hpp"
#include "rankone/store/summary.hpp"

namespace rankone::reporting {

/// The tab10 palette, indexed by estimator label (or by a sweep value when curves are overlaid).
const char* colour_of(std::size_t index);

struct Range {
  double low = 0.0, high = 0.0;
  bool log = false;
};

/// A curve: one colour, rows of (x, median, band low, band high).
struct Series {
  std::size_t colour = 0;
  std::vector<std::array<double, 4>> rows;
};

/// Per-repetition values drawn at one x position of a dot plot: the dots, a box of their
/// quartiles with the median, optionally a centre with its 95 % CI (a geometric mean ratio), and
/// a short note above the group ("5/6": repetitions that reached the target).
struct DotGroup {
  double x = 0.0;
  double half_width = 0.3;
  std::size_t colour = 0;
  std::vector<double> values;  ///< finite; thinned for drawing (the box uses them all)
  double q1 = 0.0, median = 0.0, q3 = 0.0;
  bool box = true;
  std::optional<Interval95> interval;
  std::string note;
};

enum class PanelKind { curves, heatmap, dots };

struct Panel {
  PanelKind kind = PanelKind::curves;
  std::string caption;
  std::string xlabel, ylabel;
  int width = 600, height = 400;
  Range x, y;
  std::vector<Series> series;                 ///< curves
  std::vector<std::string> xticks, yticks;    ///< categories: heat-map rows and columns, dot-plot groups
  std::vector<std::array<double, 3>> cells;   ///< heat map: x index, y index, success rate
  std::vector<DotGroup> groups;               ///< dot plot
  std::optional<double> reference_y;          ///< dot plot: a dashed line (ratio 1)
  std::string svg;                            ///< filled by render_panels
};

struct Figure {
  std::string title;
  std::string note;
  std::vector<std::pair<std::size_t, std::string>> legend;  ///< colour index and text of each entry
  std::vector<Panel> panels;
};

/// The shared range of a figure's axis: log when forced, or (automatic) when positive and spanning
/// at least `decades_for_log` decades. A log range spanning a decade or more is widened to whole
/// decades; a linear one by `pad` of its span on each side.
Range choose_range(std::vector<double> values, AxisScale scale, double decades_for_log, double pad);

/// Sets the shared x and y ranges of a figure's curve panels, drops the rows a log axis cannot
/// show and thins each curve to `max_points` rows.
void fit_ranges(std::vector<Panel>& panels, AxisScale x_scale, AxisScale y_scale, double x_decades, double x_pad,
                std::size_t max_points);

/// Sets the shared y range of a figure's dot-plot panels (log forced for ratios) and drops the
/// values a log axis cannot show.
void fit_dot_ranges(std::vector<Panel>& panels, AxisScale y_scale);

/// Renders every panel with one gnuplot process and stores the inline SVG in each. Throws
/// std::runtime_error when gnuplot is missing or fails (with its stderr).
void render_panels(const std::vector<Panel*>& panels, const ReportOptions& options);

}  // namespace rankone::reporting
