// The online SGD estimators omc_psd, omc_general_theoretical, omc_general (online_estimators.hpp).
#include "online_estimators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>
#include <vector>

#include "update_kernels.hpp"

namespace rankone::online_completion {

Index trim_rows(RowMatrix& factor, double factor_of_mean) {
  const double limit = factor_of_mean * factor.squaredNorm() / static_cast<double>(factor.rows());
  Index trimmed = 0;
  for (Index i = 0; i < factor.rows(); ++i) {
    const double energy = factor.row(i).squaredNorm();
    if (energy > limit) {
      factor.row(i) *= std::sqrt(limit / energy);
      ++trimmed;
    }
  }
  return trimmed;
}

// ---- OnlineCompletion ----

OnlineCompletion::OnlineCompletion(OnlineOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance), options_(options) {
  describe_best_iterate("fresh entries", "batch");
}

namespace {
struct OnlineState {
  RowMatrix U, V;
  std::optional<RunningBiases> offset;
};
}  // namespace

std::any OnlineCompletion::snapshot() const { return OnlineState{U_, psd() ? RowMatrix() : V_, offset_}; }

void OnlineCompletion::restore(const std::any& state) {
  const auto& s = std::any_cast<const OnlineState&>(state);
  U_ = s.U;
  if (!psd()) V_ = s.V;
  if (offset_) offset_ = s.offset;
  after_restore();
}

OnlineCompletion::~OnlineCompletion() = default;

void OnlineCompletion::start(DataSource& data, Rng& rng) {
  const std::string unusable = check_entry_source(data, psd());
  if (!unusable.empty()) return finish(Status::failed, unusable);
  const ProblemShape shape = data.shape();
  d1_ = shape.d1;
  d2_ = shape.d2;
  if (options_.rank > std::min(d1_, d2_))
    return finish(Status::failed, "rank " + std::to_string(options_.rank) + " exceeds min(d1, d2) = " +
                                      std::to_string(std::min(d1_, d2_)));
  StartRequest request;
  request.rank = options_.rank;
  request.one_factor = psd();  // U U'
  request.psd_floor = 1e-6;    // a zero column of U is a fixed point of the SGD
  request.eigen_tolerance = 1e-8;  // the subspace only roughly: the SGD refines it
  // |Ω_init| of the paper's warm start, the default of a data-driven start's batch.
  request.batch_size = options_.init_batch(shape.d1, shape.d2);
  Index asked = 0;
  bool index_entries = true;
  // The start reads the warm-start entries through this reader: unit designs (y = M_ij, whatever
  // the sampler's scale), seen by the asymmetry hint, then minus the offset learnt from them.
  request.read = [&](Index n) {
    asked = n;
    Batch batch = data.next(n);
    const std::optional<EntryView> entries = entry_view(batch);
    if (!entries) {
      index_entries = false;
      return Batch();
    }
    batch.y *= entries->value_scale;
    batch.left.scale = 1.0;
    batch.right->scale = 1.0;
    const EntryView unit = *entry_view(batch);  // views batch.y, so sees the edits below
    if (psd()) measure_asymmetry(unit);
    if (options_.offset != OffsetKind::none) {
      offset_.emplace(options_.offset, options_.offset_regularization, shape.d1, shape.d2);
      for (Index t = 0; t < unit.size; ++t) offset_->observe(unit.row(t), unit.col(t), unit.value(t));
      for (Index t = 0; t < unit.size; ++t) batch.y(t) -= (*offset_)(unit.row(t), unit.col(t));
    }
    return batch;
  };
  const Start start = initial_model(data, request, rng);
  if (!index_entries) return finish(Status::failed, "the warm-start batch does not hold single-entry observations");
  if (!start.ok) return finish(Status::failed, "no start: " + start.failure);
  if (options_.offset != OffsetKind::none && !offset_)
    offset_.emplace(options_.offset, options_.offset_regularization, shape.d1, shape.d2);  // learnt online only
  // The factored start: U of U U' as the start gives it (one factor), or completion_factors.
  if (psd()) {
    U_ = start.model.left;
    V_ = U_;
  } else {
    const auto [left, right] = completion_factors(start, options_.rank);
    U_ = left;
    V_ = right;
  }
  if (!U_.allFinite() || !V_.allFinite()) return finish(Status::failed, "no start: the start is not finite");
  if (!(mean_row_energy(U_, V_) > 0.0))
    return finish(Status::failed, "no start: the start is zero (no positive " +
                                      std::string(psd() ? "eigenvalue" : "singular value") + " in its M)");
  if (options_.trim > 0.0) {
    Index trimmed = trim_rows(U_, options_.trim);
    if (psd()) V_ = U_;
    else trimmed += trim_rows(V_, options_.trim);
    if (trimmed > 0)
      summary_.notes.push_back(algorithm() + ": the warm start trimmed " + std::to_string(trimmed) +
                               " spiky factor rows (trim = " + short_number(options_.trim) + ")");
  }
  const std::optional<EntryView> warm_entries = entry_view(start.batch);
  entries_seen_ = warm_entries ? warm_entries->size : 0;
  if (options_.init_fit) {
    if (!warm_entries || warm_entries->size == 0)
      return finish(Status::failed, "init_fit \"scale\" rescales the start on the entries it read, and this "
                                    "start reads none: use a data-driven start (spectral_init) or init_fit \"none\"");
    fit_warm_start_scale(*warm_entries);
  }

  // The step multiplies the residual of the observed entry by 2 η d1 d2 (‖u_i‖² + ‖v_j‖²) in
  // expectation over the entry; step_size is that number for the warm start's row norms.
  const double d1d2 = static_cast<double>(shape.d1) * static_cast<double>(shape.d2);
  const double row_energy = mean_row_energy(U_, V_);
  learning_rate_ = options_.learning_rate.value_or(options_.step_size / (2.0 * d1d2 * row_energy));
  gain_ = 2.0 * learning_rate_ * d1d2;
  prepare();
  // A finite source that ran out inside the warm start leaves nothing for the online phase: the
  // estimate is the warm start alone, from too few entries to trust. Not a success.
  if (data.finite() && asked > 0 && entries_seen_ < asked) {
    exhausted_ = true;
    const std::string hint = stall_hint();
    finish(Status::stalled, "the source ran out inside the warm start (" + std::to_string(entries_seen_) + " of " +
                                std::to_string(asked) + " warm-start entries): no online phase was run" +
                                (hint.empty() ? std::string() : ". Hint: " + hint));
  }
}

void OnlineCompletion::measure_asymmetry(const EntryView& entries) {
  // Entries seen at both (i, j) and (j, i) off the diagonal: a symmetric matrix agrees on them up to noise.
  std::unordered_map<std::uint64_t, double> seen;
  seen.reserve(static_cast<std::size_t>(entries.size));
  const auto key = [](std::uint64_t i, std::uint64_t j) { return (i << 32) | j; };
  double difference = 0.0, size = 0.0;
  Index pairs = 0;
  for (Index t = 0; t < entries.size; ++t) {
    const std::uint64_t i = static_cast<std::uint32_t>(entries.row(t));
    const std::uint64_t j = static_cast<std::uint32_t>(entries.col(t));
    if (i == j) continue;
    const double m = entries.value(t);
    if (const auto it = seen.find(key(j, i)); it != seen.end()) {
      difference += (m - it->second) * (m - it->second);
      size += 0.5 * (m * m + it->second * it->second);
      ++pairs;
    }
    seen.emplace(key(i, j), m);
  }
  asymmetric_pairs_ = pairs;
  if (pairs > 0 && size > 0.0) asymmetry_ = std::sqrt(difference / size);
}

namespace {
const char* const kFreshFitMeasure =
    "relative residual ‖m − m̂‖/‖m‖ of the last batch's fresh entries, each predicted before its own update";
}  // namespace

double OnlineCompletion::iterate(DataSource& data) {
  Batch batch = data.next(options_.batch_size);
  if (batch.empty()) {
    exhausted_ = true;
    finish(Status::max_iterations, "the data source is exhausted after " + std::to_string(data.samples_drawn()) +
                                       " observations" + warm_start_note_);
    return -1.0;
  }
  const std::optional<EntryView> entries = entry_view(batch);
  if (!entries) {
    finish(Status::failed, "a batch does not hold single-entry observations (operator 'entry', sampler 'one_hot')");
    return -1.0;
  }
  if (offset_) saved_offset_ = offset_;
  double squared_values = 0.0;
  for (Index t = 0; t < entries->size; ++t) squared_values += entries->value(t) * entries->value(t);
  entries_seen_ += entries->size;
  const BatchStats stats = process(offset_ ? residual_entries(*entries) : *entries);
  // An update that stopped early (a non-finite residual) counts as diverged: the shared rule sees a NaN.
  const double residual_rms = stats.processed < entries->size
                                  ? std::numeric_limits<double>::quiet_NaN()
                                  : std::sqrt(stats.squared_residuals / static_cast<double>(std::max<Index>(stats.processed, 1)));
  const double value_rms = std::sqrt(squared_values / static_cast<double>(std::max<Index>(entries->size, 1)));
  // A batch of zero entries has no scale to judge a residual by: then only a non-finite one diverges.
  const double judged_rms = value_rms > 0.0 || !std::isfinite(residual_rms) ? residual_rms : 0.0;
  if (end_if_diverged(judged_rms, value_rms, options_.divergence_factor, iteration() + 1,
                      [this] { return undo_diverged_batch(); }))
    return -1.0;
  // Each entry is new and predicted before its own update (progressive validation): a held-out fit.
  double fit = std::numeric_limits<double>::quiet_NaN();
  if (squared_values > 0.0) {
    fit = std::sqrt(stats.squared_residuals / squared_values);
    record_fit(fit, kFreshFitMeasure);
    keep_if_best(fit, iteration() + 1);
  }
  after_batch();
  // The batch is kept (moved) for the noise floor, measured once when the run ends.
  if (std::isfinite(fit)) record_fresh_fit(fit, kFreshFitMeasure, std::move(batch), data);
  if (tolerance_ <= 0.0) return -1.0;  // the relative change costs O(dk): only when it is used
  const double norm = std::sqrt(U_.squaredNorm() + (psd() ? 0.0 : V_.squaredNorm()));
  return std::sqrt(stats.squared_change) / std::max(norm, 1e-300);
}

std::string OnlineCompletion::undo_diverged_batch() {
  rollback();
  if (offset_) offset_ = saved_offset_;
  const std::string hint = ". Lower step_size (now " + short_number(options_.step_size) + ", gain 2ηd1d2 = " + short_number(gain_) + ")";
  return restore_best("; the estimate is the one before this batch") + hint;
}

void OnlineCompletion::fit_warm_start_scale(const EntryView& entries) {
  // s = argmin Σ_Ω (s (U V')_ij − m_ij)² = <p, m>/<p, p>, p_ij = (U V')_ij; U, V ← √s U, √s V.
  double pm = 0.0, pp = 0.0;
  for (Index t = 0; t < entries.size; ++t) {
    const double p = U_.row(entries.row(t)).dot((psd() ? U_ : V_).row(entries.col(t)));
    pm += p * entries.value(t);
    pp += p * p;
  }
  if (!(pp > 0.0) || !(pm > 0.0)) {
    warm_start_note_ += " (init_fit left the warm start unscaled: no positive least-squares scale)";
    return;
  }
  const double root = std::sqrt(pm / pp);
  U_ *= root;
  if (psd()) V_ = U_;
  else V_ *= root;
}

EntryView OnlineCompletion::residual_entries(const EntryView& entries) {
  residuals_.resize(static_cast<std::size_t>(entries.size));
  for (Index t = 0; t < entries.size; ++t) {
    const double m = entries.value(t);
    residuals_[static_cast<std::size_t>(t)] = m - (*offset_)(entries.row(t), entries.col(t));
    offset_->observe(entries.row(t), entries.col(t), m);
  }
  EntryView view = entries;
  view.y = residuals_.data();
  view.value_scale = 1.0;
  return view;
}

std::string OnlineCompletion::stall_hint() const {
  std::vector<std::string> hints;
  // Unrelated (i, j), (j, i) entries of a non-symmetric matrix differ by about √2 relative, a noiseless
  // symmetric one by 0; 0.5 is a judgement between the two (noise below SNR 1 can exceed it).
  if (psd() && std::isfinite(asymmetry_) && asymmetric_pairs_ >= 10 && asymmetry_ > 0.5)
    hints.push_back("the matrix is not symmetric (entries (i, j) and (j, i) differ by " + short_number(asymmetry_) +
                    " relative, over " + std::to_string(asymmetric_pairs_) + " pairs of the warm start); use omc_general");
  const double d = static_cast<double>(std::max(d1_, d2_));
  const double k = static_cast<double>(options_.rank);
  const double needed = 10.0 * d * k * std::log(std::max(d, 2.0));
  if (exhausted_ && static_cast<double>(entries_seen_) < needed)
    hints.push_back("too few observed entries for d and rank (" + std::to_string(entries_seen_) + " entries of a " +
                    std::to_string(d1_) + " × " + std::to_string(d2_) + " matrix of rank " +
                    std::to_string(options_.rank) + ", need of order 10·d·k·log d = " +
                    std::to_string(static_cast<long long>(std::ceil(needed))) + ")");
  const Estimate low_rank = low_rank_part();
  if (low_rank.left.size() > 0 && low_rank.all_finite()) {
    const Vector s = singular_values(low_rank);
    if (s.size() > 1 && s(0) > 0.0 && s(s.size() - 1) < 1e-2 * s(0))
      hints.push_back("rank may be above the true rank (σ_k/σ_1 = " + short_number(s(s.size() - 1) / s(0)) + ")");
  }
  if (hints.empty()) hints.push_back("try a smaller step_size or more iterations");
  std::string text;
  for (const auto& h : hints) text += (text.empty() ? "" : "; ") + h;
  return text;
}

Estimate OnlineCompletion::low_rank_part() const {
  Estimate e;
  e.left = U_;
  e.right = psd() ? U_ : V_;
  e.symmetrize = psd();
  return e;
}

Estimate OnlineCompletion::estimate() const {
  Estimate e;
  e.left = U_;
  e.right = psd() ? U_ : V_;
  e.symmetrize = psd();  // U U' is symmetric; the flag says so
  if (offset_) offset_->biases().add_to(e);  // PSD: offset "mean" only (checked by the factory)
  return e;
}

// ---- Algorithm 1 ----

OnlinePsd::~OnlinePsd() = default;

void OnlinePsd::prepare() {
  undo_rows_.resize(static_cast<std::size_t>(2 * options_.batch_size));
  undo_values_.resize(2 * options_.batch_size, U_.cols());
}

BatchStats OnlinePsd::process(const EntryView& entries) {
  const Index k = U_.cols();
  BatchStats stats;
  undo_size_ = 0;
  double change = 0.0;
  for (Index t = 0; t < entries.size; ++t) {
    if (t + kPrefetchDistance < entries.size) prefetch_rows(entries.row(t + kPrefetchDistance), entries.col(t + kPrefetchDistance));
    const std::int32_t i = entries.row(t);
    const std::int32_t j = entries.col(t);
    const bool diagonal = i == j;
    double* old_i = undo_values_.row(undo_size_).data();
    double* old_j = undo_values_.row(undo_size_ + 1).data();
    const double r = psd_update(U_.row(i).data(), U_.row(j).data(), diagonal, k, entries.value(t), gain_, old_i, old_j);
    undo_rows_[static_cast<std::size_t>(undo_size_++)] = i;
    if (!diagonal) undo_rows_[static_cast<std::size_t>(undo_size_++)] = j;
    stats.squared_residuals += r * r;
    ++stats.processed;
    if (!std::isfinite(r)) break;
    // ‖Δu_i‖² + ‖Δu_j‖² = (gain r)² (‖u_j‖² + ‖u_i‖²), taken from the saved old rows.
    if (tolerance_ > 0.0) {
      const double energy = Eigen::Map<const Vector>(old_i, k).squaredNorm() +
                            (diagonal ? 3.0 : 1.0) * Eigen::Map<const Vector>(diagonal ? old_i : old_j, k).squaredNorm();
      change += gain_ * gain_ * r * r * energy;
    }
  }
  stats.squared_change = change;
  return stats;
}

void OnlinePsd::prefetch_rows(Index i, Index j) const {
  // A row may straddle two cache lines: touch its first and last entry.
  const Index last = U_.cols() - 1;
  __builtin_prefetch(U_.row(i).data());
  __builtin_prefetch(U_.row(i).data() + last);
  __builtin_prefetch(U_.row(j).data());
  __builtin_prefetch(U_.row(j).data() + last);
}

void OnlinePsd::rollback() {
  for (Index s = undo_size_ - 1; s >= 0; --s) U_.row(undo_rows_[static_cast<std::size_t>(s)]) = undo_values_.row(s);
  undo_size_ = 0;
}

// ---- Algorithm 2 ----

OnlineGeneralTheoretical::~OnlineGeneralTheoretical() = default;

BatchStats OnlineGeneralTheoretical::process(const EntryView& entries) {
  saved_U_ = U_;
  saved_V_ = V_;
  const Index k = U_.cols();
  const Matrix identity = Matrix::Identity(k, k);
  Vector old_u(k), old_v(k);
  BatchStats stats;
  for (Index t = 0; t < entries.size; ++t) {
    // W_U D W_V' = SVD(U V') through U = Q1 R1, V = Q2 R2 and the k × k SVD of R1 R2'.
    const Eigen::HouseholderQR<Matrix> qr_u{Matrix(U_)};
    const Eigen::HouseholderQR<Matrix> qr_v{Matrix(V_)};
    const Matrix R1 = qr_u.matrixQR().topRows(k).triangularView<Eigen::Upper>();
    const Matrix R2 = qr_v.matrixQR().topRows(k).triangularView<Eigen::Upper>();
    const Eigen::JacobiSVD<Matrix> svd(R1 * R2.transpose(), Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Vector root = svd.singularValues().cwiseSqrt();
    const Matrix Q1 = qr_u.householderQ() * Matrix::Identity(U_.rows(), k);
    const Matrix Q2 = qr_v.householderQ() * Matrix::Identity(V_.rows(), k);
    U_ = Q1 * svd.matrixU() * root.asDiagonal();  // Ũ = W_U √D
    V_ = Q2 * svd.matrixV() * root.asDiagonal();  // Ṽ = W_V √D

    const double r = general_update(U_.row(entries.row(t)).data(), V_.row(entries.col(t)).data(), k, entries.value(t),
                                    gain_, identity, identity, old_u.data(), old_v.data());
    stats.squared_residuals += r * r;
    stats.squared_change += gain_ * gain_ * r * r * (old_u.squaredNorm() + old_v.squaredNorm());
    ++stats.processed;
    if (!std::isfinite(r)) break;
  }
  return stats;
}

void OnlineGeneralTheoretical::rollback() {
  U_ = saved_U_;
  V_ = saved_V_;
}

// ---- Algorithm 3 ----

OnlineGeneral::~OnlineGeneral() = default;

void OnlineGeneral::prepare() {
  const Index k = U_.cols();
  eig_U_ = Eigen::SelfAdjointEigenSolver<Matrix>(k);
  eig_V_ = Eigen::SelfAdjointEigenSolver<Matrix>(k);
  svd_ = Eigen::JacobiSVD<Matrix>(k, k, Eigen::ComputeFullU | Eigen::ComputeFullV);
  for (Matrix* m : {&A_, &B_, &half_U_, &half_V_, &core_, &left_, &right_}) m->resize(k, k);
  old_u_.resize(k);
  old_v_.resize(k);
  undo_rows_.resize(static_cast<std::size_t>(options_.batch_size));
  undo_cols_.resize(static_cast<std::size_t>(options_.batch_size));
  undo_u_.resize(options_.batch_size, k);
  undo_v_.resize(options_.batch_size, k);
  refresh();
}

bool OnlineGeneral::gauge_maps() {
  eig_U_.compute(gram_U_);
  eig_V_.compute(gram_V_);
  const Vector& dU = eig_U_.eigenvalues();
  const Vector& dV = eig_V_.eigenvalues();
  // A factor that lost rank has no inverse square root: the iteration cannot go on.
  const double floor = 1e-14;
  if (!(dU.minCoeff() > floor * dU.maxCoeff()) || !(dV.minCoeff() > floor * dV.maxCoeff())) return false;
  const Matrix& RU = eig_U_.eigenvectors();
  const Matrix& RV = eig_V_.eigenvectors();
  // K = D_U^½ R_U' R_V D_V^½ = Q_U D Q_V'.
  half_U_.noalias() = dU.cwiseSqrt().asDiagonal() * RU.transpose();  // D_U^½ R_U'
  half_V_.noalias() = dV.cwiseSqrt().asDiagonal() * RV.transpose();  // D_V^½ R_V'
  core_.noalias() = half_U_ * half_V_.transpose();
  svd_.compute(core_);
  // A = R_V D_V^-½ Q_V Q_U' D_U^½ R_U',  B = R_U D_U^-½ Q_U Q_V' D_V^½ R_V'.
  core_.noalias() = svd_.matrixV() * svd_.matrixU().transpose();  // Q_V Q_U'
  left_.noalias() = RV * dV.cwiseSqrt().cwiseInverse().asDiagonal();  // R_V D_V^-½
  right_.noalias() = left_ * core_;
  A_.noalias() = right_ * half_U_;
  left_.noalias() = RU * dU.cwiseSqrt().cwiseInverse().asDiagonal();  // R_U D_U^-½
  right_.noalias() = left_ * core_.transpose();
  B_.noalias() = right_ * half_V_;
  return true;
}

void OnlineGeneral::refresh() {
  gram_U_.noalias() = U_.transpose() * U_;
  gram_V_.noalias() = V_.transpose() * V_;
  if (!gauge_maps()) return;
  // Ũ = U R_U D_U^-½ Q_U √D = W_U √D and Ṽ = V R_V D_V^-½ Q_V √D = W_V √D: Ũ Ṽ' = U V'.
  const Vector root = svd_.singularValues().cwiseSqrt();
  const Matrix to_U = eig_U_.eigenvectors() * eig_U_.eigenvalues().cwiseSqrt().cwiseInverse().asDiagonal() *
                      svd_.matrixU() * root.asDiagonal();
  const Matrix to_V = eig_V_.eigenvectors() * eig_V_.eigenvalues().cwiseSqrt().cwiseInverse().asDiagonal() *
                      svd_.matrixV() * root.asDiagonal();
  U_ = U_ * to_U;
  V_ = V_ * to_V;
  gram_U_.noalias() = U_.transpose() * U_;
  gram_V_.noalias() = V_.transpose() * V_;
  since_refresh_ = 0;
}

BatchStats OnlineGeneral::process(const EntryView& entries) {
  const Index k = U_.cols();
  BatchStats stats;
  undo_size_ = 0;
  for (Index t = 0; t < entries.size; ++t) {
    if (!gauge_maps()) {
      stats.squared_residuals = std::numeric_limits<double>::infinity();  // a factor lost rank: treat as divergence
      break;
    }
    const std::int32_t i = entries.row(t);
    const std::int32_t j = entries.col(t);
    double* old_u = undo_u_.row(t).data();
    double* old_v = undo_v_.row(t).data();
    double* ui = U_.row(i).data();
    double* vj = V_.row(j).data();
    const double r = general_update(ui, vj, k, entries.value(t), gain_, A_, B_, old_u, old_v);
    undo_rows_[static_cast<std::size_t>(t)] = i;
    undo_cols_[static_cast<std::size_t>(t)] = j;
    undo_size_ = t + 1;
    // Rank-one corrections of the Gram matrices: U'U += u_new u_new' − u_old u_old'.
    const Eigen::Map<const Vector> u_new(ui, k), v_new(vj, k), u_old(old_u, k), v_old(old_v, k);
    gram_U_.noalias() += u_new * u_new.transpose();
    gram_U_.noalias() -= u_old * u_old.transpose();
    gram_V_.noalias() += v_new * v_new.transpose();
    gram_V_.noalias() -= v_old * v_old.transpose();
    stats.squared_residuals += r * r;
    stats.squared_change += (u_new - u_old).squaredNorm() + (v_new - v_old).squaredNorm();
    ++stats.processed;
    if (!std::isfinite(r)) break;
  }
  since_refresh_ += stats.processed;
  return stats;
}

void OnlineGeneral::rollback() {
  for (Index s = undo_size_ - 1; s >= 0; --s) {
    U_.row(undo_rows_[static_cast<std::size_t>(s)]) = undo_u_.row(s);
    V_.row(undo_cols_[static_cast<std::size_t>(s)]) = undo_v_.row(s);
  }
  undo_size_ = 0;
  refresh();
}

void OnlineGeneral::after_batch() {
  if (since_refresh_ >= U_.rows() + V_.rows()) refresh();
}

}  // namespace rankone::online_completion
