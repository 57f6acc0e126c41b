// The synthetic streams are one stream on every x86-64 CPU: the normal generator's output and the
// dense samplers' designs, bit for bit, against checksums stored from the portable build (the
// x86-64 baseline). A native build (AVX2 or AVX-512) must draw the same bits: its kernels change
// speed, never values (Eigen's fast packet sqrt, which rounds otherwise on AVX-512, is off:
// EIGEN_FAST_MATH=0). Responses are not covered: Eigen's products use FMA on a native build and
// round differently (docs/PERFORMANCE.md#instruction-set). The exponential sampler is covered: it takes
// its log from rankone/core/portable_math.hpp, not from libm, whose variant glibc picks by the CPU.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "rankone/core/checksum.hpp"
#include "rankone/core/rng.hpp"
#include "test_support.hpp"

namespace {

using namespace rankone;

std::string checksum_of_doubles(const double* data, Index n) {
  return checksum_of(std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n) * sizeof(double)));
}

}  // namespace

TEST_CASE("fill_normal draws the portable build's stream on this CPU", "[rng][stream]") {
  Rng rng(7);
  std::vector<double> values(1 << 20);
  rng.fill_normal(values.data(), static_cast<Index>(values.size()));
  CHECK(checksum_of_doubles(values.data(), static_cast<Index>(values.size())) == "xxh3-128:866b8b4d208c56740a4e3b2294fc0936");
}

TEST_CASE("the dense samplers' designs are the portable build's on this CPU", "[samplers][stream]") {
  const std::vector<std::pair<std::string, std::string>> expected{
      {"gaussian", "xxh3-128:c14f33ab11894c4f9ebf634a8ef855d3"},
      {"bernoulli", "xxh3-128:f80e5dbd42af2d90a222c7ba76c30547"},
      {"uniform", "xxh3-128:33963537d2a16fbcd7109f36ab504ccf"},
      {"exponential", "xxh3-128:a8fa5f2bfd99d1c280ac0a123eaecb34"},
  };
  for (const auto& [sampler, checksum] : expected) {
    INFO(sampler);
    auto data = test::make<DataSource>(Json{{"name", "synthetic"}, {"operator", "symmetric_rank_one"}, {"d", 64},
                                            {"rank", 2}, {"sampler", sampler}},
                                       Kind::data_source);
    data->open(11);
    const Batch batch = data->next(4096);
    REQUIRE(batch.left.kind == DesignSide::Kind::dense);
    CHECK(checksum_of_doubles(batch.left.dense.data(), batch.left.dense.size()) == checksum);
  }
}
