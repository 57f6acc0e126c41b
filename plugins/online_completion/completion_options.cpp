#include "completion_options.hpp"

#include <stdexcept>

#include "rankone/core/errors.hpp"
#include "rankone/core/threads.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::online_completion {

OffsetKind offset_kind_from_string(const std::string& name) {
  if (name == "none") return OffsetKind::none;
  if (name == "mean") return OffsetKind::mean;
  if (name == "biases") return OffsetKind::biases;
  throw std::invalid_argument("unknown offset '" + name + "' (none, mean, biases)");
}

std::string to_string(OffsetKind kind) {
  switch (kind) {
    case OffsetKind::none: return "none";
    case OffsetKind::mean: return "mean";
    case OffsetKind::biases: return "biases";
  }
  return "none";
}

namespace {

/// The offset subtracted from each entry before the low-rank fit (all completion estimators).
void declare_offset(Schema& s, const std::string& how) {
  s.choice("offset", "none", {"none", "mean", "biases"},
           "subtracted from each observed entry before fitting U V', and added back to the estimate: nothing "
           "(the paper) | the global mean μ | μ + b_row(i) + b_col(j), regularised biases (" + how + ")");
  s.number("offset_regularization", 10.0, "λ of the biases: each acts as λ extra entries at the mean (offset "
                                           "\"biases\")")
      .at_least(0.0);
}

}  // namespace

// ---- OnlineOptions ----

Schema OnlineOptions::schema() {
  Schema s;
  s.integer("rank", 2, "rank k of the factors").at_least(1);
  s.integer("warm_start_samples", std::nullopt,
            "|Ω_init|, observations used by the warm start; default warm_start_factor · d k log d, d = max(d1, d2)")
      .make_nullable()
      .at_least(1);
  s.number("warm_start_factor", 3.0, "default |Ω_init| in units of d k log d (ignored with warm_start_samples)")
      .above(0.0);
  s.choice("warm_start_fit", "none", {"none", "scale"},
           "none: the paper's warm start d1 d2/|Ω| P_Ω(M) | scale: U0 V0' rescaled by the least-squares factor on "
           "the warm-start entries (that scale is only right for uniformly sampled entries; cf. OptSpace's fit of S)");
  s.number("trim", 4.0,
           "after the warm start, rows with ‖u_i‖² above trim × the mean squared row norm are scaled down to it "
           "(Keshavan et al. 2010 trimming; 0: off)")
      .at_least(0.0);
  s.number("step_size", 0.3,
           "gain α = 2 η d1 d2 (‖U0‖²_F/d1 + ‖V0‖²_F/d2): the expected factor an update multiplies the observed "
           "entry's error by; sets η from the warm start's scale")
      .above(0.0);
  s.number("learning_rate", std::nullopt, "the paper's η, used as given (overrides step_size)")
      .make_nullable()
      .above(0.0);
  s.integer("batch_size", 1000, "observations per iteration (each processed on its own, in order)").at_least(1);
  IterativeEstimator::declare_divergence_factor(s);  // shared with the other estimators that read fresh batches
  s.integer("max_iterations", 1000, "iteration (batch) budget").at_least(1);
  s.number("tolerance", 0.0, "stop when the relative factor change of a batch falls below this (0: never)")
      .at_least(0.0);
  declare_offset(s, "learnt in one pass, O(1) per entry, starting with the warm-start entries");
  return s;
}

OnlineOptions::OnlineOptions() : OnlineOptions(Params(schema().defaults())) {}

OnlineOptions::OnlineOptions(const Params& p)
    : rank(p.integer("rank")),
      warm_start_samples(p.has("warm_start_samples") ? std::optional<Index>(p.integer("warm_start_samples")) : std::nullopt),
      warm_start_factor(p.number("warm_start_factor")),
      trim(p.number("trim")),
      step_size(p.number("step_size")),
      learning_rate(p.has("learning_rate") ? std::optional<double>(p.number("learning_rate")) : std::nullopt),
      batch_size(p.integer("batch_size")),
      divergence_factor(p.number("divergence_factor")),
      max_iterations(static_cast<int>(p.integer("max_iterations"))),
      tolerance(p.number("tolerance")),
      warm_start_fit(p.string("warm_start_fit") == "scale"),
      offset(offset_kind_from_string(p.string("offset"))),
      offset_regularization(p.number("offset_regularization")) {}

