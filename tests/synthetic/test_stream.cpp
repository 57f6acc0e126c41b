// The measurements of the `synthetic` source: responses, noise, flips, test set, reproducibility.
#include <catch2/catch.hpp>

#include <cmath>

#include "test_support.hpp"

using namespace rankone;

namespace {

std::unique_ptr<DataSource> opened(Json params, std::uint64_t seed = 21) {
  params["name"] = "synthetic";
  auto source = test::make<DataSource>(params, Kind::data_source);
  source->open(seed);
  return source;
}

/// Exactly equal Eigen objects (shapes first: comparing mismatched shapes is undefined).
template <class A>
bool equal(const A& x, const A& y) {
  return x.rows() == y.rows() && x.cols() == y.cols() && (x.size() == 0 || x == y);
}

/// Exactly equal designs (dense or index, both sides) and responses.
bool same_batch(const Batch& a, const Batch& b) {
  if (!equal(a.y, b.y) || a.right.has_value() != b.right.has_value()) return false;
  const auto same_side = [](const DesignSide& x, const DesignSide& y) {
    return x.kind == y.kind && x.dim == y.dim && equal(x.dense, y.dense) && equal(x.index, y.index) &&
           x.scale == y.scale;
  };
  return same_side(a.left, b.left) && (!a.right || same_side(*a.right, *b.right));
}

Batch concatenated(std::vector<Batch> parts) {
  Batch out;
  for (const Batch& b : parts) out.append(b);
  return out;
}

Vector signs(const Vector& v) { return v.unaryExpr([](double x) { return x >= 0.0 ? 1.0 : -1.0; }); }

}  // namespace

