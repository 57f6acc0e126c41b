// The sensing operators library: one implementation (RankOneOperator) registered under the four
// rank-one names the rest of RankOne refers to, and the Gaussian ensemble.
#include <memory>

#include "gaussian_ensemble.hpp"
#include "rank_one_operator.hpp"
#include "rankone/plugin/plugin_api.hpp"

namespace rankone::operators {
namespace {

using Kind = DesignSide::Kind;

constexpr const char* kDocPage = "docs/plugins/operators.md";

/// A registration whose factory builds a RankOneOperator from `spec`; with `first_order_param` the
/// schema declares `first_order` and the factory copies it into the spec.
Registration make_registration(RankOneSpec spec, std::string summary, std::string citation, bool first_order_param) {
  Registration r;
  r.kind = rankone::Kind::sensing_operator;
  r.name = spec.name;
  r.summary = std::move(summary);
  r.citation = std::move(citation);
  r.doc_page = kDocPage;
  if (first_order_param) {
    r.schema.boolean("first_order", false, "add the first-order term a_i'w to each measurement when the model has w");
  }
  r.factory = [spec = std::move(spec), first_order_param](const Params& p, const BuildContext&) {
    RankOneSpec built = spec;
    if (first_order_param) built.first_order = p.boolean("first_order");
    return std::make_unique<RankOneOperator>(std::move(built));
  };
  return r;
}

PluginDescriptor describe_operators() {
  PluginDescriptor d;

  RankOneSpec symmetric;
  symmetric.name = "symmetric_rank_one";
  symmetric.symmetric = true;
  symmetric.left_kinds = {Kind::dense, Kind::sparse};
  // E 𝒜'(𝒜(M))/n = 2M + tr(M) I for standard Gaussian x.
  symmetric.inverse = [](const ProblemShape&) { return MomentInverse{0.5, 1.0}; };
  d.registrations.push_back(make_registration(
      std::move(symmetric), "symmetric rank-one sensing y_i = x_i'Mx_i (+ x_i'w): factorization machines, phase retrieval",
      "Lin & Ye 2016, A Non-convex One-Pass Framework for Generalized Factorization Machine and Rank-One Matrix "
      "Sensing (NIPS), Eq. (1)-(2)",
      true));

  RankOneSpec asymmetric;
  asymmetric.name = "asymmetric_rank_one";
  asymmetric.left_kinds = {Kind::dense, Kind::sparse};
  asymmetric.right_kinds = {Kind::dense, Kind::sparse};
  // Independent u, v: E 𝒜'(𝒜(M))/n = E[u u'] M E[v v'] = M.
  asymmetric.inverse = [](const ProblemShape&) { return MomentInverse{1.0, 0.0}; };
  d.registrations.push_back(make_registration(
      std::move(asymmetric), "asymmetric rank-one sensing y_i = u_i'Mv_i (+ u_i'w) with independent u_i, v_i",
      "Lin & Ye 2016, A Non-convex One-Pass Framework for Generalized Factorization Machine and Rank-One Matrix "
      "Sensing (NIPS), Section 2.1 (inductive matrix completion)",
      true));

  RankOneSpec entry;
  entry.name = "entry";
  entry.left_kinds = {Kind::index};
  entry.right_kinds = {Kind::index};
  // Uniform entries: E 𝒜'(𝒜(M))/n = M/(d1 d2).
  entry.inverse = [](const ProblemShape& s) {
    return MomentInverse{static_cast<double>(s.d1) * static_cast<double>(s.d2), 0.0};
  };
  d.registrations.push_back(make_registration(
      std::move(entry), "matrix completion: observes entries y_i = e_i'Me_j",
      "Jin, Kakade & Netrapalli 2016, Provable Efficient Online Matrix Completion via Non-convex Stochastic Gradient "
      "Descent (NIPS), Section 2 (P_Omega)",
      false));

  RankOneSpec single_label;
  single_label.name = "single_label";
  single_label.left_kinds = {Kind::dense, Kind::sparse};
  single_label.right_kinds = {Kind::index, Kind::all};
  single_label.right_gain_sqrt_dim = true;
  // E[ē ē'] = I for ē = √d2 e_j with j uniform: E 𝒜'(𝒜(W))/n = W.
  single_label.inverse = [](const ProblemShape&) { return MomentInverse{1.0, 0.0}; };
  d.registrations.push_back(make_registration(
      std::move(single_label),
      "single-label multi-label sensing y_i = x_i'W ē_i with ē = √d2 e_j (index), or every label (all)",
      "Qiu, Luo, Ye & Lin 2017, Nonconvex One-bit Single-label Multi-label Learning, Eq. (2)-(3)", false));

  Registration ensemble;
  ensemble.kind = rankone::Kind::sensing_operator;
  ensemble.name = "gaussian_ensemble";
  ensemble.summary = "dense Gaussian sensing y_i = <A_i, M>, a whole i.i.d. matrix A_i per measurement (matrix designs)";
  ensemble.citation =
      "Recht, Fazel & Parrilo 2010, Guaranteed Minimum-Rank Solutions of Linear Matrix Equations via Nuclear Norm "
      "Minimization (SIAM Review), Section 4.2 (Gaussian ensembles satisfy the RIP)";
  ensemble.doc_page = kDocPage;
  ensemble.schema.boolean("symmetric", false,
                          "measure <sym(A_i), M> with sym(A) = (A + A')/2: a square M and its symmetric estimators");
  ensemble.factory = [](const Params& p, const BuildContext&) {
    return std::make_unique<GaussianEnsemble>(p.boolean("symmetric"));
  };
  d.registrations.push_back(std::move(ensemble));

  return d;
}

}  // namespace
}  // namespace rankone::operators

RANKONE_PLUGIN(rankone::operators::describe_operators)
