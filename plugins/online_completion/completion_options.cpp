#include "completion_options.hpp"

#include <algorithm>
#include <cmath>

#include "rankone/core/threads.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::online_completion {

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
template <class Options>
void declare_offset(OptionsTable<Options>& t, const std::string& how) {
  t.bind_choice(&Options::offset,
                t.schema().choice("offset", "none", {"none", "mean", "biases"},
                                  "subtracted from each observed entry before fitting U V', and added back to the "
                                  "estimate: nothing (the paper) | the global mean μ | μ + b_row(i) + b_col(j), "
                                  "regularised biases (" + how + ")"),
                {{"none", OffsetKind::none}, {"mean", OffsetKind::mean}, {"biases", OffsetKind::biases}});
  t.bind(&Options::offset_regularization,
         t.schema()
             .number("offset_regularization", 10.0, "λ of the biases: each acts as λ extra entries at the mean (offset "
                                                    "\"biases\")")
             .at_least(0.0));
}

}  // namespace

// ---- OnlineOptions ----

Index OnlineOptions::init_batch(Index d1, Index d2) const {
  const double d = static_cast<double>(std::max(d1, d2));
  return static_cast<Index>(std::ceil(init_batch_factor * d * static_cast<double>(rank) * std::log(std::max(d, 2.0))));
}

const OptionsTable<OnlineOptions>& OnlineOptions::table() {
  static const OptionsTable<OnlineOptions> t = [] {
    OptionsTable<OnlineOptions> t;
    Schema& s = t.schema();
    t.bind(&OnlineOptions::rank, s.integer("rank", 2, "rank k of the factors").at_least(1));
    s.retired("warm_start_samples", "|Ω_init| is the batch of the start `init` now: write \"init\": {\"name\": "
                                    "\"spectral_init\", \"batch_size\": N}");
    // `warm_start` names the stored-model start (initializers): these two are about any start `init`.
    s.renamed("warm_start_factor", "init_batch_factor");
    s.renamed("warm_start_fit", "init_fit");
    t.bind(&OnlineOptions::init_batch_factor,
           s.number("init_batch_factor", 3.0,
                    "|Ω_init|, the entries the start reads, in units of d k log d, d = max(d1, d2) (the default of "
                    "spectral_init's batch_size)")
               .above(0.0));
    t.bind_choice(&OnlineOptions::init_fit,
                  s.choice("init_fit", "none", {"none", "scale"},
                           "none: the paper's warm start d1 d2/|Ω| P_Ω(M) | scale: U0 V0' rescaled by the least-squares "
                           "factor on the warm-start entries (that scale is only right for uniformly sampled entries; cf. "
                           "OptSpace's fit of S)"),
                  {{"none", false}, {"scale", true}});
    t.bind(&OnlineOptions::trim,
           s.number("trim", 4.0,
                    "after the warm start, rows with ‖u_i‖² above trim × the mean squared row norm are scaled down to it "
                    "(Keshavan et al. 2010 trimming; 0: off)")
               .at_least(0.0));
    t.bind(&OnlineOptions::step_size,
           s.number("step_size", 0.3,
                    "gain α = 2 η d1 d2 (‖U0‖²_F/d1 + ‖V0‖²_F/d2): the expected factor an update multiplies the observed "
                    "entry's error by; sets η from the warm start's scale")
               .above(0.0));
    t.bind(&OnlineOptions::learning_rate,
           s.number("learning_rate", std::nullopt, "the paper's η, used as given (overrides step_size)")
               .make_nullable()
               .above(0.0));
    t.bind(&OnlineOptions::batch_size,
           s.integer("batch_size", 1000, "observations per iteration (each processed on its own, in order)").at_least(1));
    IterativeEstimator::declare_divergence_factor(s);  // shared with the other estimators that read fresh batches
    t.bind(&OnlineOptions::divergence_factor, "divergence_factor");
    t.bind(&OnlineOptions::max_iterations, s.integer("max_iterations", 1000, "iteration (batch) budget").at_least(1));
    t.bind(&OnlineOptions::tolerance,
           s.number("tolerance", 0.0, "stop when the relative factor change of a batch falls below this (0: never)")
               .at_least(0.0));
    declare_offset(t, "learnt in one pass, O(1) per entry, starting with the warm-start entries");
    return t;
  }();
  return t;
}

// ---- OfflineOptions ----

