// Registrations of the estimators of "Learning Factorization Machines on Sub-gaussian Data"
// (AAAI-19): fm_moment_elimination, ifm, and the baselines fm and ridge.
#include <algorithm>
#include <memory>

#include "alternating.hpp"
#include "conventional_fm.hpp"
#include "rankone/plugin/plugin_api.hpp"
#include "ridge.hpp"

namespace rankone::fm_subgaussian {

namespace {

constexpr const char* kPaper = "Lin, Ye et al., Learning Factorization Machines on Sub-gaussian Data, AAAI-19";

/// The alternating estimators densify and copy each batch's design: their start holds two batches
/// with four dense d × n copies (measured 4.9 × a dense batch), an iteration a fresh batch, the one
/// kept for the noise floor, and two copies. ifm's zero-diagonal estimate makes the final spectrum dense.
FootprintModel alternating_footprint(bool zero_diagonal) {
  return [zero_diagonal](const Params& p, const FootprintContext& c) {
    const AlternatingOptions o(p);
    const DataFootprint& data = c.data;
    const double n = served_instances(c.data, static_cast<double>(BatchReader::footprint_batch_size(o.batch_size)));
    const double d = static_cast<double>(data.shape.d1);
    const double start = batch_bytes(data, n) + 4 * dense_bytes(d, n);
    const double step = (data.has_truth ? 2 : 1) * batch_bytes(data, n) + 2 * dense_bytes(d, n);
    Footprint f;
    f.add("batches of " + format_count(n) + " instances and their dense d × n copies",
          std::max(start, step) + product_packing_bytes(d, n));
    f.add("factors and their previous and best copies", 6 * dense_bytes(d, static_cast<double>(o.rank)));
    if (zero_diagonal) {
      f.add("spectrum of the zero-diagonal estimate (dense d × d)", dense_spectrum_bytes(d, d));
      f.data.zero_diagonal_model = true;
    }
    return f;
  };
}

/// The training set (training_size instances in one draw, or a whole pass of a finite source,
/// gathered with a 2× copy at the end) and two (ALS: three) dense d × N copies of its design; the zero-diagonal estimate's spectrum.
Footprint conventional_fm_footprint(const Params& p, const FootprintContext& c) {
  const ConventionalFmOptions o(p);
  const DataFootprint& data = c.data;
  const double n = o.training_size ? served_instances(data, static_cast<double>(*o.training_size))
                   : data.training_instances > 0 ? data.training_instances
                                                 : static_cast<double>(ConventionalFmOptions::endless_training_size);
  const double d = static_cast<double>(data.shape.d1);
  const double copies = o.solver == ConventionalFmOptions::Solver::als ? 3 : 2;
  Footprint f;
  f.add("training set of " + format_count(n) + " instances and its dense copies",
        (!o.training_size && data.training_instances > 0 ? 2 : 1) * batch_bytes(data, n) + copies * dense_bytes(d, n) + product_packing_bytes(d, n));
  f.add("spectrum of the zero-diagonal estimate (dense d × d)", dense_spectrum_bytes(d, d));
  f.data.zero_diagonal_model = true;
  return f;
}

/// The (d+1)² scatter matrix and the solve's copies of it (up to seven), and a batch with its two
/// dense copies.
Footprint ridge_footprint(const Params& p, const FootprintContext& c) {
  const RidgeOptions o(p);
  const DataFootprint& data = c.data;
  const double n = served_instances(c.data, static_cast<double>(o.batch_size));
  const double d = static_cast<double>(data.shape.d1);
  Footprint f;
  f.add("scatter matrix and its solve ((d + 1)² each)", 7 * dense_bytes(d + 1, d + 1));
  f.add("batch of " + format_count(n) + " instances and its dense copies", batch_bytes(data, n) + 2 * dense_bytes(d + 1, n));
  return f;
}

Registration moment_elimination_registration() {
  Registration r;
  r.kind = Kind::estimator;
  r.name = "fm_moment_elimination";
  r.one_pass = true;
  r.summary = "generalized FM y = x'w + x'Mx by alternating gradient descent with high-order moment elimination "
              "(needs tau-MIP data, tau > 0)";
  r.citation = std::string(kPaper) +
               ", Algorithm 1, Eqs. (7)-(10) (Eq. (7) with its missing trace term: docs/papers/fm-subgaussian.md)";
  r.doc_page = "docs/plugins/fm_moment_elimination.md";
  r.schema = MomentEliminationOptions::schema();
  IterativeEstimator::declare_policy(r.schema, {.early_stopping = true, .init = "spectral_init"});
  r.example = {{"batch_size", 2000}, {"max_iterations", 3}};
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<MomentEliminationEstimator>(MomentEliminationOptions(p));
  };
  r.footprint = alternating_footprint(false);
  return r;
}

Registration ifm_registration() {
  Registration r;
  r.kind = Kind::estimator;
  r.name = "ifm";
  r.one_pass = true;
  r.summary = "improved FM y = x'w + x'Mx, M = UV' - D(UV'), by alternating gradient descent on off-diagonal moments "
              "(learnable on any sub-gaussian data, tau = 0 included)";
  r.citation = std::string(kPaper) + ", Eq. (12) (iFM); algorithm: docs/papers/fm-subgaussian.md";
  r.doc_page = "docs/plugins/ifm.md";
  r.schema = AlternatingOptions::schema();
  IterativeEstimator::declare_policy(r.schema, {.early_stopping = true, .init = "spectral_init"});
  r.example = {{"batch_size", 2000}, {"max_iterations", 3}};
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<ImprovedFmEstimator>(AlternatingOptions(p));
  };
  r.footprint = alternating_footprint(true);
  return r;
}

Registration fm_registration() {
  Registration r;
  r.kind = Kind::estimator;
  r.name = "fm";
  r.summary = "conventional factorization machine (M = UU' - D(UU')) trained by SGD or ALS, as libFM";
  r.citation = "Rendle 2010, Factorization Machines, Eq. (1); Rendle 2012, Factorization Machines with libFM "
               "(SGD, ALS); the baseline of " + std::string(kPaper) + ", Eq. (2)";
  r.doc_page = "docs/plugins/fm.md";
  r.schema = ConventionalFmOptions::schema();
  IterativeEstimator::declare_policy(r.schema, {.early_stopping = true, .init = "random_init"});
  r.example = {{"max_iterations", 2}, {"training_size", 500}};
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<ConventionalFmEstimator>(ConventionalFmOptions(p));
  };
  r.footprint = conventional_fm_footprint;
  return r;
}

Registration ridge_registration() {
  Registration r;
  r.kind = Kind::estimator;
  r.name = "ridge";
  r.one_pass = true;
  r.summary = "first-order linear regression with intercept and L2 penalty (exact, streamed sufficient statistics)";
  r.citation = "Hoerl & Kennard 1970; the Ridge baseline of " + std::string(kPaper) + ", Table 1";
  r.doc_page = "docs/plugins/ridge.md";
  r.schema = RidgeOptions::schema();
  IterativeEstimator::declare_policy(r.schema);
  r.example = Json::object();
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<RidgeEstimator>(RidgeOptions(p));
  };
  r.footprint = ridge_footprint;
  return r;
}

}  // namespace

PluginDescriptor describe_fm_subgaussian() {
  PluginDescriptor d;
  d.registrations.push_back(moment_elimination_registration());
  d.registrations.push_back(ifm_registration());
  d.registrations.push_back(fm_registration());
  d.registrations.push_back(ridge_registration());
  return d;
}

}  // namespace rankone::fm_subgaussian

RANKONE_PLUGIN(rankone::fm_subgaussian::describe_fm_subgaussian)
