// The phase-retrieval estimators (wirtinger_flow, amplitude_flow, gerchberg_saxton, phasemax) and starts:
// step-by-step agreement with the numpy references tests/references/phase_retrieval.py and phase_starts.py on
// the C++ run's own data; planted signals recovered up to sign; refusals; the sign-invariant error and the
// correlation with the truth.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "agreement.hpp"
#include "rankone/interfaces/metric.hpp"
#include "rankone/linalg/balanced_factors.hpp"

namespace {

using namespace rankone;
using Catch::Matchers::Contains;

/// y_i = (a_i'x)², a_i ~ N(0, I_d), ‖x‖ = 1, m measurements (and a test set).
Json phase_source(Index d, Index m) {
  return Json{{"name", "synthetic"}, {"operator", "symmetric_rank_one"}, {"d", d}, {"rank", 1}, {"truth", "psd"},
              {"size", m}, {"test_size", 50}};
}

/// min(‖z − x‖, ‖z + x‖)/‖x‖ for the rank-1 factors of an estimate and the truth.
double sign_invariant_error(const Estimate& e, const GroundTruth& truth) {
  auto metric = test::make<Metric>(Json{{"name", "sign_invariant_error"}}, Kind::metric);
  auto source = test::make<DataSource>(phase_source(e.rows(), 100), Kind::data_source);
  const MetricContext ctx{e, &truth, nullptr, source->sensing_operator(), Link::identity, 0, 0.0, 0};
  return metric->evaluate(ctx).at(0).second;
}

struct Flow {
  const char* estimator;
  const char* variant;
};
const Flow kFlows[] = {{"wirtinger_flow", "wf"},  {"wirtinger_flow", "twf"}, {"wirtinger_flow", "rwf"},
                       {"amplitude_flow", "af"},  {"amplitude_flow", "taf"}, {"amplitude_flow", "raf"}};

}  // namespace

TEST_CASE("the phase-retrieval flows agree step by step with their numpy reference", "[phase_retrieval][reference]") {
  for (const Flow& f : kFlows) {
    const Json estimator{{"name", f.estimator}, {"variant", f.variant}};
    test::check_agreement(f.variant, phase_source(12, 96), estimator, 10, 0.5, Json{{"variant", f.variant}});
  }
  // Settings other than the papers' reach the reference too.
  test::check_agreement("twf_settings", phase_source(12, 96),
                        Json{{"name", "wirtinger_flow"}, {"variant", "twf"}, {"step_size", 0.1}, {"alpha_lb", 0.1},
                             {"alpha_ub", 4.0}, {"alpha_h", 3.0}},
                        10, 0.5,
                        Json{{"variant", "twf"}, {"params", {{"mu", 0.1}, {"alpha_lb", 0.1}, {"alpha_ub", 4.0}, {"alpha_h", 3.0}}}});
  test::check_agreement("wf_settings", phase_source(12, 96),
                        Json{{"name", "wirtinger_flow"}, {"variant", "wf"}, {"step_size", 0.3}, {"tau0", 5.0}}, 10, 0.5,
                        Json{{"variant", "wf"}, {"params", {{"mu_max", 0.3}, {"tau0", 5.0}}}});
  test::check_agreement("taf_settings", phase_source(12, 96),
                        Json{{"name", "amplitude_flow"}, {"variant", "taf"}, {"step_size", 0.5}, {"gamma", 0.3}}, 10, 0.5,
                        Json{{"variant", "taf"}, {"params", {{"mu", 0.5}, {"gamma", 0.3}}}});
  test::check_agreement("rwf_settings", phase_source(12, 96),
                        Json{{"name", "wirtinger_flow"}, {"variant", "rwf"}, {"eta", 0.3}, {"tau0", 5.0}}, 10, 0.5,
                        Json{{"variant", "rwf"}, {"params", {{"eta", 0.3}, {"tau0", 5.0}}}});
  test::check_agreement("raf_settings", phase_source(12, 96),
                        Json{{"name", "amplitude_flow"}, {"variant", "raf"}, {"step_size", 1.0}, {"beta", 3.0}}, 10, 0.5,
                        Json{{"variant", "raf"}, {"params", {{"mu", 1.0}, {"beta", 3.0}}}});
}

TEST_CASE("wirtinger_flow's backtracking line search agrees step by step with its numpy reference", "[phase_retrieval][reference][line_search]") {
  // 12 steps: the Barzilai–Borwein steps, the Armijo shrinks and (twf) the line search's truncation constants, all
  // before the iterates reach rounding (where the search's decisions are rounding's).
  for (const char* variant : {"wf", "twf", "rwf"}) {
    const Json estimator{{"name", "wirtinger_flow"}, {"variant", variant}, {"line_search", "backtracking"}};
    test::check_agreement(std::string(variant) + "_backtracking", phase_source(12, 96), estimator, 12, 0.5,
                          Json{{"variant", variant}, {"params", {{"line_search", "backtracking"}}}});
  }
}