const OptionsTable<OfflineOptions>& OfflineOptions::table(Method method) {
  static const auto make = [](Method method) {
    const bool sgd = method == Method::sgd_mf;
    OptionsTable<OfflineOptions> t;
    Schema& s = t.schema();
    t.bind(&OfflineOptions::rank, s.integer("rank", 2, "rank k of the factors").at_least(1));
    t.bind(&OfflineOptions::regularization,
           s.number("regularization", sgd ? 1e-6 : 1e-9,
                    sgd ? "ridge λ in units of ν = ‖U0‖²_F/d1 + ‖V0‖²_F/d2 (LIBMF's λ for unit-energy rows)"
                        : "ridge λ_i = regularization · |Ω_i| · (mean squared row norm of the other factor)")
               .at_least(0.0));
    if (sgd)
      t.bind(&OfflineOptions::learning_rate,
             s.number("learning_rate", 0.1, "step γ in units of 1/ν: the factor an update multiplies the entry's error by")
                 .above(0.0));
    IterativeEstimator::declare_divergence_factor(s, "on the observed entries after a pass", "the entries' RMS");
    t.bind(&OfflineOptions::divergence_factor, "divergence_factor");
    t.bind(&OfflineOptions::max_iterations,
           s.integer("max_iterations", sgd ? 100 : 50, sgd ? "epochs" : "sweeps (U then V)").at_least(1));
    t.bind(&OfflineOptions::tolerance,
           s.number("tolerance", 1e-10, "stop when the relative change of (U, V) in a pass falls below this").at_least(0.0));
    declare_offset(t, "fitted on Ω to convergence before the first pass");
    if (sgd) {
      t.bind(&OfflineOptions::blocks,
             s.integer("blocks", 1,
                       "the schedule: rows and columns are cut into this many runs of ids with about equal entries, and "
                       "an epoch visits the blocks × blocks grid stratum by stratum (blocks that share no row or column, "
                       "run in parallel); 1 is plain SGD over Ω in one shuffled order. The result depends on blocks, "
                       "never on threads")
                 .at_least(1)
                 .at_most(1024));
      declare_threads(s, "the blocks of a stratum (useful up to blocks; LIBMF uses about twice as many blocks as threads)");
      // One block per stratum leaves nothing to run side by side: threads would be asked for in vain.
      s.constraint({"threads", "blocks"},
                   "sgd_mf runs the blocks of a stratum in parallel, and blocks = 1 makes one block per stratum; set "
                   "blocks to at least the threads (about twice as many, as LIBMF's bins) or threads to 1",
                   [](const Params& p) { return p.integer("blocks") != 1 || p.integer("threads") == 1; });
    } else {
      declare_threads(s, "the row and column solves of a sweep");
    }
    t.bind(&OfflineOptions::threads, "threads");
    return t;
  };
  static const OptionsTable<OfflineOptions> als = make(Method::als_completion), sgd = make(Method::sgd_mf);
  return method == Method::sgd_mf ? sgd : als;
}

OfflineOptions::OfflineOptions(Method method_) : OfflineOptions(method_, Params(schema(method_).defaults())) {}

OfflineOptions::OfflineOptions(Method method_, const Params& p) : method(method_) { table(method).read(*this, p); }

// ---- BiasBaselineOptions ----

const OptionsTable<BiasBaselineOptions>& BiasBaselineOptions::table() {
  static const OptionsTable<BiasBaselineOptions> t = [] {
    OptionsTable<BiasBaselineOptions> t;
    Schema& s = t.schema();
    t.bind_choice(&BiasBaselineOptions::terms,
                  s.choice("terms", "biases", {"mean", "biases"}, "μ alone, or μ + b_row(i) + b_col(j)"),
                  {{"mean", OffsetKind::mean}, {"biases", OffsetKind::biases}});
    t.bind(&BiasBaselineOptions::regularization,
           s.number("regularization", 10.0, "λ in Σ_Ω (M_ij − μ − b_i − c_j)² + λ(‖b‖² + ‖c‖²)").at_least(0.0));
    t.bind(&BiasBaselineOptions::max_iterations,
           s.integer("max_iterations", 100, "sweeps (μ, then rows, then columns)").at_least(1));
    t.bind(&BiasBaselineOptions::tolerance,
           s.number("tolerance", 1e-9, "stop when the relative change of (μ, b, c) in a sweep falls below this")
               .at_least(0.0));
    return t;
  }();
  return t;
}

}  // namespace rankone::online_completion
