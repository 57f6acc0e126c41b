#pragma once
/// \file `wirtinger_flow`: gradient descent on the intensities, Wirtinger flow (Candès, Li &
/// Soltanolkotabi 2015), its truncated Poisson form (Chen & Candès 2015) or its reweighted form (Yuan & Wang
/// 2017), on the papers' step schedules or a backtracking line search. docs/plugins/wirtinger_flow.md.
#include <optional>

#include "phase_flow.hpp"
#include "rankone/core/options_table.hpp"

namespace rankone::phase_retrieval {

struct WirtingerFlowOptions : FixedSampleSettings, DeclaredOptions<WirtingerFlowOptions> {
  enum class Variant { wf, twf, rwf };
  enum class LineSearch { none, backtracking };

  Variant variant;
  LineSearch line_search;
  double step_size;
  std::optional<double> tau0;      ///< wf, rwf: unset is 330
  std::optional<double> alpha_lb;  ///< twf: unset is 0.3 (0.1 with the line search)
  std::optional<double> alpha_ub;  ///< twf: unset is 5
  std::optional<double> alpha_h;   ///< twf: unset is 5 (6 with the line search)
  std::optional<double> eta;       ///< rwf: unset is 0.9

  static const OptionsTable<WirtingerFlowOptions>& table();
  WirtingerFlowOptions() { read_defaults(); }
  explicit WirtingerFlowOptions(const Params& params) { read(params); }
};

class WirtingerFlow final : public GradientFlow {
 public:
  explicit WirtingerFlow(WirtingerFlowOptions options);

 private:
  Vector weights(const Iterate& it) const override;
  double step_size(int t) const override;
  double search_loss(const Iterate& at, const Vector& u) const override;
  double first_trial_step() const override;

  /// twf: which measurements the iterate keeps (1) or truncates (0).
  Vector kept(const Iterate& it) const;
  /// rwf: the weights 1/(|u_i² − y_i| + η) at the iterate.
  Vector reweights(const Iterate& it) const;

  WirtingerFlowOptions options_;
};

}  // namespace rankone::phase_retrieval
