#pragma once
// What the fixed-sample sensing estimators' tests share: a planted synthetic source on any
// operator, and the step-by-step agreement with a numpy reference (tests/references/agree.py):
// the C++ run's training set and iterates go to .npy files, the reference steps from the C++
// start with the same settings, and every iterate must agree.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "rankone/store/npy.hpp"
#include "test_support.hpp"

namespace rankone::test {

/// A finite planted source of rank 2 on `op` (singular values linear from 1 to 1/κ), with a test set;
/// entries are drawn without replacement.
inline Json baseline_source(const std::string& op, Index d1, Index d2, Index size, const std::string& truth,
                            double kappa = 2.0) {
  Json ref{{"name", "synthetic"}, {"operator", op}, {"d", d1}, {"rank", 2}, {"truth", truth}, {"size", size},
           {"condition_number", kappa}, {"spacing", "linear"}, {"test_size", 50}};
  if (d2 != d1) ref["d2"] = d2;
  if (op == "entry") {
    // Distinct entries, as the completion literature assumes: an entry drawn m times weighs m in the
    // loss, and at m/p beyond 2/η a fixed step diverges (the numpy reference does too).
    ref["sampler"] = "one_hot";
    ref["entries"] = "without_replacement";
  }
  return ref;
}

/// The symmetric Gaussian ensemble (A_i symmetric) on a d × d symmetric (or psd) truth of rank 2.
inline Json symmetric_ensemble_source(Index d, Index size, const std::string& truth = "symmetric") {
  Json ref = baseline_source("gaussian_ensemble", d, d, size, truth);
  ref["operator"] = Json{{"name", "gaussian_ensemble"}, {"symmetric", true}};
  return ref;
}

/// Writes the training set of `source_ref` opened with `seed` in agree.py's layout; fills n, d1, d2.
inline void write_designs(const Json& source_ref, std::uint64_t seed, const std::filesystem::path& dir, Json& c) {
  auto data = make<DataSource>(source_ref, Kind::data_source);
  data->open(seed);
  const Batch b = data->next(*data->size());
  c["n"] = b.instances();
  c["d1"] = data->shape().d1;
  c["d2"] = data->shape().d2;
  write_npy(dir / "y.npy", NamedArray::of(b.y));
  switch (b.left.kind) {
    case DesignSide::Kind::dense:
      if (b.right) {
        write_npy(dir / "U.npy", NamedArray::of(b.left.dense));
        write_npy(dir / "V.npy", NamedArray::of(b.right->dense));
      } else {
        write_npy(dir / "X.npy", NamedArray::of(b.left.dense));
      }
      break;
    case DesignSide::Kind::index: {
      std::vector<std::int64_t> rows(b.left.index.data(), b.left.index.data() + b.left.index.size());
      std::vector<std::int64_t> cols(b.right->index.data(), b.right->index.data() + b.right->index.size());
      write_npy(dir / "rows.npy", NamedArray::of(rows));
      write_npy(dir / "cols.npy", NamedArray::of(cols));
      break;
    }
    case DesignSide::Kind::matrix: write_npy(dir / "A.npy", NamedArray::of(b.left.dense)); break;
    default: FAIL("unexpected design kind");
  }
}

/// Runs `estimator` (its name included) for `iterations` steps on `source_ref` and has agree.py
/// step the reference; `settings` are the case's method settings (agree.py's case.json), `c` the
/// loss scale the C++ estimator used. The relative gap of every iterate must be ≤ 1e-9.
inline void check_agreement(const std::string& label, const Json& source_ref, Json estimator, int iterations, double c,
                            Json settings) {
  INFO(label);
  namespace fs = std::filesystem;
  const std::string method = estimator["name"].get<std::string>();
  const fs::path dir = binary_dir() / "agreement" / (method + "_" + label);
  fs::remove_all(dir);
  fs::create_directories(dir);
  estimator["max_iterations"] = iterations;
  estimator["tolerance"] = 0.0;
  const std::uint64_t seed = 29;
  const SteppedRun run = run_stepwise(source_ref, estimator, seed);
  REQUIRE(static_cast<int>(run.estimates.size()) == iterations);
  const Json& op = source_ref["operator"];
  settings["method"] = method;
  settings["operator"] = op.is_string() ? op.get<std::string>() : op["name"].get<std::string>();
  settings["symmetric"] = op.is_object() && op.value("symmetric", false);
  settings["scale"] = c;
  settings["iterations"] = iterations;
  settings["tolerance"] = 1e-9;
  write_designs(source_ref, seed, dir, settings);
  const auto write_factors = [&](int t, const Estimate& e) {
    write_npy(dir / ("L_" + std::to_string(t) + ".npy"), NamedArray::of(e.left));
    write_npy(dir / ("R_" + std::to_string(t) + ".npy"), NamedArray::of(e.right));
  };
  write_factors(0, run.start_estimate);
  for (int t = 1; t <= iterations; ++t) write_factors(t, run.estimates[static_cast<std::size_t>(t - 1)]);
  std::ofstream(dir / "case.json") << settings.dump(2);
  const auto out = run_command("/usr/bin/python3 " + (source_dir() / "tests/references/agree.py").string() + " " +
                               dir.string() + " 2>&1");
  INFO(out.text);
  CHECK(out.code == 0);
}

}  // namespace rankone::test
