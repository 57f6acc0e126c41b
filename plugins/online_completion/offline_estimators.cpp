// Offline baselines als_completion and sgd_mf (offline_estimators.hpp).
#include "offline_estimators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "biases.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/core/threads.hpp"

namespace rankone::online_completion {

namespace {

/// Entry numbers grouped by key (counting sort): order[start[g] .. start[g+1]) have key g.
template <class Key>
void group_by(const std::vector<Key>& key, Index groups, std::vector<Index>& start, std::vector<std::int32_t>& order) {
  start.assign(static_cast<std::size_t>(groups + 1), 0);
  for (Key g : key) ++start[static_cast<std::size_t>(g) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  order.resize(key.size());
  std::vector<Index> next(start.begin(), start.end() - 1);
  for (std::size_t t = 0; t < key.size(); ++t)
    order[static_cast<std::size_t>(next[static_cast<std::size_t>(key[t])]++)] = static_cast<std::int32_t>(t);
}

/// Rows solved together by one thread in an ALS sweep: fixed, so the split never depends on threads.
constexpr Index kRowsPerUnit = 256;

}  // namespace

double ObservedSet::value_rms() const {
  double sum = 0.0;
  for (double v : values) sum += v * v;
  return std::sqrt(sum / static_cast<double>(std::max<Index>(size(), 1)));
}

void ObservedSet::assign(const EntryView& entries, Index rows_count, Index cols_count, bool grouped) {
  copy(entries, rows_count, cols_count, grouped, nullptr);
}

void ObservedSet::take(Batch&& batch, Index rows_count, Index cols_count, bool grouped) {
  const std::optional<EntryView> entries = entry_view(batch);
  if (!entries) throw std::logic_error("ObservedSet::take: the batch does not hold matrix entries");
  copy(*entries, rows_count, cols_count, grouped, &batch);
}

void ObservedSet::copy(const EntryView& entries, Index rows_count, Index cols_count, bool grouped, Batch* release) {
  if (entries.size > std::numeric_limits<std::int32_t>::max())
    throw DataError("the observed set has " + std::to_string(entries.size) + " entries; the offline estimators "
                    "number them in 32 bits (at most 2 147 483 647)");
  d1 = rows_count;
  d2 = cols_count;
  rows.assign(entries.rows, entries.rows + entries.size);
  if (release) release->left = DesignSide{};
  cols.assign(entries.cols, entries.cols + entries.size);
  if (release) release->right = DesignSide{};
  values.resize(static_cast<std::size_t>(entries.size));
  for (Index t = 0; t < entries.size; ++t) values[static_cast<std::size_t>(t)] = entries.value(t);
  if (release) release->y = Vector();
  if (!grouped) return;
  group_by(rows, d1, row_start, by_row);
  group_by(cols, d2, col_start, by_col);
}

// ---- OfflineCompletion ----

OfflineCompletion::OfflineCompletion(OfflineOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance), options_(std::move(options)) {
  describe_best_iterate("the training entries", "pass");
}

namespace {
struct Factors {
  RowMatrix U, V;
};
}  // namespace

std::any OfflineCompletion::snapshot() const { return Factors{U_, V_}; }

void OfflineCompletion::restore(const std::any& state) {
  const auto& f = std::any_cast<const Factors&>(state);
  U_ = f.U;
  V_ = f.V;
}

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
  const double value_scale = entries->value_scale;
  // SGD visits Ω in its own order: only ALS and the bias fit read it by row and by column.
  const bool grouped = options_.method == OfflineOptions::Method::als_completion || options_.offset == OffsetKind::biases;
  // Only a start that reads data reads the batch again; otherwise Ω moves into observed_, held once.
  const bool reads = start_reads_data();
  if (reads) {
    observed_.assign(*entries, shape.d1, shape.d2, grouped);
    // The start sees unit designs e_i e_j' and y = M_ij, whatever the sampler's scale: the entry
    // operator's moment inversion d1 d2 𝒜'(y)/n is stated for them.
    all.y *= value_scale;
    all.left.scale = 1.0;
    all.right->scale = 1.0;
  } else {
    observed_.take(std::move(all), shape.d1, shape.d2, grouped);
  }
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
      if (reads) all.y(t) -= shift;  // the start sees the same residuals
    }
    offset_mean_ = b.mean;
    offset_row_ = b.row;
    offset_col_ = b.col;
  }

  const Index k = options_.rank;
  if (k > std::min(shape.d1, shape.d2))
    return finish(Status::failed, "rank " + std::to_string(k) + " exceeds min(d1, d2) = " +
                                      std::to_string(std::min(shape.d1, shape.d2)));
  StartRequest request = training_set_request(all, k);  // all is empty when Ω took it: that start reads nothing
  // The whole of Ω is handed over, not copied (it is not read again here).
  const auto first_instances = request.read;
  request.read = [&all, first_instances](Index n) { return n >= all.instances() ? Batch(std::move(all)) : first_instances(n); };
  request.eigen_tolerance = 1e-8;  // the subspace only roughly: the passes refine it
  // A random start's products u'v, sums of k terms of variance std⁴, have the variance of the entries.
  request.random_std = std::pow(observed_.value_rms() * observed_.value_rms() / static_cast<double>(k), 0.25);
  const Start start = initial_model(data, request, rng_);
  if (!start.ok) return finish(Status::failed, "no start: " + start.failure);
  const auto [left, right] = completion_factors(start, k);
  U_ = left;
  V_ = right;
  row_energy_ = mean_row_energy(U_, V_);
  if (!(row_energy_ > 0.0)) finish(Status::failed, "the initial factors are zero (all observed entries are 0?)");
}

