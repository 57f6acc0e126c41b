// Registration of the phase-retrieval estimators (wirtinger_flow, amplitude_flow, gerchberg_saxton, phasemax) and
// starts (docs/plugins/*.md of each; the starts: docs/plugins/phase_starts.md).
#include <cmath>
#include <numbers>

#include "amplitude_flow.hpp"
#include "gerchberg_saxton.hpp"
#include "phasemax.hpp"
#include "rankone/estimation/fixed_sample_plugin.hpp"
#include "starts.hpp"
#include "wirtinger_flow.hpp"

namespace rankone::phase_retrieval {
namespace {

/// The training set (and the copy a data-driven start reads), the residual and the measurements u = A z,
/// the amplitudes and the weights, the signal and its best copy.
Footprint footprint(const Params&, const FootprintContext& c) {
  Footprint f = FixedSampleEstimator::training_footprint(c);
  const double n = c.data.training_instances;
  f.add("measurements u = A z, amplitudes, weights and their copies", 5 * dense_bytes(n, 1));
  f.add("the signal, its step and best copy", 3 * dense_bytes(static_cast<double>(c.data.shape.d1), 1));
  return f;
}

/// Gerchberg–Saxton's: the flows' and A'A with its Cholesky factor, formed once through A itself (m × d).
Footprint projection_footprint(const Params& p, const FootprintContext& c) {
  Footprint f = footprint(p, c);
  const double d = static_cast<double>(c.data.shape.d1);
  f.add("A'A and its Cholesky factor (d × d each)", 2 * dense_bytes(d, d));
  f.add("A, formed once for A'A (m × d)", dense_bytes(c.data.training_instances, d));
  return f;
}

/// A phase-retrieval problem: y_i = (a_i'x)², Gaussian a_i, m = 8n.
Json example_data() {
  return Json{{"name", "synthetic"}, {"operator", "symmetric_rank_one"}, {"d", 16}, {"rank", 1}, {"truth", "psd"},
              {"size", 128}, {"test_size", 32}};
}

/// A start of the phase-retrieval family: its schema's shared settings, its own declared by `own`.
Registration phase_start(std::string name, std::string summary, std::string citation) {
  Registration r;
  r.kind = Kind::initializer;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.citation = std::move(citation);
  r.doc_page = "docs/plugins/phase_starts.md";
  r.example_data = example_data();
  r.start_rank = 1;
  return r;
}

/// The settings every weighted spectral start has: the batch, the norm estimate, the eigensolver.
void declare_spectral_settings(Schema& s) {
  s.integer("batch_size", std::nullopt, "instances of the batch it reads (default: the estimator's batch size)")
      .at_least(1)
      .make_nullable();
  s.choice("scale", "mean", {"mean", "least_squares"},
           "the start's norm: mean, √mean(max(y, 0)) (the papers'); least_squares, argmin_s ‖s |A v| − √y‖ "
           "(PhasePack's rescaling)");
  s.number("tolerance", 1e-10, "relative residual at which the eigensolver stops").above(0.0);
}

/// A weighted spectral start built from its parameters and `weights`.
Factory spectral_factory(std::string name, std::function<StartWeights(const Params&)> weights, bool bottom = false) {
  return [name, weights, bottom](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    WeightedSpectralStart::Settings s;
    s.name = name;
    s.weights = weights(p);
    s.bottom = bottom;
    if (p.has("batch_size")) s.batch_size = p.integer("batch_size");
    s.scale = p.string("scale") == "least_squares" ? StartScale::least_squares : StartScale::mean;
    s.tolerance = p.number("tolerance");
    return std::make_unique<WeightedSpectralStart>(std::move(s));
  };
}

std::vector<Registration> starts() {
  std::vector<Registration> out;
  Registration t = phase_start("truncated_spectral_init",
                               "top eigenvector of (1/m) Σ y_i a_i a_i' over the measurements with y_i ≤ α_y² mean(y), "
                               "scaled to the norm estimate",
                               "Chen & Candès 2015, Solving Random Quadratic Systems of Equations Is Nearly as Easy as "
                               "Solving Linear Systems (NIPS), Algorithm 1, the truncated spectral initialisation");
  declare_spectral_settings(t.schema);
  t.schema.number("alpha_y", 3.0, "keeps y_i ≤ α_y² mean(y)").above(0.0);
  t.factory = spectral_factory(t.name, [](const Params& p) { return truncated_spectral_weights(p.number("alpha_y")); });
  out.push_back(std::move(t));

  Registration o = phase_start("orthogonality_init",
                               "top eigenvector of the mean of a_i a_i'/‖a_i‖² over the ⌈f·m⌉ measurements of largest "
                               "√y_i/‖a_i‖ (the designs least orthogonal to x)",
                               "Wang, Giannakis & Eldar 2018, Solving Systems of Random Quadratic Equations via Truncated "
                               "Amplitude Flow (IEEE T-IT 64), Algorithm 1, the orthogonality-promoting initialisation");
  declare_spectral_settings(o.schema);
  o.schema.number("fraction", 1.0 / 6.0, "f, the fraction of measurements kept (the paper's 1/6)").above(0.0).at_most(1.0);
  o.factory = spectral_factory(o.name, [](const Params& p) { return orthogonality_weights(p.number("fraction")); });
  out.push_back(std::move(o));

  Registration w = phase_start("weighted_correlation_init",
                               "top eigenvector of Σ √y_i^e a_i a_i' over the ⌊f·m⌋ largest measurements",
                               "Wang, Giannakis, Saad & Chen 2018, Phase Retrieval via Reweighted Amplitude Flow (IEEE "
                               "T-SP 66), the weighted maximal correlation initialisation, as in the authors' code");
  declare_spectral_settings(w.schema);
  w.schema.number("fraction", 3.0 / 13.0, "f, the fraction of the largest measurements kept (the paper's 3/13)")
      .above(0.0)
      .at_most(1.0);
  w.schema.number("exponent", 0.5, "e, the weights √y_i^e (the authors' ½)").at_least(0.0);
  w.factory = spectral_factory(w.name, [](const Params& p) {
    return weighted_correlation_weights(p.number("fraction"), p.number("exponent"));
  });
  out.push_back(std::move(w));

  Registration s = phase_start("optimal_spectral_init",
                               "top (algebraic) eigenvector of (1/m) Σ T(y_i) a_i a_i' with T(y) = (y − 1)/(y + √δ − 1) on "
                               "y/mean(y), δ = m/n",
                               "Mondelli & Montanari 2017, Fundamental Limits of Weak Recovery with Applications to Phase "
                               "Retrieval (equations 4–5); Luo, Alghamdi & Lu 2019, Optimal Spectral Initialization for "
                               "Signal Recovery with Applications to Phase Retrieval (IEEE T-SP 67)");
  declare_spectral_settings(s.schema);
  s.factory = spectral_factory(s.name, [](const Params&) { return optimal_spectral_weights(); });
  out.push_back(std::move(s));

  Registration n = phase_start("null_vector_init",
                               "bottom eigenvector of Σ a_i a_i' over the ⌈f·m⌉ smallest measurements (the designs most "
                               "orthogonal to x)",
                               "Chen, Fannjiang & Liu 2018, Phase Retrieval with One or Two Diffraction Patterns by "
                               "Alternating Projections with the Null Initialization (J. Fourier Anal. Appl. 24), "
                               "Algorithm 1, as PhasePack implements it");
  declare_spectral_settings(n.schema);
  n.schema.number("fraction", 0.5, "f, the fraction of the smallest measurements kept (PhasePack's ½)").above(0.0).at_most(1.0);
  n.factory = spectral_factory(n.name, [](const Params& p) { return null_vector_weights(p.number("fraction")); }, true);
  out.push_back(std::move(n));

  Registration a = phase_start("truth_angle_init",
                               "the planted signal rotated by `angle` radians in a random direction, its norm kept",
                               "Chandra, Zhong, Hontz, McCulloch, Studer & Goldstein 2017, PhasePack: A Phase Retrieval "
                               "Library, the error-against-initial-angle comparison");
  a.reads_data = false;
  a.schema.number("angle", std::nullopt, "angle to the planted signal x, in radians (0: x itself, π/2: orthogonal)")
      .at_least(0.0)
      .at_most(std::numbers::pi / 2)
      .make_required();
  a.example = {{"angle", 0.5}};
  a.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<TruthAngleStart>(p.number("angle"), p.path().empty() ? "/" : p.path());
  };
  out.push_back(std::move(a));
  return out;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  for (Registration& r : starts()) d.registrations.push_back(std::move(r));
  d.registrations.push_back(fixed_sample_registration<WirtingerFlow, WirtingerFlowOptions>(
      {"wirtinger_flow",
       "phase retrieval by gradient descent on the intensities (a_i'z)²: Wirtinger flow (wf), truncated Wirtinger "
       "flow on the Poisson loss (twf) or reweighted Wirtinger flow (rwf), on the papers' step schedules or a "
       "backtracking line search; rank 1 on the symmetric rank-one operator",
       "Candès, Li & Soltanolkotabi 2015, Phase Retrieval via Wirtinger Flow: Theory and Algorithms (IEEE T-IT 61), "
       "Algorithm 1 and the step schedule of Section 4; Chen & Candès 2015, Solving Random Quadratic Systems of "
       "Equations Is Nearly as Easy as Solving Linear Systems (NIPS), Algorithm 1 with the Poisson loss; Yuan & Wang 2017, Phase Retrieval via Reweighted Wirtinger Flow (Applied "
       "Optics 56), in PhasePack's form (Chandra et al. 2017, with its line search)",
       "spectral_init", Json{{"max_iterations", 30}}, footprint, example_data()}));
  d.registrations.push_back(fixed_sample_registration<AmplitudeFlow, AmplitudeFlowOptions>(
      {"amplitude_flow",
       "phase retrieval by gradient descent on the amplitudes |a_i'z|: amplitude flow (af, reshaped Wirtinger flow), "
       "truncated (taf) or reweighted (raf); rank 1 on the symmetric rank-one operator",
       "Zhang & Liang 2016, Reshaped Wirtinger Flow for Solving Quadratic System of Equations (NIPS), the update of "
       "Algorithm 1; Wang, Giannakis & Eldar 2018, Solving Systems of Random Quadratic Equations via Truncated "
       "Amplitude Flow (IEEE T-IT 64), Algorithm 1; Wang, Giannakis, Saad & Chen 2018, Phase Retrieval via "
       "Reweighted Amplitude Flow (IEEE T-SP 66), Algorithm 1",
       "spectral_init", Json{{"max_iterations", 30}}, footprint, example_data()}));
  d.registrations.push_back(fixed_sample_registration<GerchbergSaxton, GerchbergSaxtonOptions>(
      {"gerchberg_saxton",
       "phase retrieval by alternating projections: z ← argmin ‖A z − √y ∘ sign(A z)‖ (the real Gerchberg–Saxton / "
       "error-reduction iteration for a tall design); rank 1 on the symmetric rank-one operator",
       "Gerchberg & Saxton 1972, A Practical Algorithm for the Determination of Phase from Image and Diffraction "
       "Plane Pictures (Optik 35); Fienup 1982, Phase Retrieval Algorithms: a Comparison (Applied Optics 21), the "
       "error-reduction algorithm",
       "spectral_init", Json{{"max_iterations", 30}}, projection_footprint, example_data()}));
  d.registrations.push_back(fixed_sample_registration<PhaseMax, PhaseMaxOptions>(
      {"phasemax",
       "phase retrieval by its convex relaxation: maximise <x̂₀, x> subject to |a_i'x| ≤ √y_i, x̂₀ the start (an "
       "anchor), solved by accelerated gradient steps on a quadratic penalty of the constraints with continuation; "
       "PhaseLamp's re-anchored rounds as an option",
       "Goldstein & Studer 2018, PhaseMax: Convex Phase Retrieval via Basis Pursuit (IEEE T-IT 64), the program "
       "(1); Bahmani & Romberg 2017, Phase Retrieval Meets Statistical Learning Theory: A Flexible Convex Relaxation "
       "(AISTATS); the solver: FISTA (Beck & Teboulle 2009) with gradient restarts (O'Donoghue & Candès 2015); Dhifallah, "
       "Thrampoulidis & Lu 2017, Phase Retrieval via Linear Programming: Fundamental Limits and Algorithmic "
       "Improvements (Allerton), PhaseLamp",
       "spectral_init", Json{{"max_iterations", 60}, {"stage_iterations", 10}}, footprint, example_data()}));
  return d;
}

}  // namespace
}  // namespace rankone::phase_retrieval

RANKONE_PLUGIN(rankone::phase_retrieval::describe)
