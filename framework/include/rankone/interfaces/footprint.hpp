#pragma once
/// \file Memory footprints: what a trial's components hold at their peak, estimated from their
/// parameters before anything runs, so that a study that cannot fit is refused up front instead of
/// swapping or dying on `std::bad_alloc` (runner/memory_budget.hpp checks them).
///
/// Every plugin kind declares its footprint the same way (`Registration::footprint`):
///  - a sampler says how many bytes one design vector of dimension `data.shape.d1` takes;
///  - a source says the data it serves (`Footprint::data`) and what it holds itself (truth, test set,
///    buffers), from its parameters and the shape read from its files so far (zero before reading);
///  - an estimator or a metric says what it holds on that data (batches, model, workspaces).
/// Estimates count the dominant terms (anything that grows with d, n or the data) in bytes, as
/// doubles to avoid overflow: a dimension of 10⁹ times a batch of 10¹² is a number, not a wrap.
#include <algorithm>
#include <string>
#include <vector>

#include "rankone/interfaces/sensing_operator.hpp"
#include "rankone/linalg/blocked_products.hpp"  // kDesignBlock

namespace rankone {

class Registry;

/// The data a trial serves, as far as the parameters (and what was read) say.
struct DataFootprint {
  ProblemShape shape;               ///< d1 × d2; 0 where not known before the data is read (a file)
  double instance_bytes = 0;        ///< one instance of a served batch: its designs and responses
  double measurements_per_instance = 1;  ///< d2 when every label of an instance is observed
  double training_instances = 0;    ///< a finite source's instances in one pass (0: endless or unknown)
  bool endless = false;             ///< the source never runs out (synthetic without `size`)
  double test_instances = 0;        ///< held-out instances
  double test_measurements_per_instance = 1;
  bool has_truth = false;           ///< a planted truth (iterative estimators then keep a second batch for the noise floor)
  bool dense_designs = false;       ///< the left designs are dense vectors
  /// The truth or the estimate removes its diagonal, so comparing them forms dense d1 × d2 matrices.
  bool zero_diagonal_model = false;
};

struct MemoryPart {
  std::string what;  ///< e.g. "batch of 10 000 dense designs (d = 1e+06)"
  double bytes = 0;
};

struct Footprint {
  std::vector<MemoryPart> parts;  ///< what the component holds at its peak
  /// Sources: the data they serve; samplers: `instance_bytes` of one design; estimators: only
  /// `zero_diagonal_model`, set when their estimate removes its diagonal (metrics then go dense).
  DataFootprint data;
  double bytes() const;           ///< the sum of the parts
  void add(std::string what, double bytes) { parts.push_back(MemoryPart{std::move(what), bytes}); }
};

/// What a footprint model is told: the registry (for nested plugins, e.g. a source's sampler) and
/// the data (for a source, what it has read so far: `shape` and, once open, `training_instances`;
/// for a sampler, `shape.d1` is its dimension).
struct FootprintContext {
  const Registry& registry;
  DataFootprint data;
};

/// Bytes of a dense `rows × cols` matrix of doubles.
inline double dense_bytes(double rows, double cols) { return 8.0 * rows * cols; }
/// The instances a request for `n` gets: no more than a finite source has.
inline double served_instances(const DataFootprint& data, double n) {
  return data.training_instances > 0 && data.training_instances < n ? data.training_instances : n;
}
/// Bytes of a batch of `instances` requested (capped by what a finite source has).
inline double batch_bytes(const DataFootprint& data, double instances) {
  return served_instances(data, instances) * data.instance_bytes;
}
/// Eigen's packing buffer when an estimator multiplies a dense d × n design by a thin matrix with Eigen
/// itself: 8·kc·n once d exceeds the largest depth block (760 with a 48 KiB L1 cache), kc then about 500
/// (heaptrack at d = 1000). The operators' products (DesignSide::project, accumulate) pack nothing.
inline double product_packing_bytes(double d, double n) { return d > 760 ? 8.0 * 500 * n : 0.0; }
/// What an operator's adjoint holds per column of Z on a batch of n instances: the projections and the
/// weights, n each, except that a symmetric operator on dense designs takes a block of designs at a time
/// (rankone/linalg/blocked_products.hpp).
inline double adjoint_bytes_per_column(const DataFootprint& data, double n) {
  const bool one_pass = data.shape.symmetric && data.dense_designs;
  return 2 * 8.0 * (one_pass ? std::min(n, static_cast<double>(kDesignBlock)) : n);
}
/// The end-of-trial spectrum of a zero-diagonal estimate: a dense d × d matrix and its SVD (resident:
/// about five such matrices).
inline double dense_spectrum_bytes(double d1, double d2) { return 5 * dense_bytes(d1, d2); }
/// "14.9 GiB", "512 KiB", "12 bytes".
std::string format_bytes(double bytes);
/// A count in messages: "10 000", or "1e+09" beyond a billion.
std::string format_count(double n);

}  // namespace rankone
