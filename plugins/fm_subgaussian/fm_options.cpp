#include "fm_options.hpp"

#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::fm_subgaussian {

// ---- AlternatingOptions ----

Schema AlternatingOptions::schema() {
  Schema s;
  s.integer("rank", 2, "rank k of Ū V'").at_least(1);
  BatchReader::declare_batch_size(
      s,
      "instances n per iteration and per initial batch (fm_moment_elimination: a moments batch and a start "
      "batch; ifm: one start batch); a shorter last batch of a finite source is not used",
      2);
  s.integer("max_iterations", 100, "iteration budget T").at_least(1);
  s.number("tolerance", 1e-9, "stop when (‖Δw‖ + ‖Δ(ŪV')‖_F)/(‖w‖ + ‖ŪV'‖_F) falls below this").at_least(0.0);
  BatchReader::declare_passes(s);
  s.boolean("standardize", false,
            "learn on per-feature standardised x (mean and std of the first batch); the model is reported in raw "
            "coordinates. Implies intercept");
  s.boolean("require_standardized", true,
            "without standardize, stop with status failed when the first batch's features are far from E x x' = I "
            "(a mean of x_j^2 outside [0.8, 1.25], or |mean|^2 above 0.25, by more than 3 standard errors); false: "
            "run anyway, e.g. to study unstandardised designs");
  s.boolean("intercept", false, "fit a bias b (least squares on each batch after the w, M update)");
  s.number("step_size", 1.0, "step eta of the w and M updates (1: the paper's update; below 1 damps the "
                             "iteration on data far from the sub-gaussian moment model)").above(0.0).at_most(1.0);
  IterativeEstimator::declare_divergence_factor(s);  // shared with gfm_one_pass
  return s;
}

AlternatingOptions::AlternatingOptions() : AlternatingOptions(Params(schema().defaults())) {}

AlternatingOptions::AlternatingOptions(const Params& p)
    : rank(p.integer("rank")),
      batch_size(BatchReader::optional(p, "batch_size")),
      max_iterations(static_cast<int>(p.integer("max_iterations"))),
      tolerance(p.number("tolerance")),
      passes(BatchReader::optional(p, "passes")),
      standardize(p.boolean("standardize")),
      require_standardized(p.boolean("require_standardized")),
      intercept(p.boolean("intercept") || standardize),
      step_size(p.number("step_size")),
      divergence_factor(p.number("divergence_factor")) {}

Json AlternatingOptions::to_json() const {
  return Json{{"rank", rank},         {"batch_size", batch_size ? Json(*batch_size) : Json(nullptr)},   {"max_iterations", max_iterations},
              {"tolerance", tolerance}, {"passes", passes ? Json(*passes) : Json(nullptr)},         {"standardize", standardize},
              {"require_standardized", require_standardized},       {"intercept", intercept},
              {"step_size", step_size}, {"divergence_factor", divergence_factor}};
}

// ---- MomentEliminationOptions ----

Schema MomentEliminationOptions::schema() {
  Schema s = AlternatingOptions::schema();
  s.number("tau_threshold", 0.1,
           "stop with status failed unless the lower confidence bound of the tau-MIP constant "
           "tau = min_j (phi_j - 1 - kappa_j^2), estimated on the first batch, is at least this (0: no test)")
      .at_least(0.0);
  s.number("tau_confidence", 0.99,
           "confidence level of that lower bound (a delta-method bound per coordinate, minimum over the "
           "coordinates; docs/plugins/fm_moment_elimination.md)")
      .at_least(0.5)
      .below(1.0);
  return s;
}

MomentEliminationOptions::MomentEliminationOptions() : MomentEliminationOptions(Params(schema().defaults())) {}

MomentEliminationOptions::MomentEliminationOptions(const Params& p)
    : AlternatingOptions(p), tau_threshold(p.number("tau_threshold")), tau_confidence(p.number("tau_confidence")) {}

Json MomentEliminationOptions::to_json() const {
  Json j = AlternatingOptions::to_json();
  j["tau_threshold"] = tau_threshold;
  j["tau_confidence"] = tau_confidence;
  return j;
}

// ---- ConventionalFmOptions ----