double OfflineCompletion::iterate(DataSource&) {
  saved_U_ = U_;
  saved_V_ = V_;
  const double squared_residuals = sweep();
  const double rms = std::sqrt(squared_residuals / static_cast<double>(observed_.size()));
  const auto back_to_best = [this] {
    std::string kept = restore_best("");
    if (!kept.empty()) return kept;
    U_ = saved_U_;
    V_ = saved_V_;
    return std::string("; the estimate is the one before this pass");
  };
  // Factors that overflowed with a finite residual sum are caught by the non-finite arm too.
  const double judged = U_.allFinite() && V_.allFinite() ? rms : std::numeric_limits<double>::infinity();
  if (end_if_diverged(judged, observed_.value_rms(), options_.divergence_factor,
                      "on the observed entries after pass " + std::to_string(iteration() + 1), "the entries' RMS",
                      back_to_best))
    return -1.0;
  // No fresh data: the fit is the training residual of this pass (ALS: after it; SGD: each entry
  // before its own update).
  const double value_norm = observed_.value_rms() * std::sqrt(static_cast<double>(observed_.size()));
  if (value_norm > 0.0) {
    const double fit = std::sqrt(squared_residuals) / value_norm;
    record_fit(fit, "relative training residual ‖m − m̂‖/‖m‖ over the observed set (after the offset; no held-out test set)");
    keep_if_best(fit, iteration() + 1);
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
  if (options_.regularization > 0.1) hints.push_back("regularization " + short_number(options_.regularization) + " may be too strong");
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
                               const std::vector<std::int32_t>& order, const std::vector<std::int32_t>& other_index) {
  const Index k = target.cols();
  const double other_energy = other.squaredNorm() / static_cast<double>(other.rows());
  const Index units = (target.rows() + kRowsPerUnit - 1) / kRowsPerUnit;
  for_each_unit(units, resolve_threads(options_.threads), [&](Index unit) {
    Matrix normal(k, k);
    Vector rhs(k);
    Eigen::LDLT<Matrix> solver(k);
    const Index end = std::min(target.rows(), (unit + 1) * kRowsPerUnit);
    for (Index i = unit * kRowsPerUnit; i < end; ++i) {
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
  });
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

void SgdMf::deal_blocks() {
  const Index blocks = options_.blocks;
  // The group of each row (column): contiguous runs of ids holding about |Ω|/blocks entries each.
  // Contiguous, so that two threads never write rows of U or V that share a cache line (beyond a
  // run's ends); balanced by entries, so that a stratum's blocks take about the same time.
  const auto deal = [&](const std::vector<std::int32_t>& ids, Index count) {
    std::vector<Index> entries_before(static_cast<std::size_t>(count) + 1, 0);
    for (std::int32_t id : ids) ++entries_before[static_cast<std::size_t>(id) + 1];
    std::partial_sum(entries_before.begin(), entries_before.end(), entries_before.begin());
    std::vector<Index> group(static_cast<std::size_t>(count));
    const double total = static_cast<double>(std::max<Index>(entries_before.back(), 1));
    for (Index i = 0; i < count; ++i) {
      const double middle = 0.5 * static_cast<double>(entries_before[static_cast<std::size_t>(i)] +
                                                      entries_before[static_cast<std::size_t>(i) + 1]);
      group[static_cast<std::size_t>(i)] = std::min<Index>(blocks - 1, static_cast<Index>(middle / total * static_cast<double>(blocks)));
    }
    return group;
  };
  {
    const std::vector<Index> row_group = deal(observed_.rows, observed_.d1), col_group = deal(observed_.cols, observed_.d2);
    std::vector<std::int32_t> block_of(static_cast<std::size_t>(observed_.size()));
    for (std::size_t t = 0; t < block_of.size(); ++t)
      block_of[t] = static_cast<std::int32_t>(row_group[static_cast<std::size_t>(observed_.rows[t])] * blocks +
                                              col_group[static_cast<std::size_t>(observed_.cols[t])]);
    group_by(block_of, blocks * blocks, block_start_, order_);
  }
  if (blocks > 1) store_by_block();
  strata_.resize(static_cast<std::size_t>(blocks));
  std::iota(strata_.begin(), strata_.end(), Index{0});
}

void SgdMf::store_by_block() {
  // Position s takes entry order_[s], in place, cycle by cycle: no second copy of Ω.
  std::vector<bool> placed(order_.size(), false);
  for (std::size_t start = 0; start < order_.size(); ++start) {
    if (placed[start]) continue;
    const std::int32_t row = observed_.rows[start], col = observed_.cols[start];
    const double value = observed_.values[start];
    std::size_t s = start;
    for (auto from = static_cast<std::size_t>(order_[s]); from != start; s = from, from = static_cast<std::size_t>(order_[s])) {
      observed_.rows[s] = observed_.rows[from];
      observed_.cols[s] = observed_.cols[from];
      observed_.values[s] = observed_.values[from];
      placed[s] = true;
    }
    observed_.rows[s] = row;
    observed_.cols[s] = col;
    observed_.values[s] = value;
    placed[s] = true;
  }
  std::iota(order_.begin(), order_.end(), 0);
  // The grouping by row and column (the bias fit's) numbers entries as they were: it goes.
  observed_.row_start = observed_.col_start = {};
  observed_.by_row = observed_.by_col = {};
}

double SgdMf::update_block(Index block, double step, double ridge) {
  const Index k = U_.cols();
  double squared = 0.0;
  for (Index s = block_start_[static_cast<std::size_t>(block)]; s < block_start_[static_cast<std::size_t>(block) + 1]; ++s) {
    const auto t = static_cast<std::size_t>(order_[static_cast<std::size_t>(s)]);
    double* u = U_.row(observed_.rows[t]).data();
    double* v = V_.row(observed_.cols[t]).data();
    double inner = 0.0;
    for (Index a = 0; a < k; ++a) inner += u[a] * v[a];
    const double e = observed_.values[t] - inner;
    squared += e * e;
    for (Index a = 0; a < k; ++a) {
      const double ua = u[a];
      u[a] += step * (e * v[a] - ridge * ua);
      v[a] += step * (e * ua - ridge * v[a]);
    }
  }
  return squared;
}

double SgdMf::sweep() {
  if (order_.empty()) deal_blocks();
  const Index blocks = options_.blocks;
  const auto shuffle = [](auto first, auto last, Rng& rng) {  // Fisher–Yates
    for (auto t = static_cast<std::size_t>(last - first); t > 1; --t) std::swap(first[t - 1], first[rng.below(t)]);
  };
  const auto block_entries = [&](Index block) {
    return std::pair(order_.begin() + block_start_[static_cast<std::size_t>(block)],
                     order_.begin() + block_start_[static_cast<std::size_t>(block) + 1]);
  };
  // This epoch's draws: the strata's order here, each block's entry order from a stream of its own
  // (seeded here), so a block is shuffled by whichever thread runs it with the same result.
  shuffle(strata_.begin(), strata_.end(), rng_);
  const std::uint64_t epoch_seed = blocks == 1 ? 0 : rng_();
  const double step = options_.learning_rate / row_energy_;
  const double ridge = options_.regularization * row_energy_;
  const int threads = resolve_threads(options_.threads);
  std::vector<double> squared(static_cast<std::size_t>(blocks * blocks), 0.0);
  // Round r is stratum strata_[r]: blocks (p, p + stratum), no two of which share a row or a column,
  // so they update disjoint rows of U and V.
  for_each_unit_in_rounds(blocks, blocks, threads, [&](Index round, Index p) {
    const Index block = p * blocks + (p + strata_[static_cast<std::size_t>(round)]) % blocks;
    const auto [first, last] = block_entries(block);
    if (blocks == 1) {
      shuffle(first, last, rng_);  // plain SGD draws from the estimator's stream, as it always has
    } else {
      Rng block_rng(derive_seed(epoch_seed, std::to_string(block)));
      shuffle(first, last, block_rng);
    }
    squared[static_cast<std::size_t>(block)] = update_block(block, step, ridge);
  });
  return std::accumulate(squared.begin(), squared.end(), 0.0);  // in block order: independent of threads
}

}  // namespace rankone::online_completion
