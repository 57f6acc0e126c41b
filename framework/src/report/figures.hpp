#pragma once
// The figures of a study section: which plots a study gets, and the paired comparison's table.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plot.hpp"
#include "study.hpp"

namespace rankone::reporting {

/// One row of the paired-comparison table: the ratios of a label's quantity to the baseline's
/// over the repetitions of one cell (or of every cell), summarised by their geometric mean.
struct PairedRow {
  std::string quantity;
  std::optional<std::size_t> cell;  ///< empty: every cell together
  std::size_t label = 0;
  std::size_t pairs = 0;
  Interval95 geometric_mean;  ///< of the ratios, with its 95 % CI (t-interval of the log ratios)
  double median = 0.0;
  std::size_t below_one = 0;  ///< pairs where the label's quantity is below the baseline's
};

struct PairedComparison {
  std::string baseline;
  std::vector<PairedRow> rows;
  std::vector<std::string> unpaired;  ///< quantities without a single pair (never both reached the target)
  std::string note;                   ///< why the baseline is not the requested one
};

struct StudyFigures {
  std::vector<std::size_t> metrics;  ///< plotted metrics (indices into Study::metrics)
  std::vector<Figure> heatmaps, sweeps, per_repetition, targets, paired, curves;
  std::vector<std::string> skipped_curves;  ///< x axes without an informative curve
  std::optional<PairedComparison> comparison;
};

/// Every figure of a study (panels not yet rendered). Throws UsageError for an unknown --plot
/// metric.
StudyFigures build_figures(const Study& s, const ReportOptions& o);

// The builders, by kind (curves.cpp, distributions.cpp).
std::vector<std::size_t> plotted_metrics(const Study& s, const ReportOptions& o);
std::optional<Figure> curve_figure(const Study& s, std::size_t metric, const std::string& x_axis, const ReportOptions& o);
Figure sweep_figure(const Study& s, std::size_t metric, std::size_t axis, const ReportOptions& o);
std::optional<Figure> heatmap_figure(const Study& s);
Figure per_repetition_figure(const Study& s, std::size_t metric, const ReportOptions& o);
std::vector<Figure> target_figures(const Study& s, const ReportOptions& o);
/// The paired comparison against the baseline label, with one figure per compared quantity;
/// nothing for a study with one label.
std::optional<PairedComparison> paired_comparison(const Study& s, const std::vector<std::size_t>& metrics,
                                                  const ReportOptions& o, std::vector<Figure>& figures);
std::string band_text(const ReportOptions& o, int repetitions);

}  // namespace rankone::reporting
