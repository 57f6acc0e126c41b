#include "gfm_options.hpp"

#include "rankone/core/threads.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::gfm {

const OptionsTable<GfmOptions>& GfmOptions::table() {
  static const OptionsTable<GfmOptions> t = [] {
    OptionsTable<GfmOptions> t;
    Schema& s = t.schema();
    t.bind(&GfmOptions::rank, s.integer("rank", 2, "rank k of the estimate").at_least(1));
    BatchReader::declare_batch_size(s, "instances in each iteration's fresh mini-batch (n)");
    t.bind(&GfmOptions::batch_size, "batch_size");
    s.retired("init_batch_size", "the start is the component `init` now: write \"init\": {\"name\": \"spectral_init\", "
                                 "\"batch_size\": N} (docs/plugins/initializers.md)");
    t.bind(&GfmOptions::max_iterations,
           s.integer("max_iterations", 30, "iteration budget T (each iteration consumes one fresh batch)").at_least(0));
    s.renamed("iterations", "max_iterations");
    BatchReader::declare_passes(s);
    t.bind(&GfmOptions::passes, "passes");
    t.bind(&GfmOptions::tolerance,
           s.number("tolerance", 1e-9,
                    "stop (converged) when (‖Δw‖ + ‖ΔM‖_F)/(‖w‖ + ‖M‖_F) between iterations falls below this; 0: never")
               .at_least(0));
    t.bind(&GfmOptions::first_order, s.boolean("first_order", true, "also estimate w (when the operator has a first-order term)"));
    t.bind(&GfmOptions::intercept,
           s.boolean("intercept", false,
                     "also estimate an intercept b (y = b + x'w + x'Mx): the mean residual of each batch once M and w have "
                     "moved (the trace shift makes their moment updates blind to b)"));
    IterativeEstimator::declare_divergence_factor(s);  // shared with fm_moment_elimination and ifm
    t.bind(&GfmOptions::divergence_factor, "divergence_factor");
    s.retired("init_tolerance", "the start is the component `init` now: write \"init\": {\"name\": \"spectral_init\", "
                                "\"tolerance\": t} (docs/plugins/initializers.md)");
    declare_threads(s, "an iteration's dense products, x'Mx on dense designs");
    t.bind(&GfmOptions::threads, "threads");
    return t;
  }();
  return t;
}

}  // namespace rankone::gfm
