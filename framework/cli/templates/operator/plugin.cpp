// The sensing operator '@name@': quadratic sensing y_i = x_i' M x_i on dense designs (symmetric, no
// first-order term), written out with dense products so that each map is easy to read against the
// interface. Replace the four maps with your operator's; keep them adjoint to each other.
#include <memory>
#include <string>

#include <rankone/rankone.hpp>

namespace {

using namespace rankone;

class @Name@ final : public SensingOperator {
 public:
  bool symmetric() const override { return true; }
  bool has_first_order() const override { return false; }
  std::vector<DesignSide::Kind> accepted_left() const override { return {DesignSide::Kind::dense}; }
  std::vector<DesignSide::Kind> accepted_right() const override { return {DesignSide::Kind::dense}; }
  /// E[(x'Mx) x x'] = 2M + tr(M) I for standard Gaussian x: M = ½(𝒜'(y)/n − mean(y) I) on average.
  MomentInverse isotropic_inverse(const ProblemShape&) const override { return {0.5, 1.0}; }

  /// y_i = x_i' M x_i = Σ_k (x_i' L_k)(R_k' x_i), plus the intercept.
  Vector forward(const Batch& batch, const LowRankModel& model) const override {
    const Matrix& X = designs(batch);
    Vector y = ((X.transpose() * model.left).array() * (X.transpose() * model.right).array()).rowwise().sum();
    if (model.zero_diagonal) y -= X.array().square().matrix().transpose() * (model.left.array() * model.right.array()).rowwise().sum().matrix();
    return y.array() + model.bias;
  }
  /// 𝒜'(z) Z = X diag(z) X' Z: O(n d k), no d × d matrix.
  Matrix adjoint_times(const Batch& batch, const Vector& z, const Matrix& Z) const override {
    const Matrix& X = designs(batch);
    return X * (z.asDiagonal() * (X.transpose() * Z));
  }
  Matrix adjoint_transpose_times(const Batch& batch, const Vector& z, const Matrix& Z) const override {
    return adjoint_times(batch, z, Z);  // 𝒜'(z) is symmetric
  }
  Matrix adjoint_dense(const Batch& batch, const Vector& z) const override {
    const Matrix& X = designs(batch);
    return X * z.asDiagonal() * X.transpose();
  }
  /// No first-order term in the measurements; Σ_i z_i x_i for callers that estimate one anyway.
  Vector first_order_adjoint(const Batch& batch, const Vector& z) const override { return designs(batch) * z; }

 private:
  static const Matrix& designs(const Batch& batch) {
    if (batch.left.kind != DesignSide::Kind::dense)
      throw InputError("@name@: expected dense designs (a dense sampler, e.g. \"gaussian\")");
    return batch.left.dense;
  }
};

PluginDescriptor describe_plugin() {
  Registration r;
  r.kind = Kind::sensing_operator;
  r.name = "@name@";
  r.version = "0.1";
  r.summary = "quadratic sensing y = x'Mx on dense designs (a template: replace it)";
  r.doc_page = "@name@.md";
  r.factory = [](const Params&, const BuildContext&) -> std::unique_ptr<Component> { return std::make_unique<@Name@>(); };
  PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe_plugin)
