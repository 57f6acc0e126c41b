#pragma once
// Helpers of the one-bit multi-label tests: single-label and full-observation synthetic problems,
// running an estimator, and evaluating registered metrics on its estimate.
#include <memory>
#include <string>
#include <vector>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

namespace rankone::test::one_bit {

/// The synthetic source of the paper's Section 5: x ~ N(0, I), W* with unit columns, y = sign(x'W*ē).
inline Json single_label_source(Index d1, Index d2, Index rank, Index test_size) {
  return Json{{"name", "synthetic"}, {"operator", "single_label"}, {"d", d1},       {"d2", d2},
              {"rank", rank},       {"truth", "unit_columns"},    {"link", "sign"}, {"test_size", test_size},
              {"test_full_labels", true}};
}

/// The same with every label observed in training (Table 2) and a finite training set.
inline Json full_label_source(Index d1, Index d2, Index rank, Index instances, Index test_size) {
  Json j = single_label_source(d1, d2, rank, test_size);
  j["full_labels"] = true;
  j["size"] = instances;
  return j;
}

struct Run {
  std::unique_ptr<DataSource> source;
  std::unique_ptr<Estimator> estimator;
  Rng rng;

  Run(const Json& source_json, const Json& estimator_json, std::uint64_t seed)
      : source(make<DataSource>(source_json, Kind::data_source)),
        estimator(make<Estimator>(estimator_json, Kind::estimator)),
        rng(seed + 1) {
    source->open(seed);
    estimator->start(*source, rng);
  }

  /// A registered metric's first value on the current estimate.
  double metric(const Json& metric_json) const {
    auto m = make<Metric>(metric_json, Kind::metric);
    const Estimate e = estimator->estimate();
    const MetricContext ctx{e,
                            source->truth(),
                            source->test_set(),
                            source->sensing_operator(),
                            source->link(),
                            source->samples_drawn(),
                            0.0,
                            estimator->summary().iterations};
    return m->evaluate(ctx).front().second;
  }
};

}  // namespace rankone::test::one_bit
