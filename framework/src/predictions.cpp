#include "rankone/core/predictions.hpp"

#include <cstdio>
#include <stdexcept>

namespace rankone {

void write_predictions(std::ostream& out, const Batch& batch, const Vector& scores) {
  if (scores.size() != batch.size())
    throw std::invalid_argument("write_predictions: " + std::to_string(scores.size()) + " scores for " +
                                std::to_string(batch.size()) + " measurements");
  char number[32];
  const bool every_label = batch.right && batch.right->kind == DesignSide::Kind::all;
  const Index n = every_label ? batch.instances() : batch.size();
  const Index per_line = every_label ? batch.right->dim : 1;
  for (Index i = 0; i < n; ++i) {
    for (Index j = 0; j < per_line; ++j) {
      std::snprintf(number, sizeof number, "%.17g", scores(i + n * j));  // label-major: measurement i + n·j
      if (j > 0) out << ' ';
      out << number;
    }
    out << '\n';
  }
}

}  // namespace rankone