TEST_CASE("the phase-retrieval flows recover a planted signal up to its sign", "[phase_retrieval][recovery]") {
  for (const Flow& f : kFlows) {
    INFO(f.estimator << " " << f.variant);
    // m = 8n, as Candès et al.'s Section 4 Gaussian runs; Wirtinger flow's schedule is slow at first.
    const bool scheduled = std::string(f.variant) == "wf" || std::string(f.variant) == "rwf";
    const Json estimator{{"name", f.estimator}, {"variant", f.variant}, {"max_iterations", scheduled ? 3000 : 600}};
    const test::FinishedRun run = test::run_to_end(phase_source(64, 512), estimator, 43);
    const Summary s = run.estimator->summary();
    INFO(s.message);
    CHECK(s.status == Status::converged);
    CHECK(sign_invariant_error(run.estimator->estimate(), *run.data->truth()) < 1e-6);
    CHECK(s.fit < 1e-6);  // on the held-out test set
  }
}

TEST_CASE("the line search recovers the signal in fewer iterations than Wirtinger flow's schedule", "[phase_retrieval][recovery][line_search]") {
  int scheduled_iterations = 0;
  for (const char* search : {"none", "backtracking"}) {
    INFO(search);
    const Json estimator{{"name", "wirtinger_flow"}, {"line_search", search}, {"max_iterations", 3000}};
    const test::FinishedRun run = test::run_to_end(phase_source(64, 512), estimator, 43);
    const Summary s = run.estimator->summary();
    INFO(s.message);
    CHECK(s.status == Status::converged);
    CHECK(sign_invariant_error(run.estimator->estimate(), *run.data->truth()) < 1e-6);
    if (std::string(search) == "none") scheduled_iterations = s.iterations;
    else CHECK(s.iterations * 3 < scheduled_iterations);
  }
}

TEST_CASE("the phase-retrieval flows refuse what is not phase retrieval", "[phase_retrieval][refusal]") {
  Json asymmetric = phase_source(8, 80);
  asymmetric["operator"] = "asymmetric_rank_one";
  asymmetric["truth"] = "general";
  const test::FinishedRun run = test::run_to_end(asymmetric, Json{{"name", "amplitude_flow"}}, 3);
  CHECK(run.estimator->summary().status == Status::failed);
  CHECK_THAT(run.estimator->summary().message, Contains("symmetric rank-one operator"));
  // A setting another variant reads is refused by name.
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "amplitude_flow"}, {"variant", "af"}, {"gamma", 0.5}}, Kind::estimator),
                    Contains("gamma is read by variant taf only"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "wirtinger_flow"}, {"tau0", 10.0}, {"variant", "twf"}}, Kind::estimator),
                    Contains("tau0 is read by variant wf or rwf only"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "wirtinger_flow"}, {"eta", 0.5}}, Kind::estimator),
                    Contains("eta is read by variant rwf only"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "wirtinger_flow"}, {"tau0", 10.0}, {"line_search", "backtracking"}},
                                          Kind::estimator),
                    Contains("tau0 is read by line_search none only"));
  // The line search's own α_lb (0.1) is below an α_ub the schedule's (0.3) would not be.
  CHECK_NOTHROW(test::make<Estimator>(
      Json{{"name", "wirtinger_flow"}, {"variant", "twf"}, {"line_search", "backtracking"}, {"alpha_ub", 0.2}}, Kind::estimator));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "wirtinger_flow"}, {"variant", "twf"}, {"alpha_lb", 6.0}}, Kind::estimator),
                    Contains("α_lb must be below α_ub"));
}

