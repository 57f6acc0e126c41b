// The sampler '@name@': dense designs with i.i.d. Laplace coordinates of a chosen variance (heavier
// tails than Gaussian: τ = |E x⁴ − 1 − (E x³)²| = 5 at unit variance). Replace `sample` and
// `moments` with your distribution; the rest is what every sampler needs.
#include <cmath>
#include <memory>

#include <rankone/rankone.hpp>

namespace {

using namespace rankone;

class @Name@ final : public Sampler {
 public:
  explicit @Name@(double variance) : scale_(std::sqrt(variance / 2.0)) {}

  DesignSide::Kind kind() const override { return DesignSide::Kind::dense; }

  void sample(Rng& rng, Index dim, Index n, DesignSide& out) const override {
    Matrix x(dim, n);
    Vector sign_draws(dim * n);
    rng.fill_uniform(x.data(), x.size());
    rng.fill_uniform(sign_draws.data(), sign_draws.size());
    // b · (±1) · E with E = −log(1 − u) exponential: 1 − u lies in (0, 1], so the log is finite.
    for (Index i = 0; i < x.size(); ++i)
      x.data()[i] = scale_ * (sign_draws[i] < 0.5 ? -1.0 : 1.0) * -std::log(1.0 - x.data()[i]);
    out = DesignSide::make_dense(std::move(x));
  }

  /// Laplace(0, b): mean 0, variance 2b², E x³ = 0, E x⁴ = 24 b⁴.
  Moments moments(Index) const override {
    const double b2 = scale_ * scale_;
    Moments m;
    m.mean = 0.0;
    m.variance = 2.0 * b2;
    m.kappa = 0.0;
    m.phi = 24.0 * b2 * b2;
    return m;
  }

 private:
  double scale_;  ///< b
};

PluginDescriptor describe_plugin() {
  Registration r;
  r.kind = Kind::sampler;
  r.name = "@name@";
  r.version = "0.1";
  r.summary = "dense designs with i.i.d. Laplace coordinates of a given variance (a template: replace it)";
  r.doc_page = "@name@.md";
  r.schema.number("variance", 1.0, "variance of each coordinate (2b² for Laplace(0, b))").above(0.0);
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<@Name@>(p.number("variance"));
  };
  // One design vector of dimension d: d doubles.
  r.footprint = [](const Params&, const FootprintContext& c) {
    Footprint f;
    f.data.instance_bytes = dense_bytes(static_cast<double>(c.data.shape.d1), 1);
    return f;
  };
  PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe_plugin)
