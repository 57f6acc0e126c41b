#pragma once
/// \file `gerchberg_saxton`: alternating projections for phase retrieval (Gerchberg & Saxton 1972; Fienup's error
/// reduction), the real form for a tall design: z ← argmin_z ‖A z − ψ ∘ sign(A z)‖. docs/plugins/gerchberg_saxton.md.
#include "phase_flow.hpp"
#include "rankone/core/options_table.hpp"

#include <Eigen/Cholesky>  // after RankOne's headers: Eigen first comes through rankone/core/types.hpp

namespace rankone::phase_retrieval {

struct GerchbergSaxtonOptions : FixedSampleSettings, DeclaredOptions<GerchbergSaxtonOptions> {
  static const OptionsTable<GerchbergSaxtonOptions>& table();
  GerchbergSaxtonOptions() { read_defaults(); }
  explicit GerchbergSaxtonOptions(const Params& params) { read(params); }
};

/// Amplitude flow's direction (1/m) Σ (u_i − ψ_i sign u_i) a_i preconditioned by (A'A/m)⁻¹ at step 1: since
/// (A'A)⁻¹ A'u = z, the step lands on the least-squares solution of A z = ψ ∘ sign(A z).
class GerchbergSaxton final : public GradientFlow {
 public:
  explicit GerchbergSaxton(GerchbergSaxtonOptions options);

 private:
  Vector weights(const Iterate& it) const override;
  double step_size(int) const override { return 1.0; }
  Vector precondition(const Vector& gradient) const override { return gram_.solve(gradient); }
  bool prepare(const Batch& training, Rng& rng, std::string& why) override;

  Eigen::LLT<Matrix> gram_;  ///< of A'A/m
};

}  // namespace rankone::phase_retrieval
