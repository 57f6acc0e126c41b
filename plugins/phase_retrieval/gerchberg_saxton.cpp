#include "gerchberg_saxton.hpp"

#include "rankone/interfaces/estimator.hpp"

namespace rankone::phase_retrieval {

const OptionsTable<GerchbergSaxtonOptions>& GerchbergSaxtonOptions::table() {
  static const OptionsTable<GerchbergSaxtonOptions> t = [] {
    OptionsTable<GerchbergSaxtonOptions> t;
    bind_fixed_sample_settings(t, 1000, "one projection each");
    return t;
  }();
  return t;
}

GerchbergSaxton::GerchbergSaxton(GerchbergSaxtonOptions options) : GradientFlow(options, "gerchberg_saxton") {}

bool GerchbergSaxton::prepare(const Batch& training, Rng&, std::string& why) {
  const Index d = training.left.dim;
  const double m = static_cast<double>(training.instances());
  // A'A/m = Σ a_i a_i'/m, formed once: d × d.
  const Matrix gram = training.left.accumulate(training.left.project(Matrix::Identity(d, d))) / m;
  gram_.compute(gram);
  // A reciprocal condition number at rounding level is singular in all but name: its solves amplify rounding.
  if (gram_.info() == Eigen::Success && gram_.rcond() > 1e-12) return true;
  why = "gerchberg_saxton solves least squares in A: A'A is singular (" + std::to_string(training.instances()) +
        " designs of dimension " + std::to_string(d) + ", reciprocal condition number " + short_number(gram_.rcond()) +
        "; it needs designs spanning the space)";
  return false;
}

Vector GerchbergSaxton::weights(const Iterate& it) const {
  return it.u - it.psi.cwiseProduct(it.u.unaryExpr([](double v) { return sign_of(v); }));
}

}  // namespace rankone::phase_retrieval
