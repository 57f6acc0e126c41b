// Offline baselines als_completion and sgd_mf (offline_estimators.hpp).
#include "offline_estimators.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <vector>

#include "biases.hpp"

namespace rankone::online_completion {

namespace {

std::string format(double v) {
  std::ostringstream s;
  s.precision(3);
  s << v;
  return s.str();
}

/// Entry numbers grouped by key (counting sort): order[start[g] .. start[g+1]) have key g.
void group_by(const std::vector<std::int32_t>& key, Index groups, std::vector<Index>& start, std::vector<Index>& order) {
  start.assign(static_cast<std::size_t>(groups + 1), 0);
  for (std::int32_t g : key) ++start[static_cast<std::size_t>(g) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  order.resize(key.size());
  std::vector<Index> next(start.begin(), start.end() - 1);
  for (std::size_t t = 0; t < key.size(); ++t) order[static_cast<std::size_t>(next[static_cast<std::size_t>(key[t])]++)] = static_cast<Index>(t);
}

}  // namespace

double ObservedSet::value_rms() const {
  double sum = 0.0;
  for (double v : values) sum += v * v;
  return std::sqrt(sum / static_cast<double>(std::max<Index>(size(), 1)));
}

void ObservedSet::assign(const EntryView& entries, Index rows_count, Index cols_count) {
  d1 = rows_count;
  d2 = cols_count;
  rows.assign(entries.rows, entries.rows + entries.size);
  cols.assign(entries.cols, entries.cols + entries.size);
  values.resize(static_cast<std::size_t>(entries.size));
  for (Index t = 0; t < entries.size; ++t) values[static_cast<std::size_t>(t)] = entries.value(t);
  group_by(rows, d1, row_start, by_row);
  group_by(cols, d2, col_start, by_col);
}

// ---- OfflineCompletion ----

OfflineCompletion::OfflineCompletion(OfflineOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance), options_(std::move(options)) {}

OfflineCompletion::~OfflineCompletion() = default;

void OfflineCompletion::start(DataSource& data, Rng& rng) {
  const std::string unusable = check_entry_source(data, false);
  if (!unusable.empty()) return finish(Status::failed, unusable);
  if (!data.finite() || !data.size())
    return finish(Status::failed, name() + " needs a fixed observed set: a finite source (synthetic with `size`)");
  const ProblemShape shape = data.shape();
  Batch all = data.next(*data.size());  // one pass: Ω
  const std::optional<EntryView> entries = entry_view(all);
  if (!entries || entries->size == 0) return finish(Status::failed, "the source holds no observed entries");
  observed_.assign(*entries, shape.d1, shape.d2);
  rng_ = rng;
  if (options_.offset != OffsetKind::none) {
    // U V' is fitted to M − offset, the offset being the bias fit on Ω to convergence.
    BiasFit fit(observed_, options_.offset, options_.offset_regularization);
    fit.solve(1000, 1e-12);
    const Biases& b = fit.biases();
    for (Index t = 0; t < observed_.size(); ++t) {
      const auto s = static_cast<std::size_t>(t);
      const double shift = b(observed_.rows[s], observed_.cols[s]);
      observed_.values[s] -= shift;
      all.y(t) -= shift / entries->value_scale;  // the spectral start sees the same residuals
    }
    offset_mean_ = b.mean;
    offset_row_ = b.row;
    offset_col_ = b.col;
  }

  const Index k = options_.rank;
  if (options_.init == "spectral") {
    WarmStart warm = spectral_warm_start(all, data.sensing_operator(), shape, k, false, rng_);
    if (!warm.failure.empty()) return finish(Status::failed, "spectral initialisation: " + warm.failure);
    U_ = std::move(warm.left);
    V_ = std::move(warm.right);
  } else {
    // Gaussian factors whose products u'v have the variance of the observed entries: k s⁴ = mean(M_ij²).
    const double s = std::pow(observed_.value_rms() * observed_.value_rms() / static_cast<double>(k), 0.25);
    U_.resize(shape.d1, k);
    V_.resize(shape.d2, k);
    rng_.fill_normal(U_.data(), U_.size());
    rng_.fill_normal(V_.data(), V_.size());
    U_ *= s;
    V_ *= s;
  }
  row_energy_ = mean_row_energy(U_, V_);
  if (!(row_energy_ > 0.0)) finish(Status::failed, "the initial factors are zero (all observed entries are 0?)");
}

double OfflineCompletion::iterate(DataSource&) {
  saved_U_ = U_;
  saved_V_ = V_;
  const double squared_residuals = sweep();
  const double rms = std::sqrt(squared_residuals / static_cast<double>(observed_.size()));
  const double limit = options_.divergence_factor * observed_.value_rms();
  if (!std::isfinite(rms) || rms > limit || !U_.allFinite() || !V_.allFinite()) {
    std::string kept = "; the estimate is the one before this pass";
    if (std::isfinite(best_fit_)) {
      U_ = best_U_;
      V_ = best_V_;
      summary_.fit = best_fit_;
      kept = "; the estimate returned is the one with the lowest training residual (after pass " +
             std::to_string(best_iteration_) + ", relative residual " + format(best_fit_) + ")";
    } else {
      U_ = saved_U_;
      V_ = saved_V_;
    }
    finish(Status::diverged, name() + " diverged in pass " + std::to_string(iteration() + 1) +
                                 ": training RMS residual " + format(rms) + " exceeds " +
                                 format(options_.divergence_factor) + " × the RMS of the observed entries" + kept);
    return -1.0;
  }
  // No fresh data: the fit is the training residual of this pass (ALS: after it; SGD: each entry
  // before its own update).
  const double value_norm = observed_.value_rms() * std::sqrt(static_cast<double>(observed_.size()));
  if (value_norm > 0.0) {
    const double fit = std::sqrt(squared_residuals) / value_norm;
    record_fit(fit, "relative training residual ‖m − m̂‖/‖m‖ over the observed set (after the offset; no held-out test set)");
    if (fit < best_fit_) {
      best_fit_ = fit;
      best_U_ = U_;
      best_V_ = V_;
      best_iteration_ = iteration() + 1;
    }
  }
  const double change = std::sqrt((U_ - saved_U_).squaredNorm() + (V_ - saved_V_).squaredNorm());
  return change / std::max(std::sqrt(U_.squaredNorm() + V_.squaredNorm()), 1e-300);
}

void OfflineCompletion::measure_final_fit() {
  // Honest against overfitting: the held-out entries when there are any; the training residual
  // recorded by the last pass otherwise.
  record_test_fit(estimate(), "relative residual ‖m − m̂‖/‖m‖ on the held-out test set");
}

std::string OfflineCompletion::stall_hint() const {
  std::vector<std::string> hints;
  const double d = static_cast<double>(std::max(observed_.d1, observed_.d2));
  const double needed = 10.0 * d * static_cast<double>(options_.rank) * std::log(std::max(d, 2.0));
  if (static_cast<double>(observed_.size()) < needed)
    hints.push_back("too few observed entries for d and rank (" + std::to_string(observed_.size()) +
                    " entries of a " + std::to_string(observed_.d1) + " × " + std::to_string(observed_.d2) +
                    " matrix of rank " + std::to_string(options_.rank) + ", need of order 10·d·k·log d = " +
                    std::to_string(static_cast<long long>(std::ceil(needed))) + ")");
  if (options_.regularization > 0.1) hints.push_back("regularization " + format(options_.regularization) + " may be too strong");
  if (hints.empty()) hints.push_back("the matrix may be far from rank " + std::to_string(options_.rank));
  std::string text;
  for (const auto& h : hints) text += (text.empty() ? "" : "; ") + h;
  return text;
}

Estimate OfflineCompletion::low_rank_part() const {
  Estimate e;
  e.left = U_;
  e.right = V_;
  return e;
}

Estimate OfflineCompletion::estimate() const {
  Estimate e;
  e.left = U_;
  e.right = V_;
  Biases{offset_mean_, offset_row_, offset_col_}.add_to(e);
  return e;
}

// ---- ALS ----

AlsCompletion::~AlsCompletion() = default;

void AlsCompletion::solve_rows(RowMatrix& target, const RowMatrix& other, const std::vector<Index>& start,
                               const std::vector<Index>& order, const std::vector<std::int32_t>& other_index) {
  const Index k = target.cols();
  const double other_energy = other.squaredNorm() / static_cast<double>(other.rows());
  Matrix normal(k, k);
  Vector rhs(k);
  Eigen::LDLT<Matrix> solver(k);
  for (Index i = 0; i < target.rows(); ++i) {
    const Index first = start[static_cast<std::size_t>(i)];
    const Index last = start[static_cast<std::size_t>(i) + 1];
    if (first == last) {
      target.row(i).setZero();  // an unobserved row: the ridge alone gives 0
      continue;
    }
    normal.setZero();
    rhs.setZero();
    for (Index s = first; s < last; ++s) {
      const auto t = static_cast<std::size_t>(order[static_cast<std::size_t>(s)]);
      const auto v = other.row(other_index[t]).transpose();
      normal.selfadjointView<Eigen::Lower>().rankUpdate(v);
      rhs += observed_.values[t] * v;
    }
    const double ridge = options_.regularization * static_cast<double>(last - first) * other_energy;
    normal.diagonal().array() += std::max(ridge, 1e-300);
    solver.compute(normal.selfadjointView<Eigen::Lower>());
    target.row(i) = solver.solve(rhs).transpose();
  }
}

double AlsCompletion::sweep() {
  solve_rows(U_, V_, observed_.row_start, observed_.by_row, observed_.cols);
  solve_rows(V_, U_, observed_.col_start, observed_.by_col, observed_.rows);
  double squared = 0.0;
  for (Index t = 0; t < observed_.size(); ++t) {
    const auto s = static_cast<std::size_t>(t);
    const double r = U_.row(observed_.rows[s]).dot(V_.row(observed_.cols[s])) - observed_.values[s];
    squared += r * r;
  }
  return squared;
}

// ---- SGD-MF ----

SgdMf::~SgdMf() = default;

double SgdMf::sweep() {
  const Index k = U_.cols();
  if (order_.empty()) {
    order_.resize(static_cast<std::size_t>(observed_.size()));
    std::iota(order_.begin(), order_.end(), Index{0});
  }
  for (std::size_t t = order_.size(); t > 1; --t) std::swap(order_[t - 1], order_[rng_.below(t)]);  // Fisher–Yates
  const double step = options_.learning_rate / row_energy_;
  const double ridge = options_.regularization * row_energy_;
  double squared = 0.0;
  for (Index t : order_) {
    const auto s = static_cast<std::size_t>(t);
    double* u = U_.row(observed_.rows[s]).data();
    double* v = V_.row(observed_.cols[s]).data();
    double inner = 0.0;
    for (Index a = 0; a < k; ++a) inner += u[a] * v[a];
    const double e = observed_.values[s] - inner;
    squared += e * e;
    for (Index a = 0; a < k; ++a) {
      const double ua = u[a];
      u[a] += step * (e * v[a] - ridge * ua);
      v[a] += step * (e * ua - ridge * v[a]);
    }
  }
  return squared;
}

}  // namespace rankone::online_completion
