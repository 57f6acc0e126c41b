// The conformance checks of rankone/conformance/conformance.hpp: one function per kind, each check
// recorded with the figures that decided it.
#include "rankone/conformance/conformance.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <functional>
#include <sstream>

#include "rankone/interfaces/data_source.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/interfaces/initializer.hpp"
#include "rankone/interfaces/metric.hpp"
#include "rankone/interfaces/sampler.hpp"
#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone {

bool ConformanceReport::passed() const { return failures() == 0; }

std::size_t ConformanceReport::failures() const {
  std::size_t n = 0;
  for (const auto& c : checks) n += c.passed ? 0 : 1;
  return n;
}

std::ostream& operator<<(std::ostream& out, const ConformanceReport& report) {
  for (const auto& c : report.checks)
    out << (c.passed ? "PASS " : "FAIL ") << c.plugin << ": " << c.check << (c.detail.empty() ? "" : " (" + c.detail + ")")
        << "\n";
  return out;
}

Json default_example_data() {
  return Json{{"name", "synthetic"}, {"d", 10}, {"rank", 2}, {"w_norm", 1.0}, {"test_size", 200},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
}

Json model_operator(const Registry& registry, const std::string& estimator) {
  const Registration& fits = registry.get(estimator, Kind::estimator);
  const Json example = fits.example_data.is_null() ? default_example_data() : fits.example_data;
  const ValidationContext context(registry, nullptr);
  const Json op = validate_plugin_ref(example, Kind::data_source, context, "/data").at("operator");
  // An estimator shown on whole sensing matrices (the Gaussian ensemble) takes feature rows through
  // symmetric rank-one sensing, where it fits no linear term.
  const auto left = registry.create<SensingOperator>(op, Kind::sensing_operator)->accepted_left();
  if (std::find(left.begin(), left.end(), DesignSide::Kind::dense) == left.end() &&
      std::find(left.begin(), left.end(), DesignSide::Kind::index) == left.end())
    return Json{{"name", "symmetric_rank_one"}, {"first_order", false}};
  Json out = {{"name", op.at("name")}};  // its first-order term, where it has one; nothing else
  if (op.contains("first_order")) out["first_order"] = op["first_order"];
  return out;
}

namespace {

/// Draws used to compare a sampler's declared moments with its draws (E x⁴'s standard error is
/// then about 0.003 for a Gaussian).
constexpr Index kMomentDraws = 1'000'000;
/// A declared moment must lie within this many standard errors of the sample moment; with four
/// moments per sampler a correct sampler fails by chance with probability about 2e-6.
constexpr double kMomentStandardErrors = 5.0;
/// Relative tolerance of the operator identities (sums of a few hundred products).
constexpr double kIdentityTolerance = 1e-10;
constexpr std::uint64_t kSeed = 20261124;

std::string number(double v) {
  std::ostringstream s;
  s.precision(4);
  s << v;
  return s.str();
}

class Checker {
 public:
  Checker(const Registry& registry, const Registration& plugin, const ConformanceObserver& observer)
      : registry_(registry), plugin_(plugin), observer_(observer) {}

  /// Runs `body`, which returns the detail and throws (or returns through `fail`) on failure.
  void check(const std::string& what, const std::function<std::string()>& body) {
    ConformanceCheck c{plugin_.name, what, false, ""};
    if (observer_.begins) observer_.begins(what);
    try {
      c.detail = body();
      c.passed = true;
    } catch (const Failed& f) {
      c.detail = f.why;
    } catch (const std::exception& e) {
      c.detail = std::string("threw: ") + e.what();
    } catch (...) {
      c.detail = "threw a non-standard exception";
    }
    if (observer_.ended) observer_.ended(c);
    report_.checks.push_back(std::move(c));
  }

  ConformanceReport run();

 private:
  struct Failed {
    std::string why;
  };
  [[noreturn]] static void fail(std::string why) { throw Failed{std::move(why)}; }
  static void require(bool ok, const std::string& why) {
    if (!ok) fail(why);
  }

  Json example_ref() const {
    Json ref = plugin_.example.is_object() ? plugin_.example : Json::object();
    ref["name"] = plugin_.name;
    return ref;
  }
  Json example_data_ref() const { return plugin_.example_data.is_null() ? default_example_data() : plugin_.example_data; }
  Json resolved(const Json& ref, Kind kind) const {
    ValidationContext ctx(registry_, [](const std::string&) { return std::string("conformance"); });
    return validate_plugin_ref(ref, kind, ctx, "");
  }
  std::unique_ptr<DataSource> open_example_data(std::uint64_t seed) const {
    auto data = registry_.create<DataSource>(resolved(example_data_ref(), Kind::data_source), Kind::data_source);
    data->open(seed);
    return data;
  }

  void describes_itself();
  void constructs();
  void footprint();
  void sampler_checks();
  void operator_checks();
  void source_checks();
  void estimator_checks();
  void metric_checks();
  void initializer_checks();

  const Registry& registry_;
  const Registration& plugin_;
  const ConformanceObserver& observer_;
  Json resolved_;  ///< the example, validated (null when it does not validate)
  ConformanceReport report_;
};

ConformanceReport Checker::run() {
  describes_itself();
  constructs();
  if (resolved_.is_null()) return report_;  // nothing further can be built
  footprint();
  switch (plugin_.kind) {
    case Kind::sampler: sampler_checks(); break;
    case Kind::sensing_operator: operator_checks(); break;
    case Kind::data_source: source_checks(); break;
    case Kind::estimator: estimator_checks(); break;
    case Kind::metric: metric_checks(); break;
    case Kind::initializer: initializer_checks(); break;
  }
  return report_;
}

void Checker::describes_itself() {
  check("describes itself", [&] {
    require(!plugin_.summary.empty(), "no summary");
    require(!plugin_.version.empty(), "no version");
    require(!plugin_.doc_page.empty(), "no documentation page (Registration::doc_page)");
    for (const auto& p : plugin_.schema.params()) require(!p.doc.empty(), "parameter '" + p.name + "' has no documentation");
    return std::to_string(plugin_.schema.params().size()) + " parameters documented";
  });
  check("schema round-trips through JSON", [&] {
    const Json schema = plugin_.schema.to_json();
    require(Schema::from_json(schema).to_json() == schema, "Schema::from_json(to_json()) differs: " + schema.dump());
    return std::string();
  });
}

void Checker::constructs() {
  check("example parameters validate", [&] {
    resolved_ = resolved(example_ref(), plugin_.kind);
    require(resolved(resolved_, plugin_.kind) == resolved_, "validating the resolved example changes it: " + resolved_.dump());
    return resolved_.dump();
  });
  if (resolved_.is_null()) return;
  check("constructs from its example", [&] {
    auto component = registry_.create_component(resolved_, plugin_.kind, "");
    require(component != nullptr, "the factory returned null");
    bool right_kind = false;
    switch (plugin_.kind) {
      case Kind::sampler: right_kind = dynamic_cast<Sampler*>(component.get()) != nullptr; break;
      case Kind::sensing_operator: right_kind = dynamic_cast<SensingOperator*>(component.get()) != nullptr; break;
      case Kind::data_source: right_kind = dynamic_cast<DataSource*>(component.get()) != nullptr; break;
      case Kind::estimator: right_kind = dynamic_cast<Estimator*>(component.get()) != nullptr; break;
      case Kind::metric: right_kind = dynamic_cast<Metric*>(component.get()) != nullptr; break;
      case Kind::initializer: right_kind = dynamic_cast<Initializer*>(component.get()) != nullptr; break;
    }
    require(right_kind, "the factory did not create " + with_article(to_string(plugin_.kind)));
    return std::string();
  });
  check("reads every declared parameter", [&] {
    // A declared parameter nothing reads is a promise the plugin does not keep: a sweep over it
    // would store identical trials under different keys.
    Json values = resolved_;
    values.erase("name");
    values.erase("label");
    const Params params(values);
    const auto component = registry_.build(plugin_, params);
    std::string unread;
    for (const auto& name : params.unread()) unread += (unread.empty() ? "" : ", ") + name;
    require(unread.empty(), "its factory never reads: " + unread);
    return std::to_string(values.size()) + " parameters read";
  });
}

void Checker::footprint() {
  if (!plugin_.footprint) {
    if (plugin_.kind == Kind::sampler || plugin_.kind == Kind::data_source || plugin_.kind == Kind::estimator)
      report_.checks.push_back({plugin_.name, "declares its memory footprint", true,
                                "none declared: the study's memory budget counts it as holding nothing"});
    return;
  }
  check("memory footprint is finite and grows with the problem", [&] {
    auto bytes_at = [&](Index d) {
      DataFootprint data;
      data.shape = ProblemShape{d, d, false};
      data.instance_bytes = 8.0 * static_cast<double>(d);
      data.training_instances = 1000;
      data.test_instances = 100;
      return registry_.footprint(resolved_, plugin_.kind, FootprintContext{registry_, data}).bytes();
    };
    const double small = bytes_at(300), large = bytes_at(3000);
    require(std::isfinite(small) && small >= 0, "at d = 300: " + number(small) + " bytes");
    require(large >= small, "shrinks from " + number(small) + " bytes at d = 300 to " + number(large) + " at d = 3000");
    return number(small) + " bytes at d = 300, " + number(large) + " at d = 3000";
  });
}

void Checker::sampler_checks() {
  auto sampler = registry_.create<Sampler>(resolved_, Kind::sampler);
  check("draws the shape it declares", [&] {
    DesignSide side;
    Rng rng(kSeed);
    sampler->sample(rng, 7, 5, side);
    require(side.kind == sampler->kind(), "drew a design of another kind than kind() declares");
    require(side.count() == 5 && side.dim == 7,
            "asked for 5 designs of dimension 7, drew " + std::to_string(side.count()) + " of dimension " + std::to_string(side.dim));
    return std::string();
  });
  check("declared moments match its draws", [&] {
    const Index dim = 20, n = kMomentDraws / dim;
    DesignSide side;
    Rng rng(kSeed);
    sampler->sample(rng, dim, n, side);
    const Matrix x = side.to_dense();
    // Raw sample moments E x^p, p = 1..8 (the 5th to 8th give the standard errors).
    double raw[9] = {};
    for (Index i = 0; i < x.size(); ++i) {
      const double v = x.data()[i];
      double power = 1.0;
      for (int p = 1; p <= 8; ++p) raw[p] += (power *= v);
    }
    const double count = static_cast<double>(x.size());
    for (double& r : raw) r /= count;
    const Moments declared = sampler->moments(dim);
    struct Compared {
      const char* name;
      double declared, sample, standard_error;
    };
    const Compared compared[] = {
        {"E x", declared.mean, raw[1], std::sqrt(std::max(0.0, raw[2] - raw[1] * raw[1]) / count)},
        {"E x²", declared.variance + declared.mean * declared.mean, raw[2], std::sqrt(std::max(0.0, raw[4] - raw[2] * raw[2]) / count)},
        {"E x³", declared.kappa, raw[3], std::sqrt(std::max(0.0, raw[6] - raw[3] * raw[3]) / count)},
        {"E x⁴", declared.phi, raw[4], std::sqrt(std::max(0.0, raw[8] - raw[4] * raw[4]) / count)}};
    std::string detail;
    for (const auto& c : compared) {
      const double allowed = kMomentStandardErrors * c.standard_error + 1e-12 * (1.0 + std::abs(c.declared));
      const std::string figures = std::string(c.name) + " declared " + number(c.declared) + ", drawn " + number(c.sample) +
                                  " ± " + number(c.standard_error);
      require(std::isfinite(c.declared) && std::abs(c.declared - c.sample) <= allowed,
              figures + " (more than " + number(kMomentStandardErrors) + " standard errors apart)");
      detail += (detail.empty() ? "" : "; ") + figures;
    }
    return detail + " over " + std::to_string(x.size()) + " draws";
  });
}

/// A design of `kind` with `n` vectors of dimension `dim` (matrices of `dim` × `cols`), random.
DesignSide random_design(DesignSide::Kind kind, Index dim, Index n, Rng& rng, Index cols = 0) {
  switch (kind) {
    case DesignSide::Kind::matrix: {
      Matrix blocks(dim, n * cols);
      rng.fill_normal(blocks.data(), blocks.size());
      return DesignSide::make_matrix(cols, std::move(blocks));
    }
    case DesignSide::Kind::dense: {
      Matrix x(dim, n);
      rng.fill_normal(x.data(), x.size());
      return DesignSide::make_dense(std::move(x));
    }
    case DesignSide::Kind::sparse: {
      Matrix x(dim, n);
      rng.fill_normal(x.data(), x.size());
      for (Index i = 0; i < x.size(); ++i)
        if (rng.uniform() < 0.5) x.data()[i] = 0.0;
      DesignSide side;
      side.kind = DesignSide::Kind::sparse;
      side.dim = dim;
      side.sparse = x.sparseView();
      return side;
    }
    case DesignSide::Kind::index: {
      IndexVector index(n);
      for (Index i = 0; i < n; ++i) index(i) = static_cast<IndexVector::Scalar>(rng.below(static_cast<std::uint64_t>(dim)));
      return DesignSide::make_index(dim, std::move(index), 1.5);
    }
    case DesignSide::Kind::all: return DesignSide::make_all(dim, 1.5);
  }
  return {};
}

double relative_gap(double a, double b) { return std::abs(a - b) / std::max({1.0, std::abs(a), std::abs(b)}); }
double relative_gap(const Matrix& a, const Matrix& b) { return (a - b).norm() / std::max({1.0, a.norm(), b.norm()}); }

void Checker::operator_checks() {
  auto op = registry_.create<SensingOperator>(resolved_, Kind::sensing_operator);
  for (const auto left_kind : op->accepted_left()) {
    const bool symmetric = op->symmetric();
    // A matrix design is the whole A_i: such a batch has no right side whatever the symmetry.
    const bool one_side = symmetric || left_kind == DesignSide::Kind::matrix;
    const auto right_kinds = one_side ? std::vector<DesignSide::Kind>{left_kind} : op->accepted_right();
    for (const auto right_kind : right_kinds) {
      const Index d1 = 6, d2 = symmetric ? d1 : 5, n = 40, k = 3;
      Rng rng(kSeed);
      Batch batch;
      batch.left = random_design(left_kind, d1, n, rng, d2);
      if (!one_side) batch.right = random_design(right_kind, d2, n, rng);
      const Index measurements = right_kind == DesignSide::Kind::all ? n * d2 : n;
      batch.y = Vector::Zero(measurements);
      const std::string designs = one_side ? kind_name(left_kind) + " designs"
                                           : kind_name(left_kind) + " × " + kind_name(right_kind) + " designs";
      LowRankModel model;
      model.left = Matrix(d1, k);
      model.right = Matrix(d2, k);
      rng.fill_normal(model.left.data(), model.left.size());
      rng.fill_normal(model.right.data(), model.right.size());
      Vector z(measurements);
      rng.fill_normal(z.data(), z.size());
      const Matrix adjoint = op->adjoint_dense(batch, z);
      check("adjoint identity <A(M), z> = <M, A'(z)> (" + designs + ")", [&] {
        require(adjoint.rows() == d1 && adjoint.cols() == d2, "adjoint_dense is " + std::to_string(adjoint.rows()) + " × " +
                                                                   std::to_string(adjoint.cols()) + ", expected d1 × d2");
        const Vector forward = op->forward(batch, model);
        require(forward.size() == measurements, "forward gave " + std::to_string(forward.size()) + " measurements for " +
                                                    std::to_string(measurements));
        const double lhs = forward.dot(z), rhs = (model.dense().array() * adjoint.array()).sum();
        require(relative_gap(lhs, rhs) < kIdentityTolerance, number(lhs) + " against " + number(rhs));
        return "relative gap " + number(relative_gap(lhs, rhs));
      });
      check("matrix-free adjoint products equal the dense form (" + designs + ")", [&] {
        Matrix right_factor(d2, k), left_factor(d1, k);
        rng.fill_normal(right_factor.data(), right_factor.size());
        rng.fill_normal(left_factor.data(), left_factor.size());
        const double times = relative_gap(op->adjoint_times(batch, z, right_factor), adjoint * right_factor);
        const double transpose = relative_gap(op->adjoint_transpose_times(batch, z, left_factor), adjoint.transpose() * left_factor);
        require(times < kIdentityTolerance, "adjoint_times differs from adjoint_dense · Z by " + number(times));
        require(transpose < kIdentityTolerance, "adjoint_transpose_times differs from adjoint_dense' · Z by " + number(transpose));
        const auto [pair_times, pair_transpose] = op->adjoint_pair(batch, z, right_factor, left_factor);
        const double pair = std::max(relative_gap(pair_times, adjoint * right_factor),
                                     relative_gap(pair_transpose, adjoint.transpose() * left_factor));
        require(pair < kIdentityTolerance, "adjoint_pair differs from (adjoint_dense · R, adjoint_dense' · L) by " + number(pair));
        return "relative gaps " + number(times) + ", " + number(transpose) + ", pair " + number(pair);
      });
      if (op->has_first_order())
        check("first-order adjoint identity <a'w, z> = <w, Σ z_i a_i> (" + designs + ")", [&] {
          LowRankModel linear;
          linear.left = Matrix::Zero(d1, 1);
          linear.right = Matrix::Zero(d2, 1);
          linear.w = Vector(d1);
          rng.fill_normal(linear.w.data(), d1);
          const double lhs = op->forward(batch, linear).dot(z), rhs = linear.w.dot(op->first_order_adjoint(batch, z));
          require(relative_gap(lhs, rhs) < kIdentityTolerance, number(lhs) + " against " + number(rhs));
          return "relative gap " + number(relative_gap(lhs, rhs));
        });
    }
  }
}

void Checker::source_checks() {
  check("serves batches of its declared shape", [&] {
    auto source = registry_.create<DataSource>(resolved_, Kind::data_source);
    source->open(kSeed);
    const Batch b = source->next(8);
    require(b.size() > 0, "the first batch is empty");
    require(source->samples_drawn() == b.size(), "samples_drawn() is " + std::to_string(source->samples_drawn()) +
                                                    " after a batch of " + std::to_string(b.size()));
    require(b.left.dim == source->shape().d1, "left designs of dimension " + std::to_string(b.left.dim) +
                                                  ", shape().d1 = " + std::to_string(source->shape().d1));
    require(b.d2() == source->shape().d2, "the batch measures " + std::to_string(b.d2()) +
                                              " columns of M, shape().d2 = " + std::to_string(source->shape().d2));
    require(b.y.allFinite(), "non-finite responses");
    return std::to_string(b.size()) + " measurements, d1 = " + std::to_string(source->shape().d1) +
           ", d2 = " + std::to_string(source->shape().d2);
  });
  check("the same seed gives the same data", [&] {
    auto first = registry_.create<DataSource>(resolved_, Kind::data_source);
    auto second = registry_.create<DataSource>(resolved_, Kind::data_source);
    first->open(kSeed);
    second->open(kSeed);
    const Batch a = first->next(8), b = second->next(8);
    require(a.y == b.y && a.left.to_dense() == b.left.to_dense(), "two sources opened with one seed served different batches");
    return std::string();
  });
}

void Checker::estimator_checks() {
  const int kSteps = 3;
  auto run = [&](std::string& detail) {
    auto data = open_example_data(kSeed);
    auto estimator = registry_.create<Estimator>(resolved_, Kind::estimator);
    Rng rng(kSeed + 1);
    estimator->start(*data, rng);
    int steps = 0;
    if (estimator->summary().status == Status::running)
      while (steps < kSteps && estimator->step(*data)) ++steps;
    const Summary summary = estimator->summary();
    require(summary.status != Status::failed, "failed: " + summary.message);
    const Estimate e = estimator->estimate();
    const ProblemShape shape = data->shape();
    require(e.rows() == shape.d1 && e.cols() == shape.d2, "an estimate of " + std::to_string(e.rows()) + " × " +
                                                              std::to_string(e.cols()) + " for data of " +
                                                              std::to_string(shape.d1) + " × " + std::to_string(shape.d2));
    require(e.all_finite(), "non-finite numbers in the estimate after " + std::to_string(steps) + " steps");
    detail = std::to_string(steps) + " steps on " + example_data_ref().dump() + ", status " + to_string(summary.status);
    return e;
  };
  Estimate first;
  check("runs start and step on its example data with finite estimates", [&] {
    std::string detail;
    first = run(detail);
    return detail;
  });
  if (report_.checks.back().passed)
    check("the same seed gives the same estimate", [&] {
      std::string detail;
      const Estimate second = run(detail);
      require(first.dense() == second.dense() && first.w == second.w && first.bias == second.bias,
              "two runs from one seed ended at different estimates");
      return std::string();
    });
}

void Checker::metric_checks() {
  check("evaluates to finite values on its example data", [&] {
    auto data = open_example_data(kSeed);
    auto metric = registry_.create<Metric>(resolved_, Kind::metric);
    const GroundTruth* truth = data->truth();
    require(truth != nullptr, "its example data " + example_data_ref().dump() + " has no planted truth to evaluate");
    require(!metric->needs_test_set() || data->test_set() != nullptr,
            "it needs a test set and its example data " + example_data_ref().dump() + " has none");
    const MetricContext ctx{*truth, truth, data->test_set(), data->sensing_operator(), data->link(), 0, 0.0, 0};
    const MetricValues values = metric->evaluate(ctx);
    if (values.empty()) return std::string("no values (a metric that only writes, e.g. a file)");
    std::string detail;
    for (const auto& [name, value] : values) {
      require(!name.empty(), "a value without a name");
      require(std::isfinite(value), name + " = " + number(value));
      detail += (detail.empty() ? "" : ", ") + name + " = " + number(value);
    }
    return detail;
  });
}

void Checker::initializer_checks() {
  const Index kRank = plugin_.start_rank > 0 ? plugin_.start_rank : 2;
  auto start = [&](std::string& detail) {
    auto data = open_example_data(kSeed);
    auto init = registry_.create<Initializer>(resolved_, Kind::initializer);
    StartRequest request;
    request.rank = kRank;
    request.first_order = true;
    request.batch_size = 500;
    request.read = [&](Index n) { return data->next(n); };
    Rng rng(kSeed + 2);
    Start s = init->initialize(*data, request, rng);
    require(s.ok, "no start on " + example_data_ref().dump() + ": " + s.failure);
    const ProblemShape shape = data->shape();
    const Index d2 = shape.symmetric ? shape.d1 : shape.d2;
    require(s.model.rows() == shape.d1 && s.model.cols() == d2 && s.model.rank() == kRank,
            "a start of " + std::to_string(s.model.rows()) + " × " + std::to_string(s.model.cols()) + ", rank " +
                std::to_string(s.model.rank()) + " for data of " + std::to_string(shape.d1) + " × " + std::to_string(d2) +
                " and rank " + std::to_string(kRank));
    require(s.model.all_finite(), "non-finite numbers in the start");
    if (s.basis.size() > 0) {
      const double off = (s.basis.transpose() * s.basis - Matrix::Identity(s.basis.cols(), s.basis.cols())).cwiseAbs().maxCoeff();
      require(s.basis.rows() == shape.d1 && off < 1e-10, "the basis is not d1 × k orthonormal (max |B'B − I| = " + number(off) + ")");
    }
    detail = "rank-" + std::to_string(kRank) + " start on " + example_data_ref().dump() + ", " +
             std::to_string(data->samples_drawn()) + " samples read";
    return s.model;
  };
  LowRankModel first;
  check("starts on its example data with a finite model of the data's shape", [&] {
    std::string detail;
    first = start(detail);
    return detail;
  });
  if (report_.checks.back().passed)
    check("the same seed gives the same start", [&] {
      std::string detail;
      const LowRankModel second = start(detail);
      require(first.dense() == second.dense() && first.w == second.w, "two starts from one seed differ");
      return std::string();
    });
}

}  // namespace

ConformanceReport check_plugin(const Registry& registry, const Registration& plugin, const ConformanceObserver& observer) {
  return Checker(registry, plugin, observer).run();
}

}  // namespace rankone
