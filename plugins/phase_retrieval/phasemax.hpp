#pragma once
/// \file `phasemax`: the convex relaxation of phase retrieval, maximise <x̂₀, x> subject to |a_i'x| ≤ √y_i
/// (Goldstein & Studer 2018; Bahmani & Romberg 2017), solved by accelerated gradient steps on a quadratic
/// penalty of the constraints with continuation in the penalty. docs/plugins/phasemax.md.
#include "phase_flow.hpp"
#include "rankone/core/options_table.hpp"

namespace rankone::phase_retrieval {

struct PhaseMaxOptions : FixedSampleSettings, DeclaredOptions<PhaseMaxOptions> {
  double penalty;          ///< ρ of the first stage
  double penalty_growth;   ///< ρ's factor from a stage to the next
  int stages;              ///< values of ρ
  int stage_iterations;    ///< steps allowed at each ρ but the last
  double stage_tolerance;  ///< a stage ends when ‖x⁺ − x‖/‖x⁺‖ falls below it
  int rounds;              ///< PhaseLamp's re-anchored solves; 1 is PhaseMax

  static const OptionsTable<PhaseMaxOptions>& table();
  PhaseMaxOptions() { read_defaults(); }
  explicit PhaseMaxOptions(const Params& params) { read(params); }
};

/// At penalty ρ: minimise −c'x + (ρ / (2 m b̄)) Σ_i max(|a_i'x| − b_i, 0)², c = x̂₀/‖x̂₀‖, b = √y, b̄ = RMS(b)
/// (ρ is then free of the signal's scale), by FISTA steps of length 1/L, L = (ρ/b̄) λ_max(A'A/m), with
/// gradient restarts (O'Donoghue & Candès 2015); the next stage multiplies ρ, warm-started. With rounds > 1,
/// PhaseLamp (Dhifallah, Thrampoulidis & Lu 2017): each round's solution anchors the next round's PhaseMax.
class PhaseMax final : public PhaseFlow {
 public:
  explicit PhaseMax(PhaseMaxOptions options);

 private:
  Next next_signal(int t) override;
  bool prepare(const Batch& training, Rng& rng, std::string& why) override;
  void started() override;

  PhaseMaxOptions options_;
  double gram_top_ = 1.0;  ///< λ_max(A'A/m)
  double scale_ = 1.0;     ///< b̄, the RMS amplitude
  Vector anchor_;          ///< c, the start's direction
  Vector previous_, previous_u_;  ///< the iterate before the current one, and its measurements
  double momentum_ = 1.0, previous_momentum_ = 1.0;  ///< FISTA's t_k of the current iterate and of the one before
  double penalty_ = 1.0;
  int stage_ = 0, stage_steps_ = 0, round_ = 0;
};

}  // namespace rankone::phase_retrieval
