// Declared parameters: validation, defaults, error messages and the JSON round trip.
#include <catch2/catch.hpp>

#include <tuple>

#include "test_support.hpp"

using namespace rankone;

namespace {

Schema example_schema() {
  Schema s;
  s.integer("rank", 2, "target rank").at_least(1);
  s.number("step", 0.5, "step size").above(0).at_most(1);
  s.boolean("first_order", false, "estimate w");
  s.choice("norm", "spectral", {"spectral", "frobenius"}, "which norm");
  s.number_list("eigenvalues", "explicit spectrum").at_least(-10);
  s.integer("d", std::nullopt, "dimension").at_least(1);
  s.plugin("sampler", "sampler", "gaussian", "design distribution");
  return s;
}

std::string error_of(const Json& given) {
  ValidationContext ctx(test::registry(), [](const std::string&) { return std::string("exp.json"); });
  try {
    example_schema().validate(given, ctx, "/estimators/0");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("validation fills defaults and keeps given values", "[params]") {
  ValidationContext ctx(test::registry(), nullptr);
  const Json out = example_schema().validate(Json{{"d", 10}, {"rank", 3}}, ctx, "");
  CHECK(out["rank"] == 3);
  CHECK(out["d"] == 10);
  CHECK(out["step"] == 0.5);
  CHECK(out["first_order"] == false);
  CHECK(out["norm"] == "spectral");
  CHECK(out["eigenvalues"].is_null());
  CHECK(out["sampler"]["name"] == "gaussian");
  CHECK(out["sampler"].contains("std"));  // the nested plugin's defaults are filled in too
  Params p(out);
  CHECK(p.integer("rank") == 3);
  CHECK(p.number("step") == 0.5);
  CHECK_FALSE(p.has("eigenvalues"));
  CHECK(p.numbers("eigenvalues").empty());
}

TEST_CASE("validation errors name the file, the path, the expectation and what was found", "[params]") {
  CHECK(error_of({{"d", 10}, {"rank", "three"}}) == "exp.json: at /estimators/0/rank: expected an integer ≥ 1, found \"three\"");
  CHECK(error_of({{"d", 10}, {"rank", 0}}) == "exp.json: at /estimators/0/rank: expected an integer ≥ 1, found 0");
  CHECK(error_of({{"d", 10}, {"rank", 2.5}}) == "exp.json: at /estimators/0/rank: expected an integer ≥ 1, found 2.5");
  CHECK(error_of({{"d", 10}, {"step", 0}}) == "exp.json: at /estimators/0/step: expected a number > 0 and ≤ 1, found 0");
  CHECK(error_of({{"d", 10}, {"norm", "nuclear"}}) ==
        "exp.json: at /estimators/0/norm: expected one of \"spectral\", \"frobenius\", found \"nuclear\"");
  CHECK(error_of({{"d", 10}, {"first_order", 1}}) == "exp.json: at /estimators/0/first_order: expected true or false, found 1");
  CHECK(error_of({{"d", 10}, {"eigenvalues", {1, -20}}}) ==
        "exp.json: at /estimators/0/eigenvalues/1: expected a number ≥ -10, found -20");
  CHECK_THAT(error_of({{"rank", 2}}), Catch::Contains("at /estimators/0/d: missing required parameter 'd'"));
  CHECK_THAT(error_of({{"d", 10}, {"rnak", 2}}),
             Catch::Contains("at /estimators/0/rnak: unknown parameter 'rnak' (did you mean 'rank'?)"));
  CHECK_THAT(error_of({{"d", 10}, {"sampler", "gausian"}}), Catch::Contains("did you mean 'gaussian'"));
  CHECK_THAT(error_of({{"d", 10}, {"sampler", {{"name", "gaussian"}, {"sd", 1}}}}),
             Catch::Contains("at /estimators/0/sampler/sd: unknown parameter 'sd'"));
  CHECK_THAT(error_of({{"d", 10}, {"sampler", "spectral"}}),
             Catch::Contains("'spectral' is an estimator, but a sampler is expected here"));
}

TEST_CASE("a retired parameter name is refused with the name it has now", "[params]") {
  Schema s = example_schema();
  s.renamed("iterations", "rank");  // any (old, new) pair
  ValidationContext ctx(test::registry(), [](const std::string&) { return std::string("exp.json"); });
  try {
    s.validate(Json{{"d", 10}, {"iterations", 30}}, ctx, "/estimators/0");
    FAIL("validated a retired name");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "exp.json: at /estimators/0/iterations: 'iterations' is now called 'rank' (write \"rank\": 30; one name per "
          "concept across plugins)");
  }
  CHECK(s.to_json() == example_schema().to_json());  // a retired name is not a parameter
  // The built-in renames: one name per concept across every plugin.
  for (const auto& [plugin, old_name, new_name] : {std::tuple{"gfm_one_pass", "iterations", "max_iterations"},
                                                   std::tuple{"fm", "passes", "max_iterations"},
                                                   std::tuple{"fm", "train_size", "training_size"},
                                                   std::tuple{"ridge", "train_size", "training_size"}}) {
    INFO(plugin << "." << old_name);
    const Registration& r = test::registry().get(plugin);
    REQUIRE(r.schema.find(new_name) != nullptr);
    CHECK(r.schema.find(old_name) == nullptr);
    CHECK_THROWS_WITH(r.schema.validate(Json{{old_name, 3}}, ctx, ""),
                      Catch::Contains(std::string("is now called '") + new_name + "'"));
  }
}

TEST_CASE("a retired parameter without a one-to-one successor is refused with its advice", "[params]") {
  ValidationContext ctx(test::registry(), [](const std::string&) { return std::string("exp.json"); });
  // one_bit_mll's unbounded boolean cycle became passes, a count: no rename can say which.
  const Registration& r = test::registry().get("one_bit_mll");
  CHECK(r.schema.find("cycle") == nullptr);
  CHECK_THROWS_WITH(r.schema.validate(Json{{"cycle", true}}, ctx, "/estimators/0"),
                    Catch::Contains("at /estimators/0/cycle: 'cycle' was retired: write \"passes\": N"));
}

TEST_CASE("defaults and is_valid: what an Options struct reads and checks from C++", "[params]") {
  Schema s;
  s.integer("rank", 2, "target rank").at_least(1);
  s.number("step", 0.5, "step size").above(0).at_most(1);
  s.choice("norm", "spectral", {"spectral", "frobenius"}, "which norm");
  s.integer("d", std::nullopt, "dimension").at_least(1).make_nullable();
  const Json defaults = s.defaults();
  CHECK(defaults == Json{{"rank", 2}, {"step", 0.5}, {"norm", "spectral"}, {"d", nullptr}});
  std::string why = "unchanged";
  CHECK(s.is_valid(defaults, &why));
  CHECK(why == "unchanged");  // written only on failure

  Json bad = defaults;
  bad["step"] = 0.0;
  CHECK_FALSE(s.is_valid(bad, &why));
  CHECK(why == "at /step: expected a number > 0 and ≤ 1, found 0.0");
  CHECK_FALSE(s.is_valid(bad, nullptr));
  bad = defaults;
  bad["norm"] = "nuclear";
  CHECK_FALSE(s.is_valid(bad, &why));
  CHECK(why.find("/norm") != std::string::npos);
  bad = defaults;
  bad["rnak"] = 3;
  CHECK_FALSE(s.is_valid(bad, &why));
  CHECK(why.find("did you mean 'rank'") != std::string::npos);
}

TEST_CASE("a schema survives the JSON round trip", "[params]") {
  const Schema s = example_schema();
  CHECK(Schema::from_json(s.to_json()).to_json() == s.to_json());
}

TEST_CASE("declaring a parameter twice or a reserved name is a programming error", "[params]") {
  Schema s;
  s.integer("rank", 1, "");
  CHECK_THROWS_AS(s.integer("rank", 2, ""), std::logic_error);
  CHECK_THROWS_AS(s.integer("name", 2, ""), std::logic_error);
  CHECK_THROWS_AS(s.integer("label", 2, ""), std::logic_error);
}

TEST_CASE("a cross-field constraint is refused at validation, naming every field, their values and the rule",
          "[params][constraints]") {
  Schema s;
  s.integer("batch_size", 100, "rows per batch").at_least(1);
  s.integer("init_batch_size", std::nullopt, "rows of the start").at_least(1).make_nullable();
  s.constraint({"init_batch_size", "batch_size"}, "the start needs at least one batch",
               [](const Params& p) { return !p.has("init_batch_size") || p.integer("init_batch_size") >= p.integer("batch_size"); });
  ValidationContext ctx(test::registry(), [](const std::string&) { return std::string("exp.json"); });
  CHECK_NOTHROW(s.validate(Json{{"init_batch_size", 100}}, ctx, "/estimators/0"));
  CHECK_NOTHROW(s.validate(Json::object(), ctx, "/estimators/0"));  // the default satisfies it
  CHECK_THROWS_WITH(s.validate(Json{{"init_batch_size", 50}}, ctx, "/estimators/0"),
                    "exp.json: at /estimators/0/init_batch_size: violated constraint on /estimators/0/init_batch_size and "
                    "/estimators/0/batch_size: the start needs at least one batch (init_batch_size = 50, batch_size = 100)");
  std::string why;
  CHECK_FALSE(s.is_valid(Json{{"batch_size", 100}, {"init_batch_size", 7}}, &why));
  CHECK(why == "at /init_batch_size: violated constraint on /init_batch_size and /batch_size: the start needs at least "
               "one batch (init_batch_size = 7, batch_size = 100)");
  CHECK(s.is_valid(s.defaults(), &why));  // a default the validation refuses would be a bug
}

TEST_CASE("Params records which parameters were read, by it or a copy", "[params][conformance]") {
  const Params p(Json{{"name", "x"}, {"rank", 2}, {"step", 0.5}, {"d", nullptr}});
  CHECK(p.unread() == std::vector<std::string>{"d", "rank", "step"});  // name is not a parameter
  const Params copy = p;
  CHECK(copy.integer("rank") == 2);
  CHECK_FALSE(p.has("d"));  // asking whether it is set is reading it
  CHECK(p.unread() == std::vector<std::string>{"step"});
  (void)copy.json();  // handing the whole object on reads everything
  CHECK(p.unread().empty());
}

TEST_CASE("a default may follow another parameter, or be set for a referenced plugin", "[params]") {
  Schema s;
  s.string("test_file", std::nullopt, "a test file").make_nullable();
  s.number("test_fraction", 0.2, "held-out fraction").at_least(0).defaults_to_when_given(0.0, "test_file");
  s.number("w_norm", 0.0, "planted w").at_least(0);
  s.plugin("operator", "operator", "symmetric_rank_one", "operator")
      .sets_defaults_of_referenced([](const Json& given) { return Json{{"first_order", given.value("w_norm", 0.0) > 0}}; },
                                   "first_order follows w_norm");
  ValidationContext ctx(test::registry(), nullptr);
  CHECK(s.validate(Json::object(), ctx, "")["test_fraction"] == 0.2);
  CHECK(s.validate(Json{{"test_file", "t.svm"}}, ctx, "")["test_fraction"] == 0.0);
  CHECK(s.validate(Json{{"test_file", "t.svm"}, {"test_fraction", 0.5}}, ctx, "")["test_fraction"] == 0.5);  // given wins
  CHECK(s.validate(Json::object(), ctx, "")["operator"]["first_order"] == false);
  CHECK(s.validate(Json{{"w_norm", 1.0}}, ctx, "")["operator"]["first_order"] == true);
  CHECK(s.validate(Json{{"w_norm", 1.0}, {"operator", "symmetric_rank_one"}}, ctx, "")["operator"]["first_order"] == true);
  const Json declared = {{"w_norm", 1.0}, {"operator", {{"name", "symmetric_rank_one"}, {"first_order", false}}}};
  CHECK(s.validate(declared, ctx, "")["operator"]["first_order"] == false);  // what a reference declares stays
  // Set only where the referenced plugin declares the parameter: the entry operator has no first_order.
  CHECK_FALSE(s.validate(Json{{"w_norm", 1.0}, {"operator", "entry"}}, ctx, "")["operator"].contains("first_order"));
  // describe says both rules, and the schema's JSON keeps them.
  CHECK(s.find("test_fraction")->default_text() == "default 0.2 (0.0 when test_file is given)");
  CHECK(s.find("operator")->default_text() == "default \"symmetric_rank_one\"; first_order follows w_norm");
  CHECK(Schema::from_json(s.to_json()).to_json() == s.to_json());
}
