// Mean and row/column biases: batch fit, one-pass running estimate, the bias_baseline estimator.
#include "biases.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace rankone::online_completion {

void Biases::add_to(Estimate& e) const {
  e.bias += mean;
  if (row.size() == 0) return;
  const Index k = e.left.cols();
  e.left.conservativeResize(Eigen::NoChange, k + 2);
  e.right.conservativeResize(Eigen::NoChange, k + 2);
  e.left.col(k) = row;
  e.left.col(k + 1).setOnes();
  e.right.col(k).setOnes();
  e.right.col(k + 1) = col;
}

// ---- Batch fit ----

BiasFit::BiasFit(const ObservedSet& observed, OffsetKind kind, double regularization)
    : observed_(observed), kind_(kind), lambda_(regularization) {
  if (kind_ == OffsetKind::biases) {
    biases_.row = Vector::Zero(observed_.d1);
    biases_.col = Vector::Zero(observed_.d2);
  }
}

double BiasFit::sweep() {
  const Index n = observed_.size();
  const auto value = [&](Index t) { return observed_.values[static_cast<std::size_t>(t)]; };
  const auto row_of = [&](Index t) { return observed_.rows[static_cast<std::size_t>(t)]; };
  const auto col_of = [&](Index t) { return observed_.cols[static_cast<std::size_t>(t)]; };
  const bool with_biases = kind_ == OffsetKind::biases;
  Biases& b = biases_;
  double change = 0.0;

  double sum = 0.0;
  for (Index t = 0; t < n; ++t) sum += value(t) - (with_biases ? b.row(row_of(t)) + b.col(col_of(t)) : 0.0);
  const double mean = sum / static_cast<double>(std::max<Index>(n, 1));
  change += (mean - b.mean) * (mean - b.mean);
  b.mean = mean;
  if (!with_biases) return std::sqrt(change) / std::max(std::abs(b.mean), 1e-300);

  // One side given the other: the ridge solution of each bias is its own 1-d problem.
  const auto solve_side = [&](Vector& side, const Vector& other, const std::vector<Index>& start,
                              const std::vector<std::int32_t>& order, const std::vector<std::int32_t>& other_index) {
    for (Index g = 0; g < side.size(); ++g) {
      const Index first = start[static_cast<std::size_t>(g)];
      const Index last = start[static_cast<std::size_t>(g) + 1];
      double residual = 0.0;
      for (Index s = first; s < last; ++s) {
        const Index t = order[static_cast<std::size_t>(s)];
        residual += value(t) - b.mean - other(other_index[static_cast<std::size_t>(t)]);
      }
      const double count = static_cast<double>(last - first);
      const double updated = count + lambda_ > 0.0 ? residual / (lambda_ + count) : 0.0;
      change += (updated - side(g)) * (updated - side(g));
      side(g) = updated;
    }
  };
  solve_side(b.row, b.col, observed_.row_start, observed_.by_row, observed_.cols);
  solve_side(b.col, b.row, observed_.col_start, observed_.by_col, observed_.rows);
  const double norm = std::sqrt(b.mean * b.mean + b.row.squaredNorm() + b.col.squaredNorm());
  return std::sqrt(change) / std::max(norm, 1e-300);
}

void BiasFit::solve(int max_sweeps, double tolerance) {
  for (int s = 0; s < max_sweeps; ++s)
    if (sweep() < tolerance) return;
}

// ---- One pass ----

RunningBiases::RunningBiases(OffsetKind kind, double regularization, Index d1, Index d2)
    : kind_(kind), lambda_(regularization) {
  if (kind_ == OffsetKind::biases) {
    col_sum_ = col_count_ = Vector::Zero(d2);
    row_sum_ = row_count_ = Vector::Zero(d1);
  }
}

