#pragma once
// What the FM baselines' tests share: a planted x'Mx + w'x source, its training set as the solvers
// read it, and the numpy replay (tests/references/agree_fm.py) of a folder the test wrote.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "features.hpp"
#include "rankone/store/npy.hpp"
#include "test_support.hpp"

namespace rankone::test {

/// A finite planted generalized-FM source: Gaussian x in R^d, M* of `truth` ("symmetric": indefinite
/// with its diagonal; "fm": UU' − D(UU')), ‖w*‖ = 1, a test set of 500 rows.
inline Json fm_source(Index d, Index size, const std::string& truth, double noise = 0.0) {
  Json ref{{"name", "synthetic"}, {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
           {"d", d}, {"rank", 2}, {"truth", truth}, {"w_norm", 1.0}, {"size", size}, {"test_size", 500}};
  if (truth == "symmetric") ref["eigenvalues"] = Json::array({1.0, -0.7});
  if (noise > 0.0) ref["noise_std"] = noise;
  return ref;
}

/// The whole training set of `source_ref` opened with `seed`.
inline Batch training_set(const Json& source_ref, std::uint64_t seed) {
  auto data = make<DataSource>(source_ref, Kind::data_source);
  data->open(seed);
  return data->next(*data->size());
}

/// The folder of one agreement case, emptied.
inline std::filesystem::path agreement_dir(const std::string& label) {
  const auto dir = binary_dir() / "agreement" / label;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

/// Writes case.json and runs the numpy replay on `dir`; every gap must be within its tolerance.
inline void replay_in_numpy(const std::filesystem::path& dir, const Json& c) {
  std::ofstream(dir / "case.json") << c.dump(2);
  const auto out = run_command("/usr/bin/python3 " + (source_dir() / "tests/references/agree_fm.py").string() + " " +
                               dir.string() + " 2>&1");
  INFO(out.text);
  CHECK(out.code == 0);
}

}  // namespace rankone::test
