// Errors of an estimate against the planted truth: relative errors of M and w, the intercept's
// absolute error, the gFM paper's combined error, the largest principal angle between dominant subspaces,
// and the factor errors of phase retrieval (sign-invariant error, correlation with the truth).
//
// For a symmetric operator (x'Mx) only the symmetric part of M is identifiable, since
// x'Mx = x' ((M + M')/2) x; both models are then compared through their symmetric parts.
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "metrics.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/linalg/balanced_factors.hpp"

namespace rankone::metrics {

namespace {

/// The part of M the operator can observe.
LowRankModel identifiable_part(const LowRankModel& m, const SensingOperator& op) {
  LowRankModel out = m;
  if (op.symmetric()) out.symmetrize = true;
  return out;
}

/// `numerator / reference`, or the absolute `numerator` when the reference is zero.
double relative(double numerator, double reference) { return reference > 0.0 ? numerator / reference : numerator; }

Vector first_order_or_zero(const LowRankModel& m, Index d1) {
  if (!m.has_first_order()) return Vector::Zero(d1);
  if (m.w.size() != d1)
    throw std::invalid_argument("first-order term of size " + std::to_string(m.w.size()) + ", expected " +
                                std::to_string(d1));
  return m.w;
}

/// ‖M − M*‖ and ‖M*‖ in one norm.
struct MatrixError {
  double difference;
  double reference;
};

MatrixError matrix_error(const MetricContext& ctx, bool spectral) {
  const LowRankModel estimate = identifiable_part(ctx.estimate, ctx.op);
  const LowRankModel truth = identifiable_part(*ctx.truth, ctx.op);
  const DifferenceNorms diff = difference_norms(estimate, &truth);
  const DifferenceNorms ref = difference_norms(truth, nullptr);
  return spectral ? MatrixError{diff.spectral, ref.spectral} : MatrixError{diff.frobenius, ref.frobenius};
}

/// ‖w − w*‖₂ and ‖w*‖₂ (an absent w counts as zero).
struct VectorError {
  double difference;
  double reference;
};

VectorError vector_error(const MetricContext& ctx) {
  const Index d1 = ctx.truth->rows();
  const Vector truth = first_order_or_zero(*ctx.truth, d1);
  return {(first_order_or_zero(ctx.estimate, d1) - truth).norm(), truth.norm()};
}

/// ‖M − M*‖ / ‖M*‖ in the spectral or Frobenius norm.
class RelativeErrorM final : public Metric {
 public:
  explicit RelativeErrorM(bool spectral) : spectral_(spectral) {}
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const MatrixError e = matrix_error(ctx, spectral_);
    return {{"relative_error_M", relative(e.difference, e.reference)}};
  }

 private:
  bool spectral_;
};

/// ‖w − w*‖₂ / ‖w*‖₂, or ‖w‖₂ when w* = 0.
class RelativeErrorW final : public Metric {
 public:
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const VectorError e = vector_error(ctx);
    return {{"relative_error_w", relative(e.difference, e.reference)}};
  }
};

/// (‖w − w*‖₂ + ‖M − M*‖₂) / (‖w*‖₂ + ‖M*‖₂), the error of the one-pass gFM paper.
class CombinedError final : public Metric {
 public:
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const VectorError w = vector_error(ctx);
    const MatrixError m = matrix_error(ctx, /*spectral=*/true);
    return {{"combined_error", relative(w.difference + m.difference, w.reference + m.reference)}};
  }
};

/// |b − b*|: the intercept's absolute error (an intercept is on the responses' scale, and b* is often 0).
class InterceptError final : public Metric {
 public:
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    return {{"intercept_error", std::abs(ctx.estimate.bias - ctx.truth->bias)}};
  }
};