double RunningBiases::column_bias(Index j) const {
  const double mean = count_ > 0.0 ? sum_ / count_ : 0.0;
  const double n = col_count_(j);
  return n + lambda_ > 0.0 ? (col_sum_(j) - n * mean) / (lambda_ + n) : 0.0;
}

double RunningBiases::operator()(Index i, Index j) const {
  const double mean = count_ > 0.0 ? sum_ / count_ : 0.0;
  if (kind_ != OffsetKind::biases) return mean;
  const double n = row_count_(i);
  const double row = n + lambda_ > 0.0 ? row_sum_(i) / (lambda_ + n) : 0.0;
  return mean + row + column_bias(j);
}

void RunningBiases::observe(Index i, Index j, double m) {
  sum_ += m;
  count_ += 1.0;
  if (kind_ != OffsetKind::biases) return;
  col_sum_(j) += m;
  col_count_(j) += 1.0;
  row_sum_(i) += m - sum_ / count_ - column_bias(j);
  row_count_(i) += 1.0;
}

Biases RunningBiases::biases() const {
  Biases b;
  b.mean = count_ > 0.0 ? sum_ / count_ : 0.0;
  if (kind_ != OffsetKind::biases) return b;
  b.row.resize(row_sum_.size());
  b.col.resize(col_sum_.size());
  for (Index i = 0; i < b.row.size(); ++i)
    b.row(i) = row_count_(i) + lambda_ > 0.0 ? row_sum_(i) / (lambda_ + row_count_(i)) : 0.0;
  for (Index j = 0; j < b.col.size(); ++j) b.col(j) = column_bias(j);
  return b;
}

// ---- bias_baseline ----

BiasBaseline::BiasBaseline(BiasBaselineOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance), options_(std::move(options)) {}

BiasBaseline::~BiasBaseline() = default;

void BiasBaseline::start(DataSource& data, Rng&) {
  const std::string unusable = check_entry_source(data, false);
  if (!unusable.empty()) return finish(Status::failed, unusable);
  if (!data.finite() || !data.size())
    return finish(Status::failed, "bias_baseline needs a fixed observed set: a finite source (synthetic with `size`)");
  const ProblemShape shape = data.shape();
  Batch all = data.next(*data.size());
  const std::optional<EntryView> entries = entry_view(all);
  if (!entries || entries->size == 0) return finish(Status::failed, "the source holds no observed entries");
  observed_.take(std::move(all), shape.d1, shape.d2, /*grouped=*/true);  // Ω held once, not beside the batch
  fit_ = std::make_unique<BiasFit>(observed_, options_.terms, options_.regularization);
}

double BiasBaseline::iterate(DataSource&) { return fit_->sweep(); }

void BiasBaseline::measure_final_fit() {
  if (!fit_) return;
  if (record_test_fit(estimate(), "relative residual ‖m − m̂‖/‖m‖ on the held-out test set")) return;
  const Biases& b = fit_->biases();
  double residual = 0.0, size = 0.0;
  for (Index t = 0; t < observed_.size(); ++t) {
    const auto s = static_cast<std::size_t>(t);
    const double m = observed_.values[s];
    const double r = m - b(observed_.rows[s], observed_.cols[s]);
    residual += r * r;
    size += m * m;
  }
  if (size > 0.0) record_fit(std::sqrt(residual / size), "relative training residual ‖m − m̂‖/‖m‖ over the observed set (no held-out test set)");
}

Estimate BiasBaseline::low_rank_part() const {
  Estimate e;
  e.left = Matrix::Zero(observed_.d1, 1);
  e.right = Matrix::Zero(observed_.d2, 1);
  return e;
}

Estimate BiasBaseline::estimate() const {
  Estimate e;
  e.left = Matrix::Zero(observed_.d1, 1);  // no low-rank part: a zero column keeps every operator's shape checks happy
  e.right = Matrix::Zero(observed_.d2, 1);
  if (fit_) fit_->biases().add_to(e);
  return e;
}

}  // namespace rankone::online_completion