Schema ConventionalFmOptions::schema() {
  Schema s;
  s.integer("rank", 2, "rank k of U (d × k)").at_least(1);
  s.choice("solver", "sgd", {"sgd", "als"}, "stochastic gradient descent | alternating least squares (coordinate descent)");
  s.number("learning_rate", 0.01, "SGD step size η₀").above(0.0);
  s.number("decay", 0.0, "SGD step in epoch t (from 0) is η₀/(1 + decay·t); 0 (libFM): constant").at_least(0.0);
  s.number("reg_w", 0.0, "L2 penalty λ_w on w (objective (1/2N)Σe² + ½λ_w‖w‖² + ½λ_v‖U‖²)").at_least(0.0);
  s.number("reg_v", 0.0, "L2 penalty λ_v on the factors U").at_least(0.0);
  s.number("init_std", 0.1, "standard deviation of the initial factor entries").above(0.0);
  s.integer("max_iterations", 100, "epochs over the training set (the iteration budget: one iteration is one epoch)").at_least(1);
  s.number("tolerance", 1e-9, "stop when the relative change of (w, UU') in an epoch falls below this").at_least(0.0);
  s.integer("training_size", std::nullopt,
            "instances of the training set: the first training_size of the source. Default: a whole pass of a finite "
            "source, " + std::to_string(endless_training_size) + " of an endless one; more than a finite source holds is refused")
      .at_least(1)
      .make_nullable();
  s.renamed("passes", "max_iterations").renamed("train_size", "training_size");
  s.boolean("standardize", false,
            "learn on per-feature standardised x (training-set mean and std); the model is reported in raw "
            "coordinates. Implies intercept");
  s.boolean("intercept", true, "fit a bias b");
  return s;
}

ConventionalFmOptions::ConventionalFmOptions() : ConventionalFmOptions(Params(schema().defaults())) {}

ConventionalFmOptions::ConventionalFmOptions(const Params& p)
    : rank(p.integer("rank")),
      solver(p.string("solver") == "als" ? Solver::als : Solver::sgd),
      learning_rate(p.number("learning_rate")),
      decay(p.number("decay")),
      reg_w(p.number("reg_w")),
      reg_v(p.number("reg_v")),
      init_std(p.number("init_std")),
      max_iterations(static_cast<int>(p.integer("max_iterations"))),
      tolerance(p.number("tolerance")),
      training_size(p.has("training_size") ? std::optional<Index>(p.integer("training_size")) : std::nullopt),
      standardize(p.boolean("standardize")),
      intercept(p.boolean("intercept") || standardize) {}

Json ConventionalFmOptions::to_json() const {
  return Json{{"rank", rank},
              {"solver", solver == Solver::als ? "als" : "sgd"},
              {"learning_rate", learning_rate},
              {"decay", decay},
              {"reg_w", reg_w},
              {"reg_v", reg_v},
              {"init_std", init_std},
              {"max_iterations", max_iterations},
              {"tolerance", tolerance},
              {"training_size", training_size ? Json(*training_size) : Json(nullptr)},
              {"standardize", standardize},
              {"intercept", intercept}};
}

// ---- RidgeOptions ----

Schema RidgeOptions::schema() {
  Schema s;
  s.number("l2", 1e-6, "L2 penalty λ (objective (1/2N)Σ(b + w'x − y)² + ½λ‖w‖², intercept unpenalised)").at_least(0.0);
  s.integer("batch_size", 10000, "instances added per iteration (each iteration re-solves exactly)").at_least(1);
  s.integer("training_size", std::nullopt,
            "instances of the training set: the first training_size of the source. Default: a whole pass of a finite "
            "source, " + std::to_string(endless_training_size) + " of an endless one; more than a finite source holds is refused")
      .at_least(1)
      .make_nullable();
  s.renamed("train_size", "training_size");
  s.boolean("standardize", false, "penalise the coefficients of standardised features (scale-invariant fit)");
  return s;
}

RidgeOptions::RidgeOptions() : RidgeOptions(Params(schema().defaults())) {}

RidgeOptions::RidgeOptions(const Params& p)
    : l2(p.number("l2")),
      batch_size(p.integer("batch_size")),
      training_size(p.has("training_size") ? std::optional<Index>(p.integer("training_size")) : std::nullopt),
      standardize(p.boolean("standardize")) {}

Json RidgeOptions::to_json() const {
  return Json{{"l2", l2}, {"batch_size", batch_size}, {"training_size", training_size ? Json(*training_size) : Json(nullptr)},
              {"standardize", standardize}};
}

}  // namespace rankone::fm_subgaussian
