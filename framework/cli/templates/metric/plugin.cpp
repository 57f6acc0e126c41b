// The metric '@name@': the relative Frobenius error of the estimate against the planted truth,
// ‖M − M*‖_F / ‖M*‖_F, formed densely (small problems). Replace `evaluate` with your measure; a
// metric may return several named values.
#include <memory>

#include <rankone/rankone.hpp>

namespace {

using namespace rankone;

class @Name@ final : public Metric {
 public:
  bool needs_truth() const override { return true; }

  MetricValues evaluate(const MetricContext& ctx) const override {
    Matrix estimate = ctx.estimate.dense(), truth = ctx.truth->dense();
    if (ctx.op.symmetric()) {  // x'Mx sees only the symmetric part of M
      estimate = 0.5 * (estimate + estimate.transpose()).eval();
      truth = 0.5 * (truth + truth.transpose()).eval();
    }
    const double reference = truth.norm();
    const double error = (estimate - truth).norm();
    return {{"@name@", reference > 0 ? error / reference : error}};
  }
};

PluginDescriptor describe_plugin() {
  Registration r;
  r.kind = Kind::metric;
  r.name = "@name@";
  r.version = "0.1";
  r.summary = "relative Frobenius error ‖M − M*‖_F / ‖M*‖_F, formed densely (a template: replace it)";
  r.doc_page = "@name@.md";
  r.factory = [](const Params&, const BuildContext&) -> std::unique_ptr<Component> { return std::make_unique<@Name@>(); };
  // Two dense d1 × d2 matrices while it evaluates.
  r.footprint = [](const Params&, const FootprintContext& c) {
    Footprint f;
    f.add("two dense matrices", 2 * dense_bytes(static_cast<double>(c.data.shape.d1), static_cast<double>(c.data.shape.d2)));
    return f;
  };
  PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe_plugin)
