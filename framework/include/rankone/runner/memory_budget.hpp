#pragma once
/// \file The memory budget of a trial: its footprint (the source's, the estimator's and the metrics'
/// declared footprints, interfaces/footprint.hpp) against what the trial may hold. Checked twice:
/// by `plan_experiment` from the parameters before anything runs, and while a source reads its shape
/// from the data (a file's largest index), through `DataSource::set_shape_budget`.
#include <string>
#include <vector>

#include "rankone/experiment/experiment.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone {

/// What a trial's process holds before its data: the code, the plugins, the runtime. Measured as the
/// peak resident memory of a trial of `d = 2` (9.2 MiB; docs/studies.md, "Memory budget").
inline constexpr double kTrialBaselineBytes = 12.0 * 1024 * 1024;

/// One trial's footprint, part by part, each with the component that holds it.
struct TrialFootprint {
  struct Part {
    std::string path;   ///< JSON path of the component ("/data", "/estimators/0", "/metrics/1")
    std::string owner;  ///< "source 'synthetic'", "estimator 'spectral'"
    MemoryPart part;
  };
  std::vector<Part> parts;
  double bytes() const;
  /// The component part that holds the most (the one to change).
  const Part& largest() const;
  /// "estimator 'spectral': batch of 10 000 dense designs (d = 1e+08) 7.45 TiB; …" (the largest first).
  std::string describe(std::size_t max_parts = 4) const;
};

/// The footprint of `spec`'s trial; `read` is what its source has read from the data so far: the
/// shape and, once open, its training instances (zeros before reading: a file source's dimension is
/// then unknown and its parts that grow with it count as zero).
TrialFootprint trial_footprint(const TrialSpec& spec, const Registry& registry, const DataFootprint& read = {});

/// "" when `footprint` fits `budget` (or the budget is 0), else a sentence naming the estimate, the
/// largest parts and the limit.
std::string over_budget(const TrialFootprint& footprint, const MemoryBudget& budget);

/// The check a source calls while it reads its shape (DataSource::ShapeBudget) for `spec`'s trial.
DataSource::ShapeBudget shape_budget(const TrialSpec& spec, const Registry& registry);

}  // namespace rankone