/// Largest principal angle (radians) between the dominant rank-r subspaces of M and M*.
class SubspaceAngle final : public Metric {
 public:
  explicit SubspaceAngle(std::optional<Index> rank) : rank_(rank) {}
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const LowRankModel estimate = identifiable_part(ctx.estimate, ctx.op);
    const LowRankModel truth = identifiable_part(*ctx.truth, ctx.op);
    const Index r = std::min(rank_.value_or(truth.rank()), truth.rows());
    if (r == 0) return {{"subspace_angle", 0.0}};
    const Matrix P = dominant_subspace(estimate, r);
    const Matrix Q = dominant_subspace(truth, r);
    const Matrix overlap = P.transpose() * Q;
    // cos θ_max = σ_min(P'Q) and sin θ_max = ‖(I − PP')Q‖₂; atan2 keeps both ends accurate.
    const double cosine = Eigen::JacobiSVD<Matrix>(overlap).singularValues().minCoeff();
    const Matrix residual = Q - P * overlap;
    const double sine = Eigen::JacobiSVD<Matrix>(residual).singularValues()(0);
    return {{"subspace_angle", std::atan2(sine, cosine)}};
  }

 private:
  std::optional<Index> rank_;
};

/// The PSD factors X̂ and X* (M = X X') of the estimate and the truth, zero-padded to the same width: what the
/// factor errors of phase retrieval compare, since x and −x (X and X O) give the same M.
struct FactorPair {
  Matrix estimate;  ///< X̂
  Matrix truth;     ///< X*
};

FactorPair psd_factors(const MetricContext& ctx, const std::string& metric) {
  const LowRankModel estimate = identifiable_part(ctx.estimate, ctx.op);
  const LowRankModel truth = identifiable_part(*ctx.truth, ctx.op);
  if (!ctx.op.symmetric() || truth.rows() != truth.cols())
    throw ConfigError(metric + " compares the factors X of M = X X': it needs a symmetric operator (" +
                      "symmetric_rank_one, a symmetric gaussian_ensemble) and a square truth");
  const BalancedFactors x_star = psd_factor(truth, std::max<Index>(truth.rank(), 1));
  // A truth with a negative eigenvalue has no factor X*: its PSD part would be compared instead.
  const double frobenius = difference_norms(truth, nullptr).frobenius;
  if (x_star.values.squaredNorm() < (1.0 - 1e-9) * frobenius * frobenius)
    throw ConfigError(metric + " compares the factors X of M = X X': the truth is not positive semi-definite "
                               "(use truth \"psd\", or relative_error_M)");
  const BalancedFactors x_hat = psd_factor(estimate, std::max<Index>(estimate.rank(), 1));
  const Index width = std::max(x_star.left.cols(), x_hat.left.cols());
  FactorPair f{Matrix::Zero(x_hat.left.rows(), width), Matrix::Zero(x_star.left.rows(), width)};
  f.estimate.leftCols(x_hat.left.cols()) = x_hat.left;
  f.truth.leftCols(x_star.left.cols()) = x_star.left;
  return f;
}

/// min over orthogonal O of ‖X̂ − X* O‖_F / ‖X*‖_F, with O = U V' from the SVD U Σ V' of X*'X̂ (Procrustes),
/// the difference formed, not expanded (‖X̂‖² + ‖X*‖² − 2‖X*'X̂‖_* cancels below 1e-8); at rank 1,
/// min(‖x̂ − x*‖, ‖x̂ + x*‖)/‖x*‖.
class SignInvariantError final : public Metric {
 public:
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const FactorPair f = psd_factors(ctx, "sign_invariant_error");
    const Eigen::JacobiSVD<Matrix> svd(f.truth.transpose() * f.estimate, Eigen::ComputeFullU | Eigen::ComputeFullV);
    const Matrix rotation = svd.matrixU() * svd.matrixV().transpose();
    return {{"sign_invariant_error", relative((f.estimate - f.truth * rotation).norm(), f.truth.norm())}};
  }
};

/// ‖X*'X̂‖_* / (‖X*‖_F ‖X̂‖_F); at rank 1, |x̂'x*| / (‖x̂‖ ‖x*‖). 0 for a zero estimate.
class TruthCorrelation final : public Metric {
 public:
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const FactorPair f = psd_factors(ctx, "truth_correlation");
    const double norms = f.estimate.norm() * f.truth.norm();
    const double overlap = Eigen::JacobiSVD<Matrix>(f.truth.transpose() * f.estimate).singularValues().sum();
    return {{"truth_correlation", norms > 0.0 ? overlap / norms : 0.0}};
  }
};

