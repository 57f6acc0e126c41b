// Conformance over every registered plugin: it constructs from its example parameters, describes
// itself, its schema round-trips through JSON, and it behaves as its kind promises.
#include <catch2/catch.hpp>

#include "test_support.hpp"

using namespace rankone;

namespace {

Json example_ref(const Registration& r) {
  Json ref = r.example;
  ref["name"] = r.name;
  return ref;
}

}  // namespace

TEST_CASE("every plugin conforms", "[conformance]") {
  const auto& registry = test::registry();
  REQUIRE(registry.all().size() >= 20);
  for (const Registration* r : registry.all()) {
    DYNAMIC_SECTION(to_string(r->kind) << " " << r->name) {
      INFO("plugin " << r->name << " from " << r->library);
      CHECK_FALSE(r->summary.empty());
      CHECK_FALSE(r->version.empty());
      CHECK_FALSE(r->doc_page.empty());
      if (!r->doc_page.empty()) CHECK(std::filesystem::exists(test::source_dir() / r->doc_page));
      for (const auto& p : r->schema.params()) {
        INFO("parameter " << p.name);
        CHECK_FALSE(p.doc.empty());
      }
      // The schema round-trips through its JSON form (what `rankone describe --json` prints).
      CHECK(Schema::from_json(r->schema.to_json()).to_json() == r->schema.to_json());

      ValidationContext ctx(registry, [](const std::string&) { return std::string("conformance"); });
      const Json resolved = validate_plugin_ref(example_ref(*r), r->kind, ctx, "");
      // Validation is idempotent: the resolved form validates to itself.
      CHECK(validate_plugin_ref(resolved, r->kind, ctx, "") == resolved);

      switch (r->kind) {
        case Kind::sampler: {
          auto s = registry.create<Sampler>(resolved, r->kind);
          DesignSide side;
          Rng rng(1);
          s->sample(rng, 7, 5, side);
          CHECK(side.kind == s->kind());
          CHECK(side.count() == 5);
          CHECK(side.dim == 7);
          const Moments m = s->moments(7);
          CHECK(std::isfinite(m.variance));
          break;
        }
        case Kind::sensing_operator: {
          auto op = registry.create<SensingOperator>(resolved, r->kind);
          CHECK_FALSE(op->accepted_left().empty());
          break;
        }
        case Kind::data_source: {
          auto src = registry.create<DataSource>(resolved, r->kind);
          src->open(11);
          const Batch b = src->next(8);
          CHECK(b.size() > 0);
          CHECK(src->samples_drawn() == b.size());
          CHECK(b.left.dim == src->shape().d1);
          break;
        }
        case Kind::estimator: {
          auto est = registry.create<Estimator>(resolved, r->kind);
          CHECK(est->summary().status == Status::running);
          break;
        }
        case Kind::metric: {
          auto m = registry.create<Metric>(resolved, r->kind);
          CHECK(m != nullptr);
          break;
        }
      }

      // Its memory footprint (checked against the budget before a study runs) is declared by every
      // built-in sampler, source and estimator, finite, and does not shrink as the problem grows.
      if (r->kind == Kind::sampler || r->kind == Kind::data_source || r->kind == Kind::estimator)
        CHECK(static_cast<bool>(r->footprint));
      auto bytes_at = [&](Index d) {
        DataFootprint data;
        data.shape = ProblemShape{d, d, false};
        data.instance_bytes = 8.0 * static_cast<double>(d);
        data.training_instances = 1000;
        data.test_instances = 100;
        return registry.footprint(resolved, r->kind, FootprintContext{registry, data}).bytes();
      };
      const double small = bytes_at(300), large = bytes_at(3000);
      CHECK(std::isfinite(small));
      CHECK(small >= 0);
      CHECK(large >= small);
    }
  }
}
