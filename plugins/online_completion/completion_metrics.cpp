// Metrics for completion on real data: relative error and PSNR on the held-out entries, and the
// export of the completed matrix (for figures such as an inpainted image).
#include "completion_metrics.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>

#include "rankone/core/errors.hpp"

namespace rankone::online_completion {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

double relative_error(const Vector& predicted, const Vector& observed) {
  if (observed.size() == 0) return kNaN;
  const double norm = observed.norm();
  const double error = (predicted - observed).norm();
  return norm > 0.0 ? error / norm : error;
}

double psnr(const Vector& predicted, const Vector& observed, double peak) {
  if (observed.size() == 0) return kNaN;
  const double mse = (predicted - observed).squaredNorm() / static_cast<double>(observed.size());
  return 10.0 * std::log10(peak * peak / std::max(mse, kPsnrMseFloor));
}

namespace {

class TestRelativeError final : public Metric {
 public:
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    return {{"test_relative_error", relative_error(ctx.op.forward(*ctx.test, ctx.estimate), ctx.test->y)}};
  }
};

class TestPsnr final : public Metric {
 public:
  explicit TestPsnr(double peak) : peak_(peak) {}
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    return {{"test_psnr", psnr(ctx.op.forward(*ctx.test, ctx.estimate), ctx.test->y, peak_)}};
  }

 private:
  double peak_;
};

/// Writes the completed matrix L R' + bias (and optionally the held-out entries) at every evaluation, so the file
/// holds the final estimate when the trial ends. Reports no value.
class ExportMatrix final : public Metric {
 public:
  ExportMatrix(std::string path, std::string test_path) : path_(std::move(path)), test_path_(std::move(test_path)) {}
  MetricValues evaluate(const MetricContext& ctx) const override {
    Matrix completed = ctx.estimate.dense();  // every entry's prediction: L R' + bias
    completed.array() += ctx.estimate.bias;
    write_matrix(completed);
    if (!test_path_.empty() && ctx.test) write_test(*ctx.test);
    return {};
  }

 private:
  void write_matrix(const Matrix& M) const {
    std::ofstream out(path_);
    if (!out) throw DataError(path_ + ": cannot write the exported matrix (parameter path of export_matrix)");
    char number[32];
    for (Index i = 0; i < M.rows(); ++i) {
      for (Index j = 0; j < M.cols(); ++j) {
        std::snprintf(number, sizeof number, "%.9g", M(i, j));
        if (j > 0) out << ',';
        out << number;
      }
      out << '\n';
    }
  }
  void write_test(const Batch& test) const {
    std::ofstream out(test_path_);
    if (!out) throw DataError(test_path_ + ": cannot write the held-out entries (parameter test_path of export_matrix)");
    if (!test.right || test.left.kind != DesignSide::Kind::index || test.right->kind != DesignSide::Kind::index)
      throw ConfigError("export_matrix: test_path needs a test set of single entries (operator \"entry\")");
    out << "row,col,value\n";
    for (Index t = 0; t < test.size(); ++t)
      out << test.left.index(t) << ',' << test.right->index(t) << ',' << test.y(t) << '\n';
  }
  std::string path_, test_path_;
};

Registration metric_registration(std::string name, std::string summary) {
  Registration r;
  r.kind = Kind::metric;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.doc_page = "docs/plugins/completion_metrics.md";
  // Predictions on the test entries, their differences and the forward map's temporaries.
  r.footprint = [](const Params&, const FootprintContext& c) {
    Footprint f;
    f.add("predictions on the test set", 6 * dense_bytes(c.data.test_instances, c.data.test_measurements_per_instance));
    return f;
  };
  return r;
}

}  // namespace

std::vector<Registration> completion_metric_registrations() {
  std::vector<Registration> out;
  Registration relative = metric_registration(
      "test_relative_error", "‖ŷ − y‖₂ / ‖y‖₂ over the held-out measurements (relative Frobenius error on the "
                             "unobserved entries)");
  relative.factory = [](const Params&, const BuildContext&) { return std::make_unique<TestRelativeError>(); };
  out.push_back(std::move(relative));

  Registration peak = metric_registration("test_psnr", "peak signal-to-noise ratio 10 log10(peak² / MSE) of the "
                                                       "predictions on the held-out measurements, in dB");
  peak.schema.number("peak", 1.0, "the largest possible value (1 for pixels scaled to [0, 1], 255 for bytes)")
      .above(0.0);
  peak.factory = [](const Params& p, const BuildContext&) { return std::make_unique<TestPsnr>(p.number("peak")); };
  out.push_back(std::move(peak));

  Registration dump = metric_registration(
      "export_matrix", "writes the estimate M as a dense CSV (d1 lines of d2 numbers) at every evaluation; "
                       "reports no value (small matrices, one trial per path)");
  dump.schema.string("path", std::nullopt, "the CSV file written (overwritten at each evaluation)").make_required();
  dump.schema.string("test_path", "", "when not empty, also write the held-out entries as row,col,value CSV");
  dump.example = {{"path", "/dev/null"}};
  dump.factory = [](const Params& p, const BuildContext&) {
    return std::make_unique<ExportMatrix>(p.string("path"), p.string("test_path"));
  };
  dump.footprint = [](const Params&, const FootprintContext& c) {  // M formed densely (for a moment twice when symmetrised)
    Footprint f;
    f.add("the dense estimate (d1 × d2)", dense_bytes(static_cast<double>(c.data.shape.d1), static_cast<double>(c.data.shape.d2)));
    return f;
  };
  out.push_back(std::move(dump));
  return out;
}

}  // namespace rankone::online_completion
