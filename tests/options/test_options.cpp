// The estimators' Options structs: defaults come from the schema (declared once), the registered
// plugin declares exactly that schema, parameters round-trip, and is_valid refuses what the
// experiment file would refuse, naming the parameter.
#include <catch2/catch.hpp>

#include <string>

#include "../../plugins/fm_subgaussian/fm_options.hpp"
#include "../../plugins/gfm_one_pass/gfm_options.hpp"
#include "../../plugins/online_completion/completion_options.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

/// Every parameter of `options` is declared, with the same spec, by the registered plugin `name`
/// (which adds only the iteration policy's: IterativeEstimator::declare_policy, early stopping and init included).
void check_registered(const std::string& name, const Schema& options) {
  const Registration& reg = test::registry().get(name, Kind::estimator);
  for (const ParamSpec& spec : options.params()) {
    INFO(name << ": " << spec.name);
    const ParamSpec* registered = reg.schema.find(spec.name);
    REQUIRE(registered != nullptr);
    CHECK(registered->to_json() == spec.to_json());
  }
  Schema policy;
  IterativeEstimator::declare_policy(policy, {.early_stopping = true, .init = "spectral_init"});
  for (const ParamSpec& spec : reg.schema.params()) {
    INFO(name << " declares " << spec.name);
    CHECK((options.find(spec.name) != nullptr || policy.find(spec.name) != nullptr));
  }
}

/// Defaults equal the schema's, are valid, and survive a trip through parameters.
template <class Options, class... Method>
void check_defaults(const Schema& schema, Method... method) {
  const Options defaults(method...);
  CHECK(defaults.to_json() == schema.defaults());
  std::string why;
  CHECK(defaults.is_valid(&why));
  CHECK(why.empty());
  const Options again(method..., Params(defaults.to_json()));
  CHECK(again.to_json() == defaults.to_json());
}

template <class Options>
std::string refusal(const Options& options) {
  std::string why;
  CHECK_FALSE(options.is_valid(&why));
  CHECK_FALSE(options.is_valid());  // the reason is optional
  return why;
}

}  // namespace

TEST_CASE("gfm_one_pass options: defaults from the schema, is_valid, round trip", "[options]") {
  check_defaults<gfm::GfmOptions>(gfm::GfmOptions::schema());
  check_registered("gfm_one_pass", gfm::GfmOptions::schema());

  gfm::GfmOptions o;
  CHECK(o.rank == 2);
  CHECK_FALSE(o.batch_size.has_value());       // null default: from the data (BatchReader::choose)
  o.threads = 2;
  CHECK(gfm::GfmOptions(Params(o.to_json())).to_json() == o.to_json());

  o.rank = 0;
  const std::string why = refusal(o);
  CHECK(why.find("/rank") != std::string::npos);
  CHECK(why.find("integer ≥ 1") != std::string::npos);
  o.rank = 3;
  o.divergence_factor = 1.0;  // must exceed 1
  CHECK(refusal(o).find("/divergence_factor") != std::string::npos);
}

TEST_CASE("fm_subgaussian options: alternating, fm and ridge", "[options]") {
  using namespace fm_subgaussian;
  check_defaults<AlternatingOptions>(AlternatingOptions::schema());
  check_defaults<MomentEliminationOptions>(MomentEliminationOptions::schema());
  check_defaults<ConventionalFmOptions>(ConventionalFmOptions::schema());
  check_defaults<RidgeOptions>(RidgeOptions::schema());
  check_registered("fm_moment_elimination", MomentEliminationOptions::schema());
  check_registered("ifm", AlternatingOptions::schema());
  check_registered("fm", ConventionalFmOptions::schema());
  check_registered("ridge", RidgeOptions::schema());

  AlternatingOptions alternating;
  alternating.step_size = 1.5;  // in (0, 1]
  CHECK(refusal(alternating).find("/step_size") != std::string::npos);

  MomentEliminationOptions moments;
  CHECK(moments.tau_threshold == 0.1);
  CHECK(moments.tau_confidence == 0.99);
  moments.tau_confidence = 1.0;  // a bound at confidence 1 is −∞
  CHECK(refusal(moments).find("/tau_confidence") != std::string::npos);
  moments.tau_confidence = 0.3;  // below 1/2 a "confidence" bound is more likely wrong than right
  CHECK(refusal(moments).find("/tau_confidence") != std::string::npos);

  ConventionalFmOptions fm;
  CHECK(fm.solver == ConventionalFmOptions::Solver::sgd);
  fm.solver = ConventionalFmOptions::Solver::als;
  CHECK(ConventionalFmOptions(Params(fm.to_json())).solver == ConventionalFmOptions::Solver::als);
  fm.learning_rate = 0.0;  // must be positive
  CHECK(refusal(fm).find("/learning_rate") != std::string::npos);

  RidgeOptions ridge;
  ridge.l2 = -1.0;
  CHECK(refusal(ridge).find("/l2") != std::string::npos);

  // standardize implies an intercept, whatever the intercept parameter says.
  Json given = AlternatingOptions::schema().defaults();
  given["standardize"] = true;
  CHECK(AlternatingOptions(Params(given)).fits_intercept());
}

