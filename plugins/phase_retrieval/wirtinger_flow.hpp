#pragma once
/// \file `wirtinger_flow`: gradient descent on the intensities, Wirtinger flow (Candès, Li &
/// Soltanolkotabi 2015) or its truncated Poisson form (Chen & Candès 2015). docs/plugins/wirtinger_flow.md.
#include <optional>

#include "phase_flow.hpp"
#include "rankone/core/options_table.hpp"

namespace rankone::phase_retrieval {

struct WirtingerFlowOptions : FixedSampleSettings, DeclaredOptions<WirtingerFlowOptions> {
  enum class Variant { wf, twf };

  Variant variant;
  double step_size;
  std::optional<double> tau0;      ///< wf: unset is 330
  std::optional<double> alpha_lb;  ///< twf: unset is 0.3
  std::optional<double> alpha_ub;  ///< twf: unset is 5
  std::optional<double> alpha_h;   ///< twf: unset is 5

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

  WirtingerFlowOptions options_;
};

}  // namespace rankone::phase_retrieval
