// Plugins that break one promise each, so that the conformance checks are shown to catch it: wrong
// declared moments, an operator whose maps are not adjoint, non-finite or irreproducible estimates,
// a source that ignores its seed, a metric that returns NaN, a parameter that nothing reads.
#include <cmath>
#include <limits>
#include <memory>

#include "rankone/rankone.hpp"

namespace {

using namespace rankone;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

class WrongMoments final : public Sampler {
 public:
  DesignSide::Kind kind() const override { return DesignSide::Kind::dense; }
  void sample(Rng& rng, Index dim, Index n, DesignSide& out) const override {
    Matrix x(dim, n);
    rng.fill_normal(x.data(), x.size());
    out = DesignSide::make_dense(std::move(x));
  }
  Moments moments(Index) const override {
    Moments m;
    m.phi = 3.3;  // a Gaussian's is 3
    return m;
  }
};

class NotAdjoint final : public SensingOperator {
 public:
  bool symmetric() const override { return true; }
  bool has_first_order() const override { return false; }
  std::vector<DesignSide::Kind> accepted_left() const override { return {DesignSide::Kind::dense}; }
  std::vector<DesignSide::Kind> accepted_right() const override { return {DesignSide::Kind::dense}; }
  MomentInverse isotropic_inverse(const ProblemShape&) const override { return {0.5, 1.0}; }
  Vector forward(const Batch& b, const LowRankModel& m) const override {
    const Matrix& X = b.left.dense;
    return 2.0 * ((X.transpose() * m.left).array() * (X.transpose() * m.right).array()).rowwise().sum().matrix();  // twice
  }
  Matrix adjoint_times(const Batch& b, const Vector& z, const Matrix& Z) const override { return adjoint_dense(b, z) * Z; }
  Matrix adjoint_transpose_times(const Batch&, const Vector&, const Matrix& Z) const override { return Matrix::Zero(Z.rows(), Z.cols()); }
  Matrix adjoint_dense(const Batch& b, const Vector& z) const override { return b.left.dense * z.asDiagonal() * b.left.dense.transpose(); }
  Vector first_order_adjoint(const Batch& b, const Vector& z) const override { return b.left.dense * z; }
};

/// Its estimate is NaN (`poison`) or changes from one instance to the next (a process-wide counter).
class BadEstimator final : public Estimator {
 public:
  explicit BadEstimator(bool poison) : poison_(poison) {}
  void start(DataSource& data, Rng&) override {
    static int instances = 0;
    model_.left = Matrix::Constant(data.shape().d1, 1, poison_ ? kNaN : ++instances);
    model_.right = Matrix::Ones(data.shape().d2, 1);
  }
  bool step(DataSource&) override { return false; }
  Estimate estimate() const override { return model_; }
  Summary summary() const override {
    Summary s;
    s.status = Status::converged;
    return s;
  }

 private:
  bool poison_;
  LowRankModel model_;
};

class UnseededSource final : public DataSource {
 public:
  void open(std::uint64_t seed) override {
    static std::uint64_t opened = 0;
    rng_ = Rng(seed + ++opened);  // ignores that the same seed must give the same data
  }
  ProblemShape shape() const override { return {4, 4, true}; }
  const SensingOperator& sensing_operator() const override { return op_; }
  bool finite() const override { return false; }

 protected:
  Batch produce(Index n) override {
    Matrix x(4, n);
    rng_.fill_normal(x.data(), x.size());
    Batch b;
    b.left = DesignSide::make_dense(std::move(x));
    b.y = Vector::Ones(n);
    return b;
  }

 private:
  Rng rng_{0};
  NotAdjoint op_;
};

class NaNMetric final : public Metric {
 public:
  MetricValues evaluate(const MetricContext&) const override { return {{"nan_metric", kNaN}}; }
};

template <class T, class... Args>
Registration plugin(Kind kind, const char* name, Args... args) {
  Registration r;
  r.kind = kind;
  r.name = name;
  r.summary = "breaks a conformance promise on purpose";
  r.doc_page = "tests/conformance/nonconforming_plugins.cpp";
  r.factory = [=](const Params&, const BuildContext&) -> std::unique_ptr<Component> { return std::make_unique<T>(args...); };
  return r;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.registrations.push_back(plugin<WrongMoments>(Kind::sampler, "wrong_moments"));
  d.registrations.push_back(plugin<NotAdjoint>(Kind::sensing_operator, "not_adjoint"));
  d.registrations.push_back(plugin<BadEstimator>(Kind::estimator, "nan_estimator", true));
  d.registrations.push_back(plugin<BadEstimator>(Kind::estimator, "irreproducible_estimator", false));
  d.registrations.push_back(plugin<UnseededSource>(Kind::data_source, "unseeded_source"));
  d.registrations.push_back(plugin<NaNMetric>(Kind::metric, "nan_metric"));
  // Declares `norm` and never reads it: a sweep over it would store identical trials under new keys.
  Registration unread = plugin<NaNMetric>(Kind::metric, "unread_parameter");
  unread.schema.choice("norm", "spectral", {"spectral", "frobenius"}, "which norm (ignored)");
  unread.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    (void)p.path();  // reads no parameter
    return std::make_unique<NaNMetric>();
  };
  d.registrations.push_back(std::move(unread));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe)
