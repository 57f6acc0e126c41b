#pragma once
/// \file `svp`: projected gradient descent onto the rank-k matrices, X ← P_k(X − μ S), for the
/// least-squares loss of a fixed training set (estimation/fixed_sample.hpp): the fixed step of SVP
/// (Jain, Meka & Dhillon 2010) or the normalised one of NIHT (Tanner & Wei 2013). docs/plugins/svp.md.
#include "rankone/core/options_table.hpp"
#include "rankone/estimation/fixed_sample.hpp"

namespace rankone::svp {

struct SvpOptions : FixedSampleSettings, DeclaredOptions<SvpOptions> {
  enum class Step { fixed, normalized };

  Index rank;
  Step step;
  double delta;  ///< the fixed step is 1/(1 + δ) on the normalised loss

  static const OptionsTable<SvpOptions>& table();
  SvpOptions() { read_defaults(); }
  explicit SvpOptions(const Params& params) { read(params); }
};

class Svp final : public FixedSampleEstimator {
 public:
  explicit Svp(SvpOptions options);
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;

 protected:
  double advance(const Vector& r) override;
  std::any snapshot() const override;
  void restore(const std::any& state) override;

 private:
  /// X = U diag(s) V' ← the best rank-k approximation of Y (d1 × d2).
  void project(const Matrix& Y);

  SvpOptions options_;
  Matrix U_;  ///< d1 × k, orthonormal
  Vector s_;  ///< k singular values
  Matrix V_;  ///< d2 × k, orthonormal
  bool symmetrize_ = false;
};

}  // namespace rankone::svp