TEST_CASE("sign_invariant_error and truth_correlation compare factors up to sign and rotation", "[phase_retrieval][metrics]") {
  auto source = test::make<DataSource>(phase_source(6, 40), Kind::data_source);
  source->open(5);
  const GroundTruth& truth = *source->truth();
  const Vector x = psd_factor(truth, 1).left.col(0);
  auto error = test::make<Metric>(Json{{"name", "sign_invariant_error"}}, Kind::metric);
  auto correlation = test::make<Metric>(Json{{"name", "truth_correlation"}}, Kind::metric);
  const auto value = [&](const Metric& m, const Vector& z) {
    Estimate e;
    e.left = z;
    e.right = z;
    e.symmetrize = true;
    const MetricContext ctx{e, &truth, nullptr, source->sensing_operator(), Link::identity, 0, 0.0, 0};
    return m.evaluate(ctx).at(0).second;
  };
  Vector delta = Vector::Zero(x.size());
  delta(0) = 0.01;
  CHECK(value(*error, x) < 1e-12);
  CHECK(value(*error, -x) < 1e-12);
  const double expected = std::min((x + delta - x).norm(), (x + delta + x).norm()) / x.norm();
  CHECK(value(*error, -(x + delta)) == Approx(expected).epsilon(1e-9));
  // Resolved down to rounding: an expansion of the squared distance would cancel to 0 below 1e-8.
  CHECK(value(*error, -(1.0 + 1e-12) * x) == Approx(1e-12).epsilon(1e-3));
  CHECK(value(*correlation, -3.0 * x) == Approx(1.0).epsilon(1e-12));
  const double cosine = std::abs((x + delta).dot(x)) / ((x + delta).norm() * x.norm());
  CHECK(value(*correlation, x + delta) == Approx(cosine).epsilon(1e-12));
  // An indefinite truth has no factor: refused, naming the metric.
  Json indefinite = phase_source(6, 40);
  indefinite["rank"] = 2;
  indefinite["truth"] = "symmetric";
  auto other = test::make<DataSource>(indefinite, Kind::data_source);
  other->open(5);
  Estimate e;
  e.left = x;
  e.right = x;
  e.symmetrize = true;
  const MetricContext ctx{e, other->truth(), nullptr, other->sensing_operator(), Link::identity, 0, 0.0, 0};
  CHECK_THROWS_WITH(error->evaluate(ctx), Contains("sign_invariant_error") && Contains("not positive semi-definite"));
}

TEST_CASE("the phase-retrieval starts agree with their numpy reference", "[phase_retrieval][reference][starts]") {
  struct Case {
    const char* label;
    Json init;
  };
  const std::vector<Case> cases{
      {"truncated", Json{{"name", "truncated_spectral_init"}}},
      {"truncated_ls", Json{{"name", "truncated_spectral_init"}, {"alpha_y", 2.0}, {"scale", "least_squares"}}},
      {"orthogonality", Json{{"name", "orthogonality_init"}}},
      {"weighted", Json{{"name", "weighted_correlation_init"}}},
      {"weighted_settings", Json{{"name", "weighted_correlation_init"}, {"fraction", 0.4}, {"exponent", 1.0}}},
      {"optimal", Json{{"name", "optimal_spectral_init"}}},
      {"null", Json{{"name", "null_vector_init"}}},
      {"null_ls", Json{{"name", "null_vector_init"}, {"fraction", 0.3}, {"scale", "least_squares"}}},
  };
  for (const Case& c : cases) {
    INFO(c.label);
    Json start = c.init;
    Json settings{{"variant", "af"}, {"start", start}};
    test::check_agreement(std::string("start_") + c.label, phase_source(12, 96),
                          Json{{"name", "amplitude_flow"}, {"init", c.init}}, 3, 0.5, settings);
  }
}

TEST_CASE("truth_angle_init starts at the angle asked, with the signal's norm", "[phase_retrieval][starts]") {
  for (const double angle : {0.0, 0.3, 1.2, 1.5707963267948966}) {
    INFO("angle " << angle);
    const test::SteppedRun run = test::run_stepwise(
        phase_source(20, 160),
        Json{{"name", "amplitude_flow"}, {"max_iterations", 1}, {"init", {{"name", "truth_angle_init"}, {"angle", angle}}}}, 11);
    auto source = test::make<DataSource>(phase_source(20, 160), Kind::data_source);
    source->open(11);
    const Vector x = psd_factor(*source->truth(), 1).left.col(0);
    const Vector z = run.start_estimate.left.col(0);
    CHECK(std::abs(z.dot(x)) / (z.norm() * x.norm()) == Approx(std::cos(angle)).margin(1e-12));
    CHECK(z.norm() == Approx(x.norm()).epsilon(1e-12));
  }
}