Json OnlineOptions::to_json() const {
  return Json{{"rank", rank},
              {"warm_start_samples", warm_start_samples ? Json(*warm_start_samples) : Json(nullptr)},
              {"warm_start_factor", warm_start_factor},
              {"warm_start_fit", warm_start_fit ? "scale" : "none"},
              {"trim", trim},
              {"step_size", step_size},
              {"learning_rate", learning_rate ? Json(*learning_rate) : Json(nullptr)},
              {"batch_size", batch_size},
              {"divergence_factor", divergence_factor},
              {"max_iterations", max_iterations},
              {"tolerance", tolerance},
              {"offset", to_string(offset)},
              {"offset_regularization", offset_regularization}};
}

// ---- OfflineOptions ----

Schema OfflineOptions::schema(Method method) {
  const bool sgd = method == Method::sgd_mf;
  Schema s;
  s.integer("rank", 2, "rank k of the factors").at_least(1);
  s.choice("init", sgd ? "random" : "spectral", {"spectral", "random"},
           "initial factors: top-k SVD of d1 d2/|Ω| P_Ω(M) (balanced), or Gaussian with the entries' scale");
  s.number("regularization", sgd ? 1e-6 : 1e-9,
           sgd ? "ridge λ in units of ν = ‖U0‖²_F/d1 + ‖V0‖²_F/d2 (LIBMF's λ for unit-energy rows)"
               : "ridge λ_i = regularization · |Ω_i| · (mean squared row norm of the other factor)")
      .at_least(0.0);
  if (sgd)
    s.number("learning_rate", 0.1, "step γ in units of 1/ν: the factor an update multiplies the entry's error by")
        .above(0.0);
  s.number("divergence_factor", 100.0,
           "diverged when a pass's RMS training residual exceeds this multiple of the entries' RMS")
      .above(1.0);
  s.integer("max_iterations", sgd ? 100 : 50, sgd ? "epochs" : "sweeps (U then V)").at_least(1);
  s.number("tolerance", 1e-10, "stop when the relative change of (U, V) in a pass falls below this").at_least(0.0);
  declare_offset(s, "fitted on Ω to convergence before the first pass");
  if (sgd) {
    s.integer("blocks", 1,
              "the schedule: rows and columns are cut into this many runs of ids with about equal entries, and an epoch visits the "
              "blocks × blocks grid stratum by stratum (blocks that share no row or column, run in parallel); 1 is "
              "plain SGD over Ω in one shuffled order. The result depends on blocks, never on threads")
        .at_least(1)
        .at_most(1024);
    declare_threads(s, "the blocks of a stratum (useful up to blocks; LIBMF uses about twice as many blocks as threads)");
  } else {
    declare_threads(s, "the row and column solves of a sweep");
  }
  return s;
}

OfflineOptions::OfflineOptions(Method method) : OfflineOptions(method, Params(schema(method).defaults())) {}

OfflineOptions::OfflineOptions(Method method_, const Params& p)
    : method(method_),
      rank(p.integer("rank")),
      init(p.string("init")),
      regularization(p.number("regularization")),
      learning_rate(method_ == Method::sgd_mf ? p.number("learning_rate") : 0.0),  // als_completion has no step
      divergence_factor(p.number("divergence_factor")),
      max_iterations(static_cast<int>(p.integer("max_iterations"))),
      tolerance(p.number("tolerance")),
      offset(offset_kind_from_string(p.string("offset"))),
      offset_regularization(p.number("offset_regularization")),
      threads(static_cast<int>(p.integer("threads"))),
      blocks(method_ == Method::sgd_mf ? p.integer("blocks") : 1) {
  // One block per stratum leaves nothing to run side by side: threads would be asked for in vain.
  if (method == Method::sgd_mf && blocks == 1 && threads != 1)
    throw ConfigError("at " + p.path_of("threads") + ": sgd_mf runs the blocks of a stratum in parallel, and blocks = 1 "
                      "makes one block per stratum; set " + p.path_of("blocks") + " to at least the threads (about "
                      "twice as many, as LIBMF's bins) or threads to 1");
}

Json OfflineOptions::to_json() const {
  Json j{{"rank", rank},
         {"init", init},
         {"regularization", regularization},
         {"divergence_factor", divergence_factor},
         {"max_iterations", max_iterations},
         {"tolerance", tolerance},
         {"offset", to_string(offset)},
         {"offset_regularization", offset_regularization},
         {"threads", threads}};
  if (method == Method::sgd_mf) {
    j["learning_rate"] = learning_rate;
    j["blocks"] = blocks;
  }
  return j;
}

}  // namespace rankone::online_completion