TEST_CASE("noise-free responses are x'M*x + x'w* + bias", "[synthetic][stream]") {
  const auto s = opened({{"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
                         {"d", 10}, {"rank", 2}, {"w_norm", 1.5}, {"bias", 0.3}});
  const Batch b = s->next(300);  // crosses a chunk boundary (256)
  REQUIRE(b.size() == 300);
  const GroundTruth& t = *s->truth();
  CHECK((b.y - s->sensing_operator().forward(b, t)).norm() < 1e-12);
  // Independently of the operator: dense arithmetic on the designs.
  const Matrix M = t.dense();
  double worst = 0.0;
  for (Index i = 0; i < b.size(); ++i) {
    const Vector x = b.left.dense.col(i);
    worst = std::max(worst, std::abs(b.y(i) - (x.dot(M * x) + x.dot(t.w) + 0.3)));
  }
  CHECK(worst < 1e-10);
  CHECK(s->samples_drawn() == 300);
  CHECK_FALSE(s->finite());
  CHECK(s->shape().d1 == 10);
  CHECK(s->shape().symmetric);
}

TEST_CASE("entry operator with a psd truth observes entries of M*", "[synthetic][stream]") {
  const auto s = opened({{"operator", "entry"}, {"sampler", "one_hot"}, {"d", 8}, {"rank", 2}, {"truth", "psd"}});
  const Batch b = s->next(100);
  REQUIRE(b.right);
  REQUIRE(b.right->kind == DesignSide::Kind::index);
  const Matrix M = s->truth()->dense();
  for (Index i = 0; i < b.size(); ++i) CHECK(b.y(i) == Approx(M(b.left.index(i), b.right->index(i))));
}

TEST_CASE("additive noise has the requested standard deviation", "[synthetic][stream]") {
  const double sigma = 0.5;
  const Index n = 20000;
  const auto s = opened({{"d", 5}, {"rank", 1}, {"noise_std", sigma}});
  const Batch b = s->next(n);
  const Vector noise = b.y - s->sensing_operator().forward(b, *s->truth());
  const double mean = noise.mean();
  const double sd = std::sqrt((noise.array() - mean).square().sum() / double(n - 1));
  // Standard errors: σ/√n for the mean, σ/√(2n) for the standard deviation; allow 3 of each.
  CHECK(std::abs(mean) < 3.0 * sigma / std::sqrt(double(n)));
  CHECK(std::abs(sd - sigma) < 3.0 * sigma / std::sqrt(2.0 * n));
}

TEST_CASE("noise on amplitudes: y = max(√y₀ + ξ, 0)² with σ = ‖x‖/SNR", "[synthetic][stream]") {
  const double snr = 10.0;
  const Index n = 20000;
  const auto s = opened({{"operator", "symmetric_rank_one"}, {"d", 10}, {"rank", 1}, {"truth", "psd"}, {"amplitude_snr", snr}});
  const Batch b = s->next(n);
  const Vector clean = s->sensing_operator().forward(b, *s->truth()).cwiseMax(0.0).cwiseSqrt();
  const GroundTruth& truth = *s->truth();
  const double sigma = std::sqrt(truth.left.cwiseProduct(truth.right).sum()) / snr;  // ‖x‖/SNR
  CHECK(b.y.minCoeff() >= 0.0);
  // Where √y₀ > 4σ the clipping at zero is negligible (3e-5): there √y − √y₀ is the noise itself.
  std::vector<double> noise;
  for (Index i = 0; i < n; ++i)
    if (clean(i) > 4.0 * sigma) noise.push_back(std::sqrt(b.y(i)) - clean(i));
  REQUIRE(noise.size() > 10000);
  const double m = static_cast<double>(noise.size());
  double mean = 0.0, sq = 0.0;
  for (double v : noise) mean += v / m;
  for (double v : noise) sq += (v - mean) * (v - mean) / (m - 1.0);
  CHECK(std::abs(mean) < 3.0 * sigma / std::sqrt(m));
  CHECK(std::abs(std::sqrt(sq) - sigma) < 3.0 * sigma / std::sqrt(2.0 * m));
  // Only phase retrieval's responses have amplitudes.
  CHECK_THROWS_WITH(opened({{"operator", "symmetric_rank_one"}, {"d", 10}, {"rank", 2}, {"truth", "symmetric"},
                            {"amplitude_snr", snr}}),
                    Catch::Matchers::Contains("/amplitude_snr") && Catch::Matchers::Contains("truth \"psd\""));
  CHECK_THROWS_WITH(opened({{"operator", "symmetric_rank_one"}, {"d", 10}, {"rank", 1}, {"truth", "psd"},
                            {"amplitude_snr", snr}, {"noise_std", 0.1}}),
                    Catch::Matchers::Contains("not both"));
}

TEST_CASE("sign link and label flips", "[synthetic][stream]") {
  const Index n = 20000;
  const auto clean = opened({{"d", 6}, {"rank", 2}, {"link", "sign"}});
  CHECK(clean->link() == Link::sign);
  const Batch a = clean->next(n);
  CHECK(a.y == signs(clean->sensing_operator().forward(a, *clean->truth())));

  const double p = 0.1;
  const auto flipped = opened({{"d", 6}, {"rank", 2}, {"link", "sign"}, {"flip_probability", p}});
  const Batch b = flipped->next(n);
  const Vector expected = signs(flipped->sensing_operator().forward(b, *flipped->truth()));
  CHECK((b.y.array().abs() == 1.0).all());
  const double rate = (b.y.array() != expected.array()).cast<double>().mean();
  CHECK(std::abs(rate - p) < 3.0 * std::sqrt(p * (1 - p) / double(n)));
}

TEST_CASE("the same seed gives the same truth, test set and stream", "[synthetic][stream]") {
  const Json params = {{"d", 7}, {"rank", 2}, {"noise_std", 0.1}, {"test_size", 50}};
  const auto a = opened(params, 5);
  const auto b = opened(params, 5);
  const auto c = opened(params, 6);
  CHECK(a->truth()->dense() == b->truth()->dense());
  CHECK(same_batch(*a->test_set(), *b->test_set()));
  CHECK(same_batch(a->next(100), b->next(100)));
  CHECK(a->truth()->dense() != c->truth()->dense());
  CHECK_FALSE(same_batch(a->next(100), c->next(100)));
}

TEST_CASE("test set and truth do not depend on the training draws", "[synthetic][stream]") {
  const Json params = {{"d", 7}, {"rank", 2}, {"test_size", 40}};
  const auto a = opened(params, 9);
  a->next(1000);
  const auto b = opened(params, 9);
  CHECK(same_batch(*a->test_set(), *b->test_set()));
  CHECK(a->truth()->dense() == b->truth()->dense());
  // The test set is not a copy of the first training instances.
  CHECK(a->test_set()->y != b->next(40).y);
}

TEST_CASE("the training stream is the same whatever the batch sizes", "[synthetic][stream]") {
  const Json params = {{"d", 4}, {"rank", 1}, {"noise_std", 1.0}};
  const auto a = opened(params);
  const auto b = opened(params);
  const Batch pieces = concatenated({a->next(100), a->next(300), a->next(1)});
  CHECK(same_batch(pieces, b->next(401)));
}

TEST_CASE("a finite source ends after `size` instances and rewind replays them", "[synthetic][stream]") {
  const auto s = opened({{"d", 3}, {"rank", 1}, {"noise_std", 0.2}, {"size", 600}});
  CHECK(s->finite());
  REQUIRE(s->size());
  CHECK(*s->size() == 600);
  const Batch first = s->next(250);
  const Batch second = s->next(250);
  const Batch third = s->next(250);
  CHECK(first.size() == 250);
  CHECK(second.size() == 250);
  CHECK(third.size() == 100);
  CHECK(s->next(10).empty());
  s->rewind();
  const Batch again = s->next(1000);
  CHECK(again.size() == 600);
  CHECK(same_batch(again, concatenated({first, second, third})));
  CHECK(s->samples_drawn() == 1200);
}

TEST_CASE("test labels are clean unless test_noise", "[synthetic][stream]") {
  const Json params = {{"d", 5}, {"rank", 2}, {"noise_std", 1.0}, {"test_size", 2000}};
  const auto clean = opened(params);
  const Batch& t = *clean->test_set();
  REQUIRE(t.size() == 2000);
  CHECK((t.y - clean->sensing_operator().forward(t, *clean->truth())).norm() < 1e-12);

  Json noisy_params = params;
  noisy_params["test_noise"] = true;
  const auto noisy = opened(noisy_params);
  const Batch& u = *noisy->test_set();
  const Vector noise = u.y - noisy->sensing_operator().forward(u, *noisy->truth());
  const double sd = std::sqrt(noise.squaredNorm() / 2000.0);
  CHECK(std::abs(sd - 1.0) < 3.0 / std::sqrt(2.0 * 2000));
}

TEST_CASE("single_label: label indices on the right, every label in the test set", "[synthetic][stream]") {
  const Index d2 = 5, n_test = 20;
  const auto s = opened({{"operator", "single_label"},
                         {"d", 8},
                         {"d2", d2},
                         {"rank", 2},
                         {"truth", "unit_columns"},
                         {"link", "sign"},
                         {"test_size", n_test},
                         {"test_full_labels", true}});
  CHECK_FALSE(s->shape().symmetric);
  CHECK(s->shape().d2 == d2);
  const Batch b = s->next(500);
  REQUIRE(b.right);
  CHECK(b.right->kind == DesignSide::Kind::index);  // default right sampler: one_hot
  CHECK(b.right->dim == d2);
  CHECK(b.right->index.minCoeff() == 0);
  CHECK(b.right->index.maxCoeff() == d2 - 1);
  CHECK(b.y == signs(s->sensing_operator().forward(b, *s->truth())));

  const Batch& t = *s->test_set();
  REQUIRE(t.right);
  CHECK(t.right->kind == DesignSide::Kind::all);
  CHECK(t.instances() == n_test);
  REQUIRE(t.size() == n_test * d2);
  // Label-major: measurement i + n·j is sign(x_i' W* ē_j) with ē_j = √d2 e_j.
  const Matrix W = s->truth()->dense();
  for (Index j = 0; j < d2; ++j)
    for (Index i = 0; i < n_test; ++i)
      CHECK(t.y(i + n_test * j) == (t.left.dense.col(i).dot(W.col(j)) >= 0.0 ? 1.0 : -1.0));
}

TEST_CASE("prefetch on a second thread gives the same stream, through rewinds and the end", "[synthetic][prefetch]") {
  // Endless, Gaussian designs with a non-symmetric operator and noise: every random part is drawn.
  const Json endless = {{"d", 6}, {"rank", 2}, {"noise_std", 0.3}};
  Json ahead = endless;
  ahead["prefetch"] = 700;
  const auto plain = opened(endless, 11);
  const auto prefetched = opened(ahead, 11);
  for (const Index n : {Index{1}, Index{255}, Index{700}, Index{3000}, Index{17}}) {
    CAPTURE(n);
    CHECK(same_batch(plain->next(n), prefetched->next(n)));
  }
  // Finite: a pass, the end, a rewind, a second pass in other pieces; then a re-open with a new seed.
  Json finite = endless;
  finite["size"] = 2000;
  Json finite_ahead = finite;
  finite_ahead["prefetch"] = 300;
  const auto f_plain = opened(finite, 12);
  const auto f_ahead = opened(finite_ahead, 12);
  const Batch first = f_plain->next(1500);
  CHECK(same_batch(first, f_ahead->next(1500)));
  CHECK(same_batch(f_plain->next(1500), f_ahead->next(1500)));  // the last 500
  CHECK(f_ahead->next(10).empty());
  f_plain->rewind();
  f_ahead->rewind();
  CHECK(same_batch(f_plain->next(2000), concatenated({f_ahead->next(999), f_ahead->next(1001)})));
  f_ahead->open(13);
  CHECK(same_batch(opened(finite, 13)->next(2000), f_ahead->next(2000)));
}

TEST_CASE("a recycled batch lends its buffers to the next one, never its content", "[synthetic][recycle]") {
  const Json params = {{"d", 9}, {"rank", 2}, {"noise_std", 0.1}};
  const auto a = opened(params, 14);
  const auto b = opened(params, 14);
  Batch first = a->next(500);
  CHECK(same_batch(first, b->next(500)));
  const double* designs = first.left.dense.data();
  const double* responses = first.y.data();
  a->recycle(std::move(first));
  const Batch second = a->next(500);
  CHECK(second.left.dense.data() == designs);  // the same memory, refilled: no allocation
  CHECK(second.y.data() == responses);
  CHECK(same_batch(second, b->next(500)));     // with the stream's next instances
  // Another size still comes out right (the buffers are resized).
  Batch third = a->next(300);
  a->recycle(std::move(third));
  CHECK(same_batch(a->next(700), b->next(1000).slice(300, 700)));
}
