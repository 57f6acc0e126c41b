#pragma once
/// \file Conformance checks for any plugin: what `rankone test-plugin LIB` runs, what the built-in
/// plugins pass in the test suite, and what a plugin's own Catch2 test can call.
///
/// Every plugin: it describes itself (summary, version, documentation page, a sentence per
/// parameter), its schema round-trips through JSON, its example parameters validate (idempotently)
/// and construct it, and its memory footprint, when declared, is finite and grows with the problem.
/// Per kind:
///  - sampler: draws the shape it declares, and its declared moments (E x, Var x, E x³, E x⁴)
///    match a million of its draws within five standard errors;
///  - operator: the adjoint identity ⟨𝒜(M), z⟩ = ⟨M, 𝒜'(z)⟩ against its dense form, and its
///    matrix-free products equal the dense adjoint's (first-order term included);
///  - source: opens, serves batches of its declared shape, and the same seed gives the same data;
///  - estimator: runs start and a few steps on its example data (`Registration::example_data`),
///    with finite estimates of the data's shape, and the same seed gives the same estimate;
///  - metric: evaluates to finite values on its example data, with the truth as the estimate.
///
/// \code
///   rankone::Registry registry;
///   registry.load_default({"build/libmy_plugin.so"});
///   const auto report = rankone::check_plugin(registry, registry.get("my_estimator"));
///   if (!report.passed()) std::cerr << report;
/// \endcode
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "rankone/plugin/registry.hpp"

namespace rankone {

struct ConformanceCheck {
  std::string plugin;  ///< the registration's name
  std::string check;   ///< what was checked, e.g. "adjoint identity"
  bool passed = false;
  std::string detail;  ///< the figures that decided it, or why it failed
};

struct ConformanceReport {
  std::vector<ConformanceCheck> checks;
  bool passed() const;
  std::size_t failures() const;
};

/// One line per check: "PASS estimator my_estimator: runs start and step (…)".
std::ostream& operator<<(std::ostream& out, const ConformanceReport& report);

/// The data an estimator or metric is checked on when its registration names none: a small
/// noiseless symmetric generalized-FM problem (d = 10, rank 2, w*, a 200-instance test set).
Json default_example_data();

/// The operator that serves `estimator`'s model, as its example data resolves it (e.g.
/// `{"name": "symmetric_rank_one", "first_order": true}` for an FM, `{"name": "entry"}` for
/// completion), or symmetric rank-one sensing without a linear term for an estimator shown on whole
/// sensing matrices: what `rankone fit` and the Python package serve a user's data with.
Json model_operator(const Registry& registry, const std::string& estimator);

/// Told of each check as it begins and as it ends: what lets `rankone test-plugin`, which runs
/// the checks in a child process, name the check a crash or a hang happened in.
struct ConformanceObserver {
  std::function<void(const std::string& check)> begins;
  std::function<void(const ConformanceCheck& result)> ended;
};

/// Runs every check that applies to `plugin`'s kind. `registry` must hold what its example data
/// names (the built-in `synthetic` source, for most). Never throws for a failing plugin: an
/// exception from the plugin is a failed check naming it.
ConformanceReport check_plugin(const Registry& registry, const Registration& plugin, const ConformanceObserver& observer = {});

}  // namespace rankone
