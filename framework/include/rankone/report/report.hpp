#pragma once
/// \file `rankone report`: one self-contained HTML page per results folder (or folder of results
/// folders) with, for each study, metric curves against iteration / samples / seconds (median and
/// a band over repetitions, one colour per estimator label, one panel per sweep cell), final values
/// against each sweep axis and per repetition, samples and seconds to the success target, paired
/// ratios against a baseline estimator, phase-transition heat maps of the success rate for
/// two-dimensional sweeps, the trial statuses, the summary tables of `rankone summarize` and the
/// provenance of the runs (commit, compiler, flags, host, library and plugin versions).
///
/// The static plots are drawn by gnuplot (SVG terminal, run once per report as a subprocess on a
/// generated script) and inlined, so they show without JavaScript. An interactive explorer per
/// study (hover values, zoom, choice of metric and x axis) is drawn by Vega, inlined from Debian's
/// libjs-vega; without it the page is written without the explorer. The page needs no network.
/// Repetitions are aggregated per iteration before plotting and each curve is thinned to at most
/// `max_points_per_curve` points, so the report of a study with millions of points takes seconds.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rankone {

/// How an axis is scaled: `automatic` chooses log when the values are positive and span decades.
enum class AxisScale { automatic, linear, log };

/// Parses "auto", "linear" or "log" (UsageError otherwise).
AxisScale parse_axis_scale(const std::string& text);

struct ReportOptions {
  /// Metrics to plot; empty: every recorded metric except the bookkeeping ones (`samples`,
  /// `seconds`), which are available as x axes instead.
  std::vector<std::string> metrics;
  /// X axes of the curves, each one of "iteration", "samples", "seconds". A figure is drawn only
  /// when some curve has at least two distinct x values (one-shot estimators have none).
  std::vector<std::string> x_axes = {"iteration", "samples"};
  /// Success threshold for the heat maps and tables; defaults to the experiment's "success"
  /// section (both or neither must be given).
  std::optional<std::string> success_metric;
  std::optional<double> success_below;
  /// The band covers the quantiles [band_quantile, 1 − band_quantile] of the repetitions at each
  /// point; 0 gives the min–max band. Must lie in [0, 0.5).
  double band_quantile = 0.1;
  AxisScale x_scale = AxisScale::automatic;
  AxisScale y_scale = AxisScale::automatic;
  /// Curves with more recorded iterations are thinned (evenly, or log-spaced on a log x axis).
  std::size_t max_points_per_curve = 400;
  /// The estimator label the paired comparison divides by; empty: each study's first label. A label
  /// that no study has is a UsageError naming the labels there are; a study of a folder of studies
  /// that lacks it compares against its own first label (and says so).
  std::string baseline;
  /// Adds the interactive explorer (Vega, inlined) to each study; without it the page has no script.
  bool interactive = true;
  /// Folder of the Vega modules (vega-*.min.js); empty: $RANKONE_VEGA_DIR, else Debian's
  /// /usr/share/javascript/vega.
  std::filesystem::path vega_dir;
  /// Page title; empty: "RankOne report: <study names>".
  std::string title;
  /// The gnuplot executable; empty: $RANKONE_GNUPLOT, else `gnuplot` or `gnuplot-nox` on PATH.
  std::filesystem::path gnuplot;

  /// False (with a message naming the violated constraint) when the options are inconsistent.
  bool is_valid(std::string* error) const;
};

/// Writes the report of `results_dir` to `html_out`. `results_dir` is a results folder (holding
/// results.sqlite) or a folder whose immediate subfolders are results folders (one section per
/// study). Throws InputError for a missing folder or bad options, std::runtime_error when gnuplot
/// is missing or fails (its stderr is in the message).
void write_report(const std::filesystem::path& results_dir, const std::filesystem::path& html_out,
                  const ReportOptions& options);

}  // namespace rankone
