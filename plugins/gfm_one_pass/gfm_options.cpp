#include "gfm_options.hpp"

#include "rankone/core/threads.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::gfm {

Schema GfmOptions::schema() {
  Schema s;
  s.integer("rank", 2, "rank k of the estimate").at_least(1);
  BatchReader::declare_batch_size(s, "instances in each iteration's fresh mini-batch (n)");
  s.integer("init_batch_size", std::nullopt, "instances in the spectral initialisation batch (default: batch_size)")
      .at_least(1)
      .make_nullable();
  s.integer("max_iterations", 30, "iteration budget T (each iteration consumes one fresh batch)").at_least(0);
  s.renamed("iterations", "max_iterations");
  BatchReader::declare_passes(s);
  s.number("tolerance", 1e-9,
           "stop (converged) when (‖Δw‖ + ‖ΔM‖_F)/(‖w‖ + ‖M‖_F) between iterations falls below this; 0: never")
      .at_least(0);
  s.boolean("first_order", true, "also estimate w (when the operator has a first-order term)");
  s.boolean("intercept", false,
            "also estimate an intercept b (y = b + x'w + x'Mx): the mean residual of each batch once M and w have "
            "moved (the trace shift makes their moment updates blind to b)");
  IterativeEstimator::declare_divergence_factor(s);  // shared with fm_moment_elimination and ifm
  s.number("init_tolerance", 1e-3,
           "relative residual at which the spectral start's eigensolver stops: the start only has to be well "
           "inside the sampling error of the moment estimate (≈ √(d/n), above 1e-3 up to n = 10⁶·d), not at "
           "machine precision")
      .above(0);
  declare_threads(s, "an iteration's dense products, x'Mx on dense designs");
  return s;
}

GfmOptions::GfmOptions() : GfmOptions(Params(schema().defaults())) {}

GfmOptions::GfmOptions(const Params& params)
    : rank(params.integer("rank")),
      batch_size(BatchReader::optional(params, "batch_size")),
      init_batch_size(params.has("init_batch_size") ? std::optional<Index>(params.integer("init_batch_size")) : std::nullopt),
      max_iterations(static_cast<int>(params.integer("max_iterations"))),
      passes(BatchReader::optional(params, "passes")),
      tolerance(params.number("tolerance")),
      first_order(params.boolean("first_order")),
      intercept(params.boolean("intercept")),
      divergence_factor(params.number("divergence_factor")),
      init_tolerance(params.number("init_tolerance")),
      threads(static_cast<int>(params.integer("threads"))) {}

Json GfmOptions::to_json() const {
  return Json{{"rank", rank},
              {"batch_size", batch_size ? Json(*batch_size) : Json(nullptr)},
              {"init_batch_size", init_batch_size ? Json(*init_batch_size) : Json(nullptr)},
              {"max_iterations", max_iterations},
              {"passes", passes ? Json(*passes) : Json(nullptr)},
              {"tolerance", tolerance},
              {"first_order", first_order},
              {"intercept", intercept},
              {"divergence_factor", divergence_factor},
              {"init_tolerance", init_tolerance},
              {"threads", threads}};
}

}  // namespace rankone::gfm