TEST_CASE("the phase-retrieval starts refuse what they cannot start", "[phase_retrieval][starts][refusal]") {
  // A rank-2 model has no start z z'.
  Json rank_two = phase_source(10, 100);
  rank_two["rank"] = 2;
  const test::FinishedRun run = test::run_to_end(
      rank_two, Json{{"name", "factored_gd"}, {"rank", 2}, {"factorization", "psd"}, {"init", "truncated_spectral_init"}}, 3);
  CHECK(run.estimator->summary().status == Status::failed);
  CHECK_THAT(run.estimator->summary().message, Contains("starts a rank-1 model"));
  // The optimal weights have a pole when m ≤ n.
  const test::FinishedRun few = test::run_to_end(phase_source(20, 20), Json{{"name", "amplitude_flow"}, {"init", "optimal_spectral_init"}}, 3);
  CHECK(few.estimator->summary().status == Status::failed);
  CHECK_THAT(few.estimator->summary().message, Contains("more measurements than unknowns"));
  // The null start's bottom eigenvector is not determined by fewer designs than dimensions.
  const test::FinishedRun null = test::run_to_end(phase_source(40, 60), Json{{"name", "amplitude_flow"}, {"init", "null_vector_init"}}, 3);
  CHECK(null.estimator->summary().status == Status::failed);
  CHECK_THAT(null.estimator->summary().message, Contains("fewer than n = 40"));
  // Signs are not intensities.
  Json signs = phase_source(8, 80);
  signs["link"] = "sign";
  const test::FinishedRun sign_run = test::run_to_end(signs, Json{{"name", "amplitude_flow"}, {"init", "truncated_spectral_init"}}, 3);
  CHECK(sign_run.estimator->summary().status == Status::failed);
  CHECK_THAT(sign_run.estimator->summary().message, Contains("the responses are signs"));
  // PhaseMax's last penalty is bounded.
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "phasemax"}, {"penalty_growth", 1e10}, {"stages", 3}}, Kind::estimator),
                    Contains("at most 1e15"));
  // Not phase retrieval.
  Json asymmetric = phase_source(8, 80);
  asymmetric["operator"] = "asymmetric_rank_one";
  asymmetric["truth"] = "general";
  const test::FinishedRun other = test::run_to_end(
      asymmetric, Json{{"name", "factored_gd"}, {"rank", 1}, {"init", "orthogonality_init"}}, 3);
  CHECK(other.estimator->summary().status == Status::failed);
  CHECK_THAT(other.estimator->summary().message, Contains("is for phase retrieval"));
}

TEST_CASE("gerchberg_saxton: least-squares projections, checked against the numpy reference", "[phase_retrieval][gerchberg_saxton]") {
  // The reference takes the projection itself (lstsq); the C++ flow, AF's direction preconditioned by (A'A/m)⁻¹.
  test::check_agreement("gs", phase_source(12, 96), Json{{"name", "gerchberg_saxton"}}, 10, 0.5, Json{{"variant", "gs"}});
  const test::FinishedRun run = test::run_to_end(phase_source(64, 512), Json{{"name", "gerchberg_saxton"}}, 43);
  INFO(run.estimator->summary().message);
  CHECK(run.estimator->summary().status == Status::converged);
  CHECK(sign_invariant_error(run.estimator->estimate(), *run.data->truth()) < 1e-6);
  // Fewer designs than dimensions: A'A is singular, said before the first step.
  const test::FinishedRun few = test::run_to_end(phase_source(20, 12), Json{{"name", "gerchberg_saxton"}}, 3);
  CHECK(few.estimator->summary().status == Status::failed);
  CHECK_THAT(few.estimator->summary().message, Contains("A'A is singular"));
}

TEST_CASE("phasemax: the convex relaxation by penalty continuation, checked against the numpy reference", "[phase_retrieval][phasemax]") {
  // A few steps per stage, so that 40 iterates cross stages, momentum restarts and the last stage.
  const Json settings{{"stage_iterations", 5}, {"stages", 5}};
  Json estimator = settings;
  estimator["name"] = "phasemax";
  test::check_agreement("phasemax", phase_source(12, 96), estimator, 40, 0.5, Json{{"params", settings}});
  test::check_agreement("phasemax_defaults", phase_source(12, 96), Json{{"name", "phasemax"}}, 30, 0.5, Json::object());
  // PhaseLamp: rounds of 2 stages of 5 steps, so that 40 iterates cross two re-anchorings.
  const Json lamp{{"stage_iterations", 5}, {"stages", 2}, {"rounds", 3}};
  estimator = lamp;
  estimator["name"] = "phasemax";
  test::check_agreement("phaselamp", phase_source(12, 96), estimator, 40, 0.5, Json{{"params", lamp}});
  const test::FinishedRun run = test::run_to_end(phase_source(64, 512), Json{{"name", "phasemax"}}, 43);
  INFO(run.estimator->summary().message);
  CHECK(run.estimator->summary().status == Status::converged);
  CHECK(sign_invariant_error(run.estimator->estimate(), *run.data->truth()) < 1e-5);
}

TEST_CASE("a phase-retrieval start serves any rank-1 estimator: gfm_one_pass from the optimal spectral start", "[phase_retrieval][starts]") {
  // gfm_one_pass reads its start's batch through its own reader (fresh batches of its batch_size) and starts
  // from the start's column space (Start::basis), its M_0 = 0.
  const Json gfm{{"name", "gfm_one_pass"}, {"rank", 1}, {"first_order", false}, {"batch_size", 1600},
                 {"init", "optimal_spectral_init"}};
  const test::FinishedRun run = test::run_to_end(phase_source(40, 40000), gfm, 5);
  INFO(run.estimator->summary().message);
  CHECK(run.estimator->summary().status == Status::converged);
  CHECK(sign_invariant_error(run.estimator->estimate(), *run.data->truth()) < 1e-3);
  CHECK(run.data->samples_drawn() > 1600);  // the start's batch and the iterations' batches
}
