#pragma once
/// \file `amplitude_flow`: gradient descent on the amplitudes, amplitude flow (reshaped Wirtinger flow,
/// Zhang & Liang 2016), truncated (Wang, Giannakis & Eldar 2018) or reweighted (Wang, Giannakis, Saad &
/// Chen 2018). docs/plugins/amplitude_flow.md.
#include <optional>

#include "phase_flow.hpp"
#include "rankone/core/options_table.hpp"

namespace rankone::phase_retrieval {

struct AmplitudeFlowOptions : FixedSampleSettings, DeclaredOptions<AmplitudeFlowOptions> {
  enum class Variant { af, taf, raf };

  Variant variant;
  std::optional<double> step_size;  ///< unset: 0.8 (af), 0.6 (taf), 2 (raf)
  std::optional<double> gamma;      ///< taf: unset is 0.7
  std::optional<double> beta;       ///< raf: unset is 10

  /// The step μ: the given one, else the variant's paper's.
  double mu() const;

  static const OptionsTable<AmplitudeFlowOptions>& table();
  AmplitudeFlowOptions() { read_defaults(); }
  explicit AmplitudeFlowOptions(const Params& params) { read(params); }
};

class AmplitudeFlow final : public GradientFlow {
 public:
  explicit AmplitudeFlow(AmplitudeFlowOptions options);

 private:
  Vector weights(const Iterate& it) const override;
  double step_size(int) const override { return options_.mu(); }

  AmplitudeFlowOptions options_;
};

}  // namespace rankone::phase_retrieval
