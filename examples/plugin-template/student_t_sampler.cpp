// An example plugin: a heavy-tailed design distribution, Student's t with ν degrees of freedom,
// scaled to unit variance. Copy this folder to start a plugin of your own.
#include <cmath>
#include <random>

#include <rankone/plugin/plugin_api.hpp>
#include <rankone/rankone.hpp>

namespace {

class StudentTSampler final : public rankone::Sampler {
 public:
  explicit StudentTSampler(double dof) : dof_(dof) {}

  rankone::DesignSide::Kind kind() const override { return rankone::DesignSide::Kind::dense; }

  void sample(rankone::Rng& rng, rankone::Index dim, rankone::Index n, rankone::DesignSide& out) const override {
    out = rankone::DesignSide::make_dense(rankone::Matrix(dim, n));
    // t = z / sqrt(χ²_ν / ν), scaled by sqrt((ν − 2)/ν) so that Var x = 1.
    std::gamma_distribution<double> half_chi2(dof_ / 2.0, 2.0);
    const double unit_variance = std::sqrt((dof_ - 2.0) / dof_);
    double* x = out.dense.data();
    rng.fill_normal(x, dim * n);
    for (rankone::Index i = 0; i < dim * n; ++i) x[i] *= unit_variance / std::sqrt(half_chi2(rng) / dof_);
  }

  rankone::Moments moments(rankone::Index) const override {
    rankone::Moments m;
    m.mean = 0.0;
    m.variance = 1.0;
    m.kappa = 0.0;
    m.phi = 3.0 * (dof_ - 2.0) / (dof_ - 4.0);  // finite for ν > 4
    return m;
  }

 private:
  double dof_;
};

rankone::PluginDescriptor describe_plugin() {
  rankone::Registration r;
  r.kind = rankone::Kind::sampler;
  r.name = "student_t";
  r.version = "1.0";
  r.summary = "Student's t designs with ν degrees of freedom, scaled to unit variance (heavy tails)";
  r.doc_page = "examples/plugin-template/README.md";
  r.schema.number("dof", 6.0, "degrees of freedom ν (> 4, so that E x⁴ is finite)").above(4.0);
  r.factory = [](const rankone::Params& p, const rankone::BuildContext&) -> std::unique_ptr<rankone::Component> {
    return std::make_unique<StudentTSampler>(p.number("dof"));
  };
  rankone::PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe_plugin)
