#include "one_bit_mll.hpp"

#include <cmath>
#include <string>
#include <utility>

#include "rankone/linalg/eigensolvers.hpp"

namespace rankone::one_bit {

const OptionsTable<OneBitMllOptions>& OneBitMllOptions::table() {
  static const OptionsTable<OneBitMllOptions> t = [] {
    OptionsTable<OneBitMllOptions> t;
    Schema& s = t.schema();
    t.bind(&OneBitMllOptions::rank, s.integer("rank", 2, "rank k of W* (the dilation carries 2k columns)").at_least(1));
    t.bind(&OneBitMllOptions::batch_size,
           s.integer("batch_size", std::nullopt,
                     "instances drawn fresh at every iteration (m; × d2 measurements with full labels). Default from the "
                     "data: the whole training set at every iteration on a finite source (full observation, Section "
                     "5.2; passes then defaults to max_iterations + 1 and the choice is printed as a note), " +
                         std::to_string(BatchReader::endless_batch_size) + " on an endless one")
               .make_nullable()
               .at_least(1));
    s.retired("init_batch_size", "the initialisation batch is the start's now: write \"init\": {\"name\": "
                                 "\"spectral_init\", \"batch_size\": N} (its default is batch_size)");
    BatchReader::declare_passes(s);
    t.bind(&OneBitMllOptions::passes, "passes");
    s.retired("cycle", "write \"passes\": N, the passes allowed over a finite training set (cycle: true re-used it "
                       "without bound; with batch_size null, N ≥ max_iterations + 1)");
    t.bind(&OneBitMllOptions::lambda,
           s.number("lambda", std::nullopt, "λ = E[sign(g) g], g ~ N(0,1); default √(2/π) (Gaussian features). H is "
                                            "divided by it, so c·√(2/π) is the step W + H/c: averages out label noise, "
                                            "tames correlated features (docs/plugins/one_bit_mll.md)")
               .make_nullable()
               .above(0.0));
    t.bind(&OneBitMllOptions::max_iterations,
           s.integer("max_iterations", 10, "iterations after the initialisation (one fresh batch each)").at_least(0));
    t.bind(&OneBitMllOptions::tolerance,
           s.number("tolerance", 0.0, "stop when ‖W_t − W_{t−1}‖_F / ‖W_{t−1}‖_F falls below this (0: never)")
               .at_least(0.0));
    return t;
  }();
  return t;
}

namespace {

/// sign with sign(0) = +1, the paper's convention (Section 2.1).
double sign_of(double v) { return v >= 0.0 ? 1.0 : -1.0; }

}  // namespace

OneBitMultilabel::OneBitMultilabel(OneBitMllOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance),
      options_(std::move(options)),
      reader_(options_.passes.value_or(1)) {}

OneBitMultilabel::~OneBitMultilabel() = default;

Summary OneBitMultilabel::summary() const {
  Summary s = IterativeEstimator::summary();
  if (data_ && s.status != Status::running) s.message += reader_.reuse_note(*data_);
  if (!batch_note_.empty()) s.notes.push_back(batch_note_);
  if (const std::string note = reader_.dropped_note("one_bit_mll", batch_size_); !note.empty()) s.notes.push_back(note);
  return s;
}

void OneBitMultilabel::start(DataSource& data, Rng& rng) {
  const ProblemShape shape = data.shape();
  if (shape.symmetric) {
    finish(Status::failed, "one_bit_mll needs an asymmetric operator (features x labels), e.g. single_label");
    return;
  }
  if (2 * options_.rank > shape.d1 + shape.d2 || options_.rank > std::min(shape.d1, shape.d2)) {
    finish(Status::failed, "rank " + std::to_string(options_.rank) + " is too large for a " + std::to_string(shape.d1) +
                               " × " + std::to_string(shape.d2) + " problem");
    return;
  }
  d1_ = shape.d1;
  d2_ = shape.d2;
  data_ = &data;
  // batch_size null (the default): the whole training set at every iteration on a finite source
  // (full observation, Section 5.2), 10 000 fresh instances on an endless one.
  const bool whole_set = !options_.batch_size;
  if (whole_set && data.finite() && data.size().value_or(0) == 0) {
    finish(Status::failed, "batch_size null (the whole training set per batch) needs a finite source of known size; "
                           "this one is of unknown size: give batch_size");
    return;
  }
  if (whole_set && data.finite()) {
    const Index passes_needed = static_cast<Index>(max_iterations_) + 1;
    if (!options_.passes) {
      reader_.allow_passes(passes_needed);
      batch_note_ = "one_bit_mll: batch_size " + std::to_string(*data.size()) + " (the whole training set) and passes " +
                    std::to_string(passes_needed) + " (max_iterations + 1: the start and each iteration) chosen from " +
                    "the finite source; set batch_size and passes to override";
    } else if (reader_.passes_allowed() < passes_needed) {
      // Every iteration reads a whole pass: fewer passes would end the run early, quietly.
      finish(Status::failed, "batch_size null reads the whole training set at every iteration: passes (" +
                                 std::to_string(reader_.passes_allowed()) + ") must be at least max_iterations + 1 (" +
                                 std::to_string(passes_needed) + ": the start and each iteration)");
      return;
    }
  }
  const Index unset_size = data.finite() ? data.size().value_or(0) : BatchReader::endless_batch_size;
  batch_size_ = options_.batch_size.value_or(unset_size);
  if (const std::string why = BatchReader::refusal(data, batch_size_, "batch_size"); !why.empty()) {
    finish(Status::failed, why + " (or batch_size null for the whole set at every iteration)");
    return;
  }
  // The start reads through the estimator's reader (its passes); its batch defaults to batch_size.
  StartRequest request;
  request.rank = options_.rank;
  request.batch_size = batch_size_;
  request.eigen_tolerance = EigenOptions{}.tolerance;  // the subspace of H⁽⁰⁾ to the solver's precision, as Table 1 was run
  request.read = [this, &data](Index n) { return reader_.next(data, n); };
  request.refusal = [&data](Index n, const std::string& parameter) { return BatchReader::refusal(data, n, parameter); };
  Start start = initial_model(data, request, rng);
  if (!start.ok) {
    finish(Status::failed, "no start: " + start.failure +
                               (start.ran_out ? " (" + reader_.exhausted_message(data, 0) + "; set passes > 1 to re-use a finite set)"
                                              : std::string()));
    return;
  }
  // 𝓤 spans blkdiag(U_k, V_k) of the start (for the spectral start, of H⁽⁰⁾ = Σ y_i x_i ē_i': the
  // top-2k eigenvectors of its dilation are [u_i; ±v_i]/√2).
  basis_ = Matrix::Zero(shape.d1 + shape.d2, 2 * options_.rank);
  basis_.topLeftCorner(shape.d1, options_.rank) = start.basis;
  basis_.bottomRightCorner(shape.d2, options_.rank) = orthonormalize(start.model.right);
  const Batch& batch = start.batch;
  if (batch.instances() == 0) {
    // A start that read no data (random, a stored model, near the truth) is W⁽⁰⁾, at unit columns.
    model_ = start.model;
    model_.symmetrize = false;
    if (!to_unit_columns(model_)) finish(Status::failed, "no start: the start's W has a zero or non-finite column");
    return;
  }
  // H⁽⁰⁾ has rank at most the number of instances: fewer than k cannot span rank k.
  if (batch.instances() < options_.rank) {
    finish(Status::failed, "the initialisation batch of " + std::to_string(batch.instances()) +
                               " instances cannot span rank " + std::to_string(options_.rank) +
                               "; one_bit_mll needs the start's batch_size (init.batch_size, default batch_size) well above rank · d1 = " +
                               std::to_string(options_.rank * shape.d1));
    return;
  }
  // Algorithm 1 from W⁽⁰⁾ = 0: the first power step is on the start's batch, H⁽⁰⁾ from y alone
  // (sign(𝒜(0)) is not subtracted: sign(0) = +1 would bias H).
  if (!power_step(batch, data, /*from_zero=*/true)) {
    // A degenerate first W is a property of the initialisation batch, not a divergence of the iteration.
    summary_.status = Status::failed;
    summary_.message = "the initialisation batch of " + std::to_string(batch.instances()) +
                       " instances gives a W with a zero column (" + summary_.message +
                       "): too small a batch for a " + std::to_string(shape.d1) + " × " + std::to_string(shape.d2) +
                       " problem of rank " + std::to_string(options_.rank) + "; raise the start's batch_size (init.batch_size)";
  }
}

double OneBitMultilabel::iterate(DataSource& data) {
  const Batch batch = reader_.next(data, batch_size_);
  if (batch.instances() == 0) {  // the shared rule: a short last batch is not used (BatchReader)
    finish(Status::max_iterations, reader_.exhausted_message(data, iteration()));
    return -1.0;
  }
  const LowRankModel previous = model_;
  if (!power_step(batch, data, /*from_zero=*/false)) return -1.0;
  const DifferenceNorms change = difference_norms(model_, &previous);
  const DifferenceNorms size = difference_norms(previous, nullptr);
  return size.frobenius > 0.0 ? change.frobenius / size.frobenius : -1.0;
}

bool OneBitMultilabel::power_step(const Batch& batch, const DataSource& data, bool from_zero) {
  const SensingOperator& op = data.sensing_operator();
  const Index d1 = data.shape().d1;
  const Index d2 = data.shape().d2;
  const double gain = std::sqrt(static_cast<double>(d2)) / (static_cast<double>(batch.size()) * options_.sign_mean());

  // Residual r = y − sign(𝒜(W)); for W = 0 just y (see start).
  Vector residual = batch.y;
  if (!from_zero) {
    residual -= op.forward(batch, model_).unaryExpr(&sign_of);
    // The batch is fresh: the signs the current W gets wrong on it are a held-out error rate.
    const double wrong = static_cast<double>((residual.array() != 0.0).count());
    record_fit(wrong / static_cast<double>(std::max<Index>(residual.size(), 1)),
               "fraction of the last fresh batch's signs the estimate gets wrong, before its update");
  }

  // 𝓓 [a; b] = [(H + W) b; (H + W)' a] with H = gain·𝒜'(r) and W = P Q' (absent when from_zero).
  auto dilation_times = [&](const Matrix& stacked) -> Matrix {
    const auto a = stacked.topRows(d1);
    const auto b = stacked.bottomRows(d2);
    Matrix out(d1 + d2, stacked.cols());
    out.topRows(d1) = gain * op.adjoint_times(batch, residual, b);
    out.bottomRows(d2) = gain * op.adjoint_transpose_times(batch, residual, a);
    if (!from_zero) {
      out.topRows(d1).noalias() += model_.left * (model_.right.transpose() * b);
      out.bottomRows(d2).noalias() += model_.right * (model_.left.transpose() * a);
    }
    return out;
  };

  basis_ = orthonormalize(dilation_times(basis_));          // line 10: 𝓤 = QR(𝓓 𝓤)
  const Matrix image = dilation_times(basis_);              // line 11: 𝓥 = 𝓓 𝓤
  // Lines 3–5: W̃ = top-right block of 𝓤 𝓥' = U_top V_bottom', then unit columns.
  LowRankModel next;
  next.left = basis_.topRows(d1);
  next.right = image.bottomRows(d2);
  if (!to_unit_columns(next)) {  // the estimate stays the last W
    finish(Status::diverged, "a column of W is zero or not finite at iteration " + std::to_string(iteration() + 1) +
                                 "; W cannot be normalised");
    return false;
  }
  model_ = std::move(next);
  return true;
}

bool OneBitMultilabel::to_unit_columns(LowRankModel& model) {
  // Column j of W = L R' has squared norm r_j' (L'L) r_j.
  const Matrix gram = model.left.transpose() * model.left;
  const Vector column_norms = ((model.right * gram).array() * model.right.array()).rowwise().sum().sqrt();
  if (!column_norms.allFinite() || column_norms.minCoeff() <= 0.0) return false;
  model.right = column_norms.cwiseInverse().asDiagonal() * model.right;
  return true;
}

std::string OneBitMultilabel::stall_hint() const {
  // Table 1 (experiments/one_bit/table1.json) learns with m = 100 000 ≈ 48·k·(d1 + d2); a stall far
  // below that, under 10·k·(d1 + d2), may simply lack samples.
  const Index enough = 10 * options_.rank * (d1_ + d2_);
  std::string hint;
  if (batch_size_ < enough)
    hint = "batch of " + std::to_string(batch_size_) + " instances may be small for a " + std::to_string(d1_) + " × " +
           std::to_string(d2_) + " problem of rank " + std::to_string(options_.rank) + " (try ≥ 10·k·(d1 + d2) = " +
           std::to_string(enough) + "); ";
  return hint + "features far from Gaussian need another lambda (a step W + H/c, c = lambda/√(2/π))";
}

}  // namespace rankone::one_bit
