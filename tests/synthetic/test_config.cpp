// Bad parameter combinations of the `synthetic` source: a ConfigError naming the parameter.
#include <catch2/catch.hpp>

#include "test_support.hpp"

using namespace rankone;

namespace {

/// The message of the ConfigError that creating the source throws ("" when none is thrown).
std::string config_error(Json params) {
  params["name"] = "synthetic";
  try {
    test::make<DataSource>(params, Kind::data_source);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a valid configuration creates a source", "[synthetic][config]") {
  CHECK(config_error({{"d", 5}}).empty());
  CHECK(config_error({{"operator", "entry"}, {"sampler", "one_hot"}, {"d", 5}, {"truth", "psd"}}).empty());
  CHECK(config_error({{"operator", "asymmetric_rank_one"}, {"d", 5}, {"d2", 3}, {"truth", "general"}}).empty());
}

TEST_CASE("bad combinations name the offending parameter", "[synthetic][config]") {
  using Catch::Matchers::Contains;
  const Json first_order_op = {{"name", "symmetric_rank_one"}, {"first_order", true}};
  // Schema-level checks (types and ranges).
  CHECK_THAT(config_error(Json::object()), Contains("at /d:") && Contains("missing"));
  CHECK_THAT(config_error({{"d", 5}, {"flip_probability", 0.6}, {"link", "sign"}}), Contains("at /flip_probability:"));
  // Combinations checked by the factory.
  CHECK_THAT(config_error({{"d", 5}, {"rank", 6}}), Contains("at /rank:") && Contains("exceeds"));
  CHECK_THAT(config_error({{"operator", "entry"}, {"d", 5}}), Contains("at /sampler:") && Contains("index"));
  CHECK_THAT(config_error({{"operator", "asymmetric_rank_one"}, {"right_sampler", "one_hot"}, {"d", 5}}),
             Contains("at /right_sampler:"));
  CHECK_THAT(config_error({{"d", 5}, {"right_sampler", "gaussian"}}), Contains("at /right_sampler:"));
  CHECK_THAT(config_error({{"d", 5}, {"flip_probability", 0.1}}), Contains("at /flip_probability:"));
  CHECK_THAT(config_error({{"operator", "single_label"}, {"d", 5}, {"truth", "psd"}}), Contains("at /truth:"));
  CHECK_THAT(config_error({{"d", 5}, {"truth", "general"}}), Contains("at /truth:"));
  CHECK_THAT(config_error({{"d", 5}, {"d2", 4}}), Contains("at /d2:"));
  CHECK_THAT(config_error({{"operator", "asymmetric_rank_one"}, {"d", 5}, {"d2", 4}, {"truth", "fm"}}),
             Contains("at /d2:"));
  CHECK_THAT(config_error({{"d", 5}, {"eigenvalues", Json::array({1.0})}}), Contains("at /eigenvalues:"));
  CHECK_THAT(config_error({{"d", 5}, {"truth", "psd"}, {"eigenvalues", {1.0, -1.0}}}), Contains("at /eigenvalues:"));
  CHECK_THAT(config_error({{"d", 5}, {"truth", "fm"}, {"tail", Json::array({0.1})}}), Contains("at /tail:"));
  CHECK_THAT(config_error({{"d", 5}, {"rank", 4}, {"tail", {0.1, 0.1}}}), Contains("at /tail:"));
  CHECK_THAT(config_error({{"d", 5}, {"factor_std", 0.1}}), Contains("at /factor_std:"));
  CHECK_THAT(config_error({{"d", 5}, {"truth_sign", 0}}), Contains("at /truth_sign:"));
  CHECK_THAT(config_error({{"operator", {{"name", "symmetric_rank_one"}, {"first_order", false}}}, {"d", 5}, {"w_norm", 1.0}}),
             Contains("at /w_norm:") && Contains("first_order"));
  CHECK_THAT(config_error({{"operator", first_order_op}, {"d", 5}, {"w_norm", 1.0}, {"w_std", 0.1}}),
             Contains("at /w_std:"));
  CHECK_THAT(config_error({{"d", 5}, {"test_full_labels", true}}), Contains("at /test_full_labels:"));
}

TEST_CASE("the operator's first-order term follows a planted w unless declared", "[synthetic][config]") {
  const auto first_order = [](Json params) {
    params["name"] = "synthetic";
    return test::make<DataSource>(params, Kind::data_source)->sensing_operator().has_first_order();
  };
  CHECK_FALSE(first_order({{"d", 5}}));                    // no w planted: none fitted, as before
  CHECK_FALSE(first_order({{"d", 5}, {"w_norm", 0.0}}));
  CHECK(first_order({{"d", 5}, {"w_norm", 1.0}}));         // a planted w turns it on
  CHECK(first_order({{"d", 5}, {"w_std", 0.0}}));
  CHECK(first_order({{"d", 5}, {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}}));  // declared
}
