#pragma once
/// \file The baselines of Qiu et al. 2017 (Tables 1–2), all learning from one fixed training set
/// drawn in `start` and all expressed through the source's sensing operator, so one implementation
/// serves single-label data (one observed label per instance) and full observation alike:
///
/// - `leml` (Yu, Jain, Kar & Dhillon 2014): W = U V', loss on observed entries plus
///   λ(‖U‖² + ‖V‖²), alternating minimisation with a Newton–CG solve per factor;
/// - `ova_svm`: one-vs-all linear L2-SVM (squared hinge, L2 penalty), W unconstrained.
///
/// The paper's trace-norm baselines LRT and SMT (`trace_logistic`, `trace_squared`) are
/// configurations of the one convex solver, `nuclear_norm` (plugins/nuclear_norm/).
#include <memory>
#include <optional>
#include <vector>

#include "rankone/core/options_table.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "solvers.hpp"

namespace rankone::one_bit {

struct ObservedEntries;

/// What both baselines' settings hold, bound by the shared bind_training and bind_newton
/// (baselines.cpp): the training set's size, and the Newton–CG budget as NewtonOptions' own fields
/// (its gradient_tolerance is not a parameter).
struct BaselineSettings : NewtonOptions {
  std::optional<Index> training_size;  ///< unset: one pass of a finite source

  const NewtonOptions& newton() const { return *this; }
};

/// The settings of `leml`, declared once in `table()` (core/options_table.hpp); the start, `init`,
/// is the iteration policy's.
struct LemlOptions : BaselineSettings, DeclaredOptions<LemlOptions> {
  Index rank;
  LossKind loss;       ///< squared or logistic
  double penalty;      ///< λ in mean loss + λ(‖U‖²_F + ‖V‖²_F)
  int max_iterations;  ///< alternations
  double tolerance;

  static const OptionsTable<LemlOptions>& table();
  LemlOptions() { read_defaults(); }  ///< the schema's defaults
  explicit LemlOptions(const Params& params) { read(params); }
};

/// The settings of `ova_svm`, declared once in `table()`.
struct OvaSvmOptions : BaselineSettings, DeclaredOptions<OvaSvmOptions> {
  double penalty;  ///< λ in mean squared hinge + λ‖W‖²_F

  static const OptionsTable<OvaSvmOptions>& table();
  OvaSvmOptions() { read_defaults(); }  ///< the schema's defaults
  explicit OvaSvmOptions(const Params& params) { read(params); }
};

/// `leml`: low-rank empirical risk minimisation with missing labels.
///
/// When the training set pairs feature vectors (dense or sparse left designs) with one asked label
/// each (index right designs), and the operator scores it as c · a_i' U V' e_j (checked at start on a
/// probe model against the operator itself), the factor solves run on that structure, as LEML's own
/// code does: the distinct feature vectors once (an instance asked several labels is one column), the
/// projections X'U of the V solve computed once per solve. The same arithmetic up to the order of
/// floating-point sums; any other batch or operator takes the operator's generic products.
class Leml final : public IterativeEstimator {
 public:
  explicit Leml(LemlOptions options);
  ~Leml() override;

  /// Draws the training set and the start `init` (default random_init with LEML's std 1/√k).
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override { return model_; }
  /// The objective mean ℓ + λ(‖U‖² + ‖V‖²) after the last factor update.
  double objective() const { return objective_; }

 protected:
  /// One alternation: U with V fixed, then V with U fixed. Returns the relative objective change.
  double iterate(DataSource& data) override;
  /// The training sign error (leml learns from one training set), one forward product at the end.
  void measure_final_fit() override;
  /// A classifier: every fit is a sign error rate.
  Link fit_link() const override { return Link::sign; }
  std::string stall_hint() const override { return "penalty may be too strong, or rank too low"; }

 private:
  /// The scores of the U solve (V fixed) and of the V solve (U fixed): on the structured entries
  /// when they apply, else through the operator. A map refers to the current factors.
  LinearScores u_step_map() const;
  LinearScores v_step_map() const;

  LemlOptions options_;
  Loss loss_;  ///< options_.loss

  Batch train_;
  const SensingOperator* op_ = nullptr;
  std::unique_ptr<ObservedEntries> entries_;  ///< the structured products, when they apply
  LowRankModel model_;
  double objective_ = 0.0;
};

/// `ova_svm`: d2 independent linear L2-SVMs, solved jointly (the objective separates by label).
class OneVsAllSvm final : public Estimator {
 public:
  explicit OneVsAllSvm(OvaSvmOptions options);
  ~OneVsAllSvm() override;
  /// Draws the training set and trains (generalised Newton–CG); the estimate is final after start.
  void start(DataSource& data, Rng& rng) override;
  bool step(DataSource&) override { return false; }
  Estimate estimate() const override { return model_; }
  Summary summary() const override { return summary_; }

 private:
  OvaSvmOptions options_;
  LowRankModel model_;
  Summary summary_;
};

}  // namespace rankone::one_bit