Registration base(std::string name, std::string summary) {
  Registration r;
  r.kind = Kind::metric;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.doc_page = "docs/plugins/metrics.md";
  // Exact from the factors, unless a model removes its diagonal: then both are formed densely and
  // the difference decomposed (about five d1 × d2 matrices resident).
  r.footprint = [](const Params&, const FootprintContext& c) {
    Footprint f;
    if (c.data.zero_diagonal_model)
      f.add("dense comparison of zero-diagonal models (d1 × d2)",
            dense_spectrum_bytes(static_cast<double>(c.data.shape.d1), static_cast<double>(c.data.shape.d2)));
    return f;
  };
  return r;
}

/// The factor metrics' conformance data: phase retrieval, y_i = (a_i'x)².
Json phase_retrieval_data() {
  return Json{{"name", "synthetic"}, {"operator", "symmetric_rank_one"}, {"d", 12}, {"rank", 1}, {"truth", "psd"},
              {"size", 96}};
}

}  // namespace

std::vector<Registration> error_metric_registrations() {
  std::vector<Registration> out;

  Registration m = base("relative_error_M", "‖M − M*‖ / ‖M*‖ (spectral or Frobenius), exact from the factors");
  m.schema.choice("norm", "spectral", {"spectral", "frobenius"}, "matrix norm of the error");
  m.factory = [](const Params& p, const BuildContext&) {
    return std::make_unique<RelativeErrorM>(p.string("norm") == "spectral");
  };
  out.push_back(std::move(m));

  Registration w = base("relative_error_w", "‖w − w*‖₂ / ‖w*‖₂ (‖w‖₂ when w* = 0)");
  w.factory = [](const Params&, const BuildContext&) { return std::make_unique<RelativeErrorW>(); };
  out.push_back(std::move(w));

  Registration b = base("intercept_error", "|b − b*|, the absolute error of the intercept");
  b.factory = [](const Params&, const BuildContext&) { return std::make_unique<InterceptError>(); };
  out.push_back(std::move(b));

  Registration c = base("combined_error", "(‖w − w*‖₂ + ‖M − M*‖₂) / (‖w*‖₂ + ‖M*‖₂)");
  c.citation = "Lin & Ye, A Non-convex One-Pass Framework for Generalized Factorization Machine and Rank-One "
               "Matrix Sensing, NIPS 2016, Theorem 1 (the quantity shown to decay linearly)";
  c.factory = [](const Params&, const BuildContext&) { return std::make_unique<CombinedError>(); };
  out.push_back(std::move(c));

  Registration a = base("subspace_angle", "largest principal angle (radians) between dominant subspaces of M and M*");
  a.citation = "Lin & Ye, NIPS 2016, Section 3: θ_t = θ(U^(t), U*), the largest canonical angle";
  a.schema.integer("rank", std::nullopt, "subspace dimension; default the truth's factor count").make_nullable().at_least(1);
  a.factory = [](const Params& p, const BuildContext&) {
    std::optional<Index> r;
    if (p.has("rank")) r = p.integer("rank");
    return std::make_unique<SubspaceAngle>(r);
  };
  out.push_back(std::move(a));

  Registration e = base("sign_invariant_error",
                        "min over ±x̂ of ‖x̂ − x*‖/‖x*‖ for M = x x' (at rank k: min over orthogonal O of ‖X̂ − X* O‖_F / "
                        "‖X*‖_F, the factors of M = X X'); symmetric operators, PSD truths");
  e.citation = "Candès, Li & Soltanolkotabi 2015, Phase Retrieval via Wirtinger Flow, Section 1.3: dist(z, x) = min over "
               "the global phase of ‖z − e^(iφ) x‖, real case ±";
  e.example_data = phase_retrieval_data();
  e.factory = [](const Params&, const BuildContext&) { return std::make_unique<SignInvariantError>(); };
  out.push_back(std::move(e));

  Registration r = base("truth_correlation",
                        "|x̂'x*| / (‖x̂‖ ‖x*‖) for M = x x' (at rank k: ‖X*'X̂‖_* / (‖X*‖_F ‖X̂‖_F)); symmetric operators, PSD truths");
  r.citation = "Chandra, Zhong, Hontz, McCulloch, Studer & Goldstein 2017, PhasePack: A Phase Retrieval Library, the "
               "initialisers' cosine similarity";
  r.example_data = phase_retrieval_data();
  r.factory = [](const Params&, const BuildContext&) { return std::make_unique<TruthCorrelation>(); };
  out.push_back(std::move(r));
  return out;
}

}  // namespace rankone::metrics
