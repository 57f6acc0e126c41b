#include "polynomial_network.hpp"

#include <cmath>

#include "features.hpp"

namespace rankone::fm_baselines {

const OptionsTable<PolynomialNetworkOptions>& PolynomialNetworkOptions::table() {
  static const OptionsTable<PolynomialNetworkOptions> t = [] {
    OptionsTable<PolynomialNetworkOptions> t;
    Schema& s = t.schema();
    t.bind(&PolynomialNetworkOptions::rank, s.integer("rank", 2, "number of components k of M = sym(P Q') (polylearn's n_components)").at_least(1));
    t.bind(&PolynomialNetworkOptions::reg_v, s.number("reg_v", 0.0, "penalty ½ reg_v (‖P‖² + ‖Q‖²) beside the mean squared loss (polylearn's "
                                                   "beta on its summed loss is n · reg_v)")
                                .at_least(0.0));
    s.retired("init_std", "the start is the component `init` now (P, Q = the start's two factors): write \"init\": "
                          "{\"name\": \"random_init\", \"std\": s} (polylearn: s = 0.01)");
    t.bind(&PolynomialNetworkOptions::fit_lower, s.boolean("fit_lower", true, "fit w and b through a constant feature (polylearn's "
                                                             "fit_lower = 'augment'); off: ŷ = x'Mx alone"));
    bind_fixed_sample_settings(t, 1000, "one coordinate-descent epoch over P and Q each", 1e-6,
                               "converged when ‖A_{t+1} − A_t‖_F / ‖A_t‖_F of A = sym(P Q') (M, w/2 and b in one "
                               "matrix) falls below this in an epoch; 0: never");
    return t;
  }();
  return t;
}

PolynomialNetwork::PolynomialNetwork(PolynomialNetworkOptions options) : FixedSampleEstimator(options), options_(std::move(options)) {}

void PolynomialNetwork::start(DataSource& data, Rng& rng) {
  solver_.reset();
  if (!read_training_set(data, "polynomial_network")) return;
  if (const std::string why = feature_refusal(sensing()); !why.empty())
    return finish(Status::failed, "polynomial_network " + why);
  // Lower orders need the operator's first-order term (the bias alone would change what w' x adds).
  augmented_ = options_.fit_lower && sensing().has_first_order();
  if (options_.fit_lower && !augmented_)
    summary_.notes.push_back("fit_lower: the source's operator has no first-order term, so the model is x'Mx + b with b = 0 (no constant feature)");
  Matrix Xt = instances_by_features(training(), augmented_);
  const Index rows = Xt.cols(), k = options_.rank;
  Rng own(rng());
  const Start start = initial_model(data, start_request(k), own);
  if (!start.ok) return finish(Status::failed, "no start: " + start.failure);
  if (start.model.zero_diagonal)
    return finish(Status::failed, "no start: the start's model has no diagonal (an FM's), and the network's M = sym(P Q') "
                                  "holds one: start from random_init or a model with its diagonal");
  // M0 = sym(L R'): P = L, Q = R; the constant feature's rows start at 0 (w = 0, b = 0).
  Matrix P = Matrix::Zero(rows, k), Q = Matrix::Zero(rows, k);
  P.topRows(start.model.left.rows()) = start.model.left;
  Q.topRows(start.model.right.rows()) = start.model.right;
  solver_.emplace(std::move(Xt), training().y, std::move(P), std::move(Q), options_.reg_v);
}

Estimate PolynomialNetwork::estimate() const {
  Estimate e;
  e.symmetrize = true;
  if (!solver_) return e;
  const Matrix& P = solver_->P();
  const Matrix& Q = solver_->Q();
  const Index d = problem().d1;
  e.left = P.topRows(d);
  e.right = Q.topRows(d);
  if (augmented_) {
    // x̃'P Q'x̃ = x'P_x Q_x'x + Σ_s (a_s q_s + b_s p_s)'x + Σ_s a_s b_s, with (a, b) the constant's rows.
    const auto a = P.row(d).transpose();
    const auto b = Q.row(d).transpose();
    e.w = e.right * a + e.left * b;
    e.bias = a.dot(b);
  } else if (sensing().has_first_order()) {
    e.w = Vector::Zero(d);
  }
  return e;
}

Vector PolynomialNetwork::training_residual() const { return solver_ ? solver_->residual() : residual(estimate()); }

namespace {
/// sym(P Q') of the augmented factors: M, w/2 and b in one matrix, whatever the scale of P against Q.
LowRankModel augmented_model(const Matrix& P, const Matrix& Q) {
  LowRankModel m;
  m.left = P;
  m.right = Q;
  m.symmetrize = true;
  return m;
}
}  // namespace

double PolynomialNetwork::advance(const Vector&) {
  const LowRankModel before = augmented_model(solver_->P(), solver_->Q());
  solver_->epoch();
  const LowRankModel after = augmented_model(solver_->P(), solver_->Q());
  return difference_norms(after, &before).frobenius / std::max(difference_norms(before, nullptr).frobenius, 1e-300);
}

namespace {
struct Factors {
  Matrix P, Q;
};
}  // namespace

std::any PolynomialNetwork::snapshot() const {
  if (!solver_) return std::any();
  return Factors{solver_->P(), solver_->Q()};
}

void PolynomialNetwork::restore(const std::any& state) {
  if (!state.has_value()) return;
  const auto& f = std::any_cast<const Factors&>(state);
  solver_->reset(f.P, f.Q);
}

std::string PolynomialNetwork::stall_hint() const {
  return "coordinate descent moves slowly on this problem: raise max_iterations, or set reg_v above 0 (now " +
         short_number(options_.reg_v) + ")";
}

}  // namespace rankone::fm_baselines