TEST_CASE("completion options: online, and offline with each estimator's defaults", "[options]") {
  using namespace online_completion;
  check_defaults<OnlineOptions>(OnlineOptions::schema());
  check_defaults<OfflineOptions>(OfflineOptions::schema(OfflineOptions::Method::als_completion),
                                 OfflineOptions::Method::als_completion);
  check_defaults<OfflineOptions>(OfflineOptions::schema(OfflineOptions::Method::sgd_mf), OfflineOptions::Method::sgd_mf);
  for (const char* name : {"omc_psd", "omc_general", "omc_general_theoretical"}) check_registered(name, OnlineOptions::schema());
  check_registered("als_completion", OfflineOptions::schema(OfflineOptions::Method::als_completion));
  check_registered("sgd_mf", OfflineOptions::schema(OfflineOptions::Method::sgd_mf));

  // The two offline estimators share the struct but not the defaults.
  const OfflineOptions als(OfflineOptions::Method::als_completion), sgd(OfflineOptions::Method::sgd_mf);
  // The start is the shared component `init`; each registration declares its default initializer.
  CHECK(test::registry().get("als_completion", Kind::estimator).schema.find("init")->to_json()["default"] == "spectral_init");
  CHECK(test::registry().get("sgd_mf", Kind::estimator).schema.find("init")->to_json()["default"] == "random_init");
  CHECK(als.max_iterations == 50);
  CHECK(sgd.max_iterations == 100);
  CHECK_FALSE(als.to_json().contains("learning_rate"));

  OnlineOptions online;
  CHECK_FALSE(online.learning_rate.has_value());
  online.learning_rate = 0.05;
  online.offset = OffsetKind::biases;
  const OnlineOptions again{Params(online.to_json())};
  CHECK(again.learning_rate == 0.05);
  CHECK(again.offset == OffsetKind::biases);
  online.batch_size = 0;
  CHECK(refusal(online).find("/batch_size") != std::string::npos);

  OfflineOptions bad(OfflineOptions::Method::sgd_mf);
  bad.learning_rate = 0.0;  // must be > 0
  CHECK(refusal(bad).find("/learning_rate") != std::string::npos);
}

TEST_CASE("bias_baseline options: defaults from the schema, the registered schema, terms", "[options]") {
  using namespace online_completion;
  check_defaults<BiasBaselineOptions>(BiasBaselineOptions::schema());
  check_registered("bias_baseline", BiasBaselineOptions::schema());
  BiasBaselineOptions o;
  CHECK(o.terms == OffsetKind::biases);
  o.terms = OffsetKind::mean;
  CHECK(BiasBaselineOptions(Params(o.to_json())).terms == OffsetKind::mean);
  o.max_iterations = 0;  // at least one sweep
  CHECK(refusal(o).find("/max_iterations") != std::string::npos);
}

TEST_CASE("divergence_factor: one declaration for the estimators that read fresh batches", "[options]") {
  // gfm_one_pass, fm_moment_elimination, ifm and the online completion estimators declare it through
  // IterativeEstimator::declare_divergence_factor: same spec, same default, same meaning
  // (docs/plugins/*.md, "Departures"). one_bit_mll normalises W's columns: nothing to bound.
  const ParamSpec* reference = test::registry().get("gfm_one_pass", Kind::estimator).schema.find("divergence_factor");
  REQUIRE(reference != nullptr);
  CHECK(reference->to_json()["default"] == IterativeEstimator::kDefaultDivergenceFactor);
  for (const char* name : {"fm_moment_elimination", "ifm", "omc_psd", "omc_general", "omc_general_theoretical"}) {
    INFO(name);
    const ParamSpec* spec = test::registry().get(name, Kind::estimator).schema.find("divergence_factor");
    REQUIRE(spec != nullptr);
    CHECK(spec->to_json() == reference->to_json());
  }
  // The fixed-set estimators declare it through the same function: the same default and bound, a
  // text that names their residual.
  for (const char* name : {"als_completion", "sgd_mf", "factored_gd", "svp", "fm_mcmc"}) {
    INFO(name);
    const ParamSpec* spec = test::registry().get(name, Kind::estimator).schema.find("divergence_factor");
    REQUIRE(spec != nullptr);
    Json own = spec->to_json(), shared = reference->to_json();
    own.erase("doc");
    shared.erase("doc");
    CHECK(own == shared);
  }
  fm_subgaussian::AlternatingOptions alternating;
  CHECK(alternating.divergence_factor == IterativeEstimator::kDefaultDivergenceFactor);
  alternating.divergence_factor = 1.0;  // must exceed 1
  CHECK(refusal(alternating).find("/divergence_factor") != std::string::npos);
}

