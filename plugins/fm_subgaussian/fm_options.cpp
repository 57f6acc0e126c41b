#include "fm_options.hpp"

#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::fm_subgaussian {

// ---- AlternatingOptions ----

namespace {

/// The alternating estimators' shared declarations, bound to the fields of `Options` (either struct).
template <class Options>
void declare_alternating(OptionsTable<Options>& t) {
  Schema& s = t.schema();
  t.bind(&Options::rank, s.integer("rank", 2, "rank k of Ū V'").at_least(1));
  BatchReader::declare_batch_size(
      s,
      "instances n per iteration and per initial batch (fm_moment_elimination: a moments batch and a start "
      "batch; ifm: one start batch); a shorter last batch of a finite source is not used",
      2);
  t.bind(&Options::batch_size, "batch_size");
  t.bind(&Options::max_iterations, s.integer("max_iterations", 100, "iteration budget T").at_least(1));
  t.bind(&Options::tolerance,
         s.number("tolerance", 1e-9, "stop when (‖Δw‖ + ‖Δ(ŪV')‖_F)/(‖w‖ + ‖ŪV'‖_F) falls below this").at_least(0.0));
  BatchReader::declare_passes(s);
  t.bind(&Options::passes, "passes");
  t.bind(&Options::standardize,
         s.boolean("standardize", false,
                   "learn on per-feature standardised x (mean and std of the first batch); the model is reported in raw "
                   "coordinates. Implies intercept"));
  t.bind(&Options::require_standardized,
         s.boolean("require_standardized", true,
                   "without standardize, stop with status failed when the first batch's features are far from E x x' = I "
                   "(a mean of x_j^2 outside [0.8, 1.25], or |mean|^2 above 0.25, by more than 3 standard errors); false: "
                   "run anyway, e.g. to study unstandardised designs"));
  t.bind(&Options::intercept, s.boolean("intercept", false, "fit a bias b (least squares on each batch after the w, M update)"));
  t.bind(&Options::step_size, s.number("step_size", 1.0,
                                       "step eta of the w and M updates (1: the paper's update; below 1 damps the "
                                       "iteration on data far from the sub-gaussian moment model)")
                                  .above(0.0)
                                  .at_most(1.0));
  IterativeEstimator::declare_divergence_factor(s);  // shared with gfm_one_pass
  t.bind(&Options::divergence_factor, "divergence_factor");
}

/// `training_size` of the batch solvers (fm, ridge), bound to the field of either struct.
template <class Options>
void declare_training_size(OptionsTable<Options>& t) {
  t.bind(&Options::training_size,
         t.schema()
             .integer("training_size", std::nullopt,
                      "instances of the training set: the first training_size of the source. Default: a whole pass of a "
                      "finite source, " + std::to_string(Options::endless_training_size) +
                          " of an endless one; more than a finite source holds is refused")
             .at_least(1)
             .make_nullable());
}

}  // namespace

const OptionsTable<AlternatingOptions>& AlternatingOptions::table() {
  static const OptionsTable<AlternatingOptions> t = [] {
    OptionsTable<AlternatingOptions> t;
    declare_alternating(t);
    return t;
  }();
  return t;
}

// ---- MomentEliminationOptions ----

const OptionsTable<MomentEliminationOptions>& MomentEliminationOptions::table() {
  static const OptionsTable<MomentEliminationOptions> t = [] {
    OptionsTable<MomentEliminationOptions> t;
    declare_alternating(t);
    t.bind(&MomentEliminationOptions::tau_threshold,
           t.schema()
               .number("tau_threshold", 0.1,
                       "stop with status failed unless the lower confidence bound of the tau-MIP constant "
                       "tau = min_j (phi_j - 1 - kappa_j^2), estimated on the first batch, is at least this (0: no test)")
               .at_least(0.0));
    t.bind(&MomentEliminationOptions::tau_confidence,
           t.schema()
               .number("tau_confidence", 0.99,
                       "confidence level of that lower bound (a delta-method bound per coordinate, minimum over the "
                       "coordinates; docs/plugins/fm_moment_elimination.md)")
               .at_least(0.5)
               .below(1.0));
    return t;
  }();
  return t;
}

// ---- ConventionalFmOptions ----

const OptionsTable<ConventionalFmOptions>& ConventionalFmOptions::table() {
  static const OptionsTable<ConventionalFmOptions> t = [] {
    using O = ConventionalFmOptions;
    OptionsTable<O> t;
    Schema& s = t.schema();
    t.bind(&O::rank, s.integer("rank", 2, "rank k of U (d × k)").at_least(1));
    t.bind_choice(&O::solver,
                  s.choice("solver", "sgd", {"sgd", "als"},
                           "stochastic gradient descent | alternating least squares (coordinate descent)"),
                  {{"sgd", Solver::sgd}, {"als", Solver::als}});
    t.bind(&O::learning_rate, s.number("learning_rate", 0.01, "SGD step size η₀").above(0.0));
    t.bind(&O::decay,
           s.number("decay", 0.0, "SGD step in epoch t (from 0) is η₀/(1 + decay·t); 0 (libFM): constant").at_least(0.0));
    t.bind(&O::reg_w,
           s.number("reg_w", 0.0, "L2 penalty λ_w on w (objective (1/2N)Σe² + ½λ_w‖w‖² + ½λ_v‖U‖²)").at_least(0.0));
    t.bind(&O::reg_v, s.number("reg_v", 0.0, "L2 penalty λ_v on the factors U").at_least(0.0));
    s.retired("init_std", "the start is the component `init` now (M0 = U U'): write \"init\": {\"name\": \"random_init\", "
                          "\"std\": s}");
    t.bind(&O::max_iterations,
           s.integer("max_iterations", 100, "epochs over the training set (the iteration budget: one iteration is one epoch)")
               .at_least(1));
    t.bind(&O::tolerance,
           s.number("tolerance", 1e-9, "stop when the relative change of (w, UU') in an epoch falls below this").at_least(0.0));
    declare_training_size(t);
    s.renamed("passes", "max_iterations").renamed("train_size", "training_size");
    t.bind(&O::standardize,
           s.boolean("standardize", false,
                     "learn on per-feature standardised x (training-set mean and std); the model is reported in raw "
                     "coordinates. Implies intercept"));
    t.bind(&O::intercept, s.boolean("intercept", true, "fit a bias b"));
    return t;
  }();
  return t;
}

// ---- RidgeOptions ----

const OptionsTable<RidgeOptions>& RidgeOptions::table() {
  static const OptionsTable<RidgeOptions> t = [] {
    OptionsTable<RidgeOptions> t;
    Schema& s = t.schema();
    t.bind(&RidgeOptions::l2,
           s.number("l2", 1e-6, "L2 penalty λ (objective (1/2N)Σ(b + w'x − y)² + ½λ‖w‖², intercept unpenalised)")
               .at_least(0.0));
    t.bind(&RidgeOptions::batch_size,
           s.integer("batch_size", 10000, "instances added per iteration (each iteration re-solves exactly)").at_least(1));
    declare_training_size(t);
    s.renamed("train_size", "training_size");
    t.bind(&RidgeOptions::standardize,
           s.boolean("standardize", false, "penalise the coefficients of standardised features (scale-invariant fit)"));
    return t;
  }();
  return t;
}

}  // namespace rankone::fm_subgaussian