TEST_CASE("passes: one declaration for the estimators that read batches through BatchReader", "[options]") {
  // The shared batch rule (rankone/estimation/batch_reader.hpp): full batches, a short last batch
  // unused, re-use of a finite set bounded by passes.
  const ParamSpec* reference = test::registry().get("gfm_one_pass", Kind::estimator).schema.find("passes");
  REQUIRE(reference != nullptr);
  CHECK_FALSE(reference->to_json().contains("default"));  // from the data (BatchReader::choose)
  for (const char* name : {"fm_moment_elimination", "ifm", "one_bit_mll"}) {
    INFO(name);
    const ParamSpec* spec = test::registry().get(name, Kind::estimator).schema.find("passes");
    REQUIRE(spec != nullptr);
    CHECK(spec->to_json() == reference->to_json());
  }
}

namespace {

/// An Options struct on a table: two fields, an optional one, an enum, and a cross-field constraint.
struct TableOptions : DeclaredOptions<TableOptions> {
  enum class Norm { spectral, frobenius };
  Index batch_size;
  std::optional<Index> init_batch_size;
  Norm norm;
  static const OptionsTable<TableOptions>& table() {
    static const OptionsTable<TableOptions> t = [] {
      OptionsTable<TableOptions> t;
      Schema& s = t.schema();
      t.bind(&TableOptions::batch_size, s.integer("batch_size", 100, "rows per batch").at_least(1));
      t.bind(&TableOptions::init_batch_size,
             s.integer("init_batch_size", std::nullopt, "rows of the start").at_least(1).make_nullable());
      t.bind_choice(&TableOptions::norm, s.choice("norm", "spectral", {"spectral", "frobenius"}, "which norm"),
                    {{"spectral", Norm::spectral}, {"frobenius", Norm::frobenius}});
      s.constraint({"init_batch_size", "batch_size"}, "the start needs at least one batch", [](const Params& p) {
        return !p.has("init_batch_size") || p.integer("init_batch_size") >= p.integer("batch_size");
      });
      return t;
    }();
    return t;
  }
  TableOptions() { read_defaults(); }
  explicit TableOptions(const Params& p) { read(p); }
};

}  // namespace

TEST_CASE("an OptionsTable is the one declaration: schema, defaults, round trip, ranges and constraints", "[options]") {
  check_defaults<TableOptions>(TableOptions::schema());
  TableOptions o;
  CHECK(o.batch_size == 100);
  CHECK_FALSE(o.init_batch_size.has_value());
  CHECK(o.norm == TableOptions::Norm::spectral);
  o.norm = TableOptions::Norm::frobenius;
  o.init_batch_size = 500;
  const TableOptions again(Params(o.to_json()));
  CHECK(again.norm == TableOptions::Norm::frobenius);
  CHECK(again.init_batch_size == 500);
  o.init_batch_size = 50;  // below batch_size: the constraint, naming both fields
  CHECK(refusal(o) == "at /init_batch_size: violated constraint on /init_batch_size and /batch_size: the start needs at "
                      "least one batch (init_batch_size = 50, batch_size = 100)");
  o.init_batch_size.reset();
  o.batch_size = 0;  // a range
  CHECK(refusal(o) == "at /batch_size: expected an integer ≥ 1, found 0");
  // Binding a parameter nobody declared is a programming error, caught when the table is built.
  OptionsTable<TableOptions> t;
  CHECK_THROWS_AS(t.bind(&TableOptions::batch_size, std::string("batch")), std::logic_error);
}

TEST_CASE("an integer setting beyond what its field holds is refused by name, never wrapped", "[options]") {
  using namespace fm_subgaussian;
  // max_iterations is an int: 2^32 + 1 used to become 1 (one epoch, exit 0).
  Json p = ConventionalFmOptions::schema().defaults();
  p["max_iterations"] = 4294967297LL;
  CHECK_THROWS_WITH(ConventionalFmOptions(Params(p, "/estimators/0")),
                    Catch::Matchers::Contains("at /estimators/0/max_iterations") &&
                        Catch::Matchers::Contains("2147483647") && Catch::Matchers::Contains("found 4294967297"));
  p["max_iterations"] = 2147483647LL;  // the largest it holds is accepted
  CHECK(ConventionalFmOptions(Params(p, "/estimators/0")).max_iterations == 2147483647);
}
