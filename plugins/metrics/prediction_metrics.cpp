// Prediction quality on the held-out test set: RMSE, the amplitudes' relative error, average AUC over labels,
// Hamming loss.
// Predictions are the operator's scores 𝒜(M) (+ a'w + bias) of the estimate, before any link.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <numeric>
#include <vector>

#include "metrics.hpp"
#include "rankone/core/atomic_file.hpp"
#include "rankone/core/predictions.hpp"

namespace rankone::metrics {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

/// The ±1 class of a score or label, with sign(0) = +1 (the convention of the sign link).
double sign_of(double v) { return v >= 0.0 ? 1.0 : -1.0; }

Vector predictions(const MetricContext& ctx) { return ctx.op.forward(*ctx.test, ctx.estimate); }

/// Area under the ROC curve of the measurements `members`, positives being labels > 0: the
/// Mann–Whitney statistic with average ranks for tied scores. NaN when one class is absent.
double area_under_curve(const Vector& scores, const Vector& labels, std::vector<Index> members) {
  std::sort(members.begin(), members.end(), [&](Index a, Index b) { return scores(a) < scores(b); });
  double positive_rank_sum = 0.0;
  Index positives = 0;
  for (std::size_t start = 0; start < members.size();) {
    std::size_t end = start;
    while (end < members.size() && scores(members[end]) == scores(members[start])) ++end;
    const double average_rank = 0.5 * static_cast<double>(start + 1 + end);  // ranks start+1 … end
    for (std::size_t i = start; i < end; ++i)
      if (labels(members[i]) > 0.0) {
        positive_rank_sum += average_rank;
        ++positives;
      }
    start = end;
  }
  const double p = static_cast<double>(positives);
  const double n = static_cast<double>(members.size()) - p;
  if (p == 0.0 || n == 0.0) return kNaN;
  return (positive_rank_sum - p * (p + 1.0) / 2.0) / (p * n);
}

/// Measurement indices grouped by the label (right-side index) they belong to; one group for
/// dense or absent right designs.
std::vector<std::vector<Index>> groups_by_label(const Batch& test) {
  const Index m = test.size();
  if (!test.right || test.right->kind == DesignSide::Kind::dense || test.right->kind == DesignSide::Kind::sparse) {
    std::vector<Index> all(static_cast<std::size_t>(m));
    std::iota(all.begin(), all.end(), Index{0});
    return {std::move(all)};
  }
  const DesignSide& right = *test.right;
  std::vector<std::vector<Index>> groups(static_cast<std::size_t>(right.dim));
  if (right.kind == DesignSide::Kind::index) {
    for (Index i = 0; i < m; ++i) groups[static_cast<std::size_t>(right.index(i))].push_back(i);
  } else {  // all: measurement i + n·j belongs to label j
    const Index n = test.instances();
    for (Index j = 0; j < right.dim; ++j)
      for (Index i = 0; i < n; ++i) groups[static_cast<std::size_t>(j)].push_back(i + n * j);
  }
  return groups;
}

/// Root mean squared error of the predicted scores against the test responses.
class TestRmse final : public Metric {
 public:
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    if (ctx.test->empty()) return {{"test_rmse", kNaN}};
    const Vector residual = predictions(ctx) - ctx.test->y;
    return {{"test_rmse", std::sqrt(residual.squaredNorm() / static_cast<double>(residual.size()))}};
  }
};

/// ‖√max(ŷ, 0) − √max(y, 0)‖ / ‖√max(y, 0)‖: phase retrieval's measurement error on the amplitudes |a_i'x̂|
/// (PhasePack's), free of the signal's sign and defined without a planted truth.
class AmplitudeError final : public Metric {
 public:
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    if (ctx.test->empty()) return {{"amplitude_error", kNaN}};
    const Vector predicted = predictions(ctx).cwiseMax(0.0).cwiseSqrt();
    const Vector observed = ctx.test->y.cwiseMax(0.0).cwiseSqrt();
    const double scale = observed.norm();
    // every response zero or negative: the predicted amplitudes' norm, as relative_error_M does with M* = 0
    return {{"amplitude_error", (predicted - observed).norm() / (scale > 0.0 ? scale : 1.0)}};
  }
};

/// Writes the test set's predictions to a file at every evaluation (the last one stays): the
/// format of `rankone predict`, so a saved model's predictions can be compared byte for byte.
class ExportPredictions final : public Metric {
 public:
  explicit ExportPredictions(std::string path) : path_(std::move(path)) {}
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const std::filesystem::path path(path_);
    if (std::filesystem::exists(path) && !std::filesystem::is_regular_file(path)) {  // /dev/null, a pipe: as it is
      std::ofstream out(path);
      write_predictions(out, *ctx.test, predictions(ctx));
      if (!out) throw DataError(path_ + ": cannot write the predictions (parameter path of export_predictions)");
      return {};
    }
    AtomicFile file(path);  // a regular file is replaced whole: a reader never sees half the predictions
    write_predictions(file.stream(), *ctx.test, predictions(ctx));
    file.commit();
    return {};
  }

 private:
  std::string path_;
};

/// AUC averaged over labels; labels whose test measurements are all of one class are skipped.
class AverageAuc final : public Metric {
 public:
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    const Vector scores = predictions(ctx);
    double sum = 0.0;
    Index used = 0;
    Index skipped = 0;
    for (auto& group : groups_by_label(*ctx.test)) {
      const double auc = area_under_curve(scores, ctx.test->y, std::move(group));
      if (std::isnan(auc)) {
        ++skipped;
      } else {
        sum += auc;
        ++used;
      }
    }
    return {{"auc", used > 0 ? sum / static_cast<double>(used) : kNaN},
            {"auc_skipped_labels", static_cast<double>(skipped)}};
  }
};

/// Fraction of test measurements whose predicted sign differs from the label's.
class HammingLoss final : public Metric {
 public:
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override {
    if (ctx.test->empty()) return {{"hamming_loss", kNaN}};
    const Vector scores = predictions(ctx);
    Index wrong = 0;
    for (Index i = 0; i < scores.size(); ++i) wrong += sign_of(scores(i)) != sign_of(ctx.test->y(i));
    return {{"hamming_loss", static_cast<double>(wrong) / static_cast<double>(scores.size())}};
  }
};

template <class M>
Registration registration(std::string name, std::string summary, std::string citation = "") {
  Registration r;
  r.kind = Kind::metric;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.citation = std::move(citation);
  r.doc_page = "docs/plugins/metrics.md";
  r.factory = [](const Params&, const BuildContext&) { return std::make_unique<M>(); };
  // The scores of every test measurement, the forward map's temporaries and a residual or ranking.
  r.footprint = [](const Params&, const FootprintContext& c) {
    const double n = c.data.test_instances;
    Footprint f;
    f.add("scores of the test set", 4 * dense_bytes(n, c.data.test_measurements_per_instance));
    return f;
  };
  return r;
}

}  // namespace

std::vector<Registration> prediction_metric_registrations() {
  std::vector<Registration> out;
  out.push_back(registration<TestRmse>("test_rmse", "RMSE of the predicted scores on the test set"));
  out.push_back(registration<AmplitudeError>(
      "amplitude_error",
      "relative error of the test set's amplitudes, ‖√max(ŷ, 0) − √max(y, 0)‖ / ‖√max(y, 0)‖ (phase retrieval's "
      "measurement error)",
      "PhasePack (Chandra et al. 2017), the measurement error ‖|Ax̂| − b‖/‖b‖ with b = √y"));
  out.push_back(registration<AverageAuc>(
      "auc", "AUC of the scores averaged over labels (right-side indices); one-class labels skipped",
      "Average AUC of the one-bit single-label multi-label paper (Qiu et al. 2017), Tables 1-2"));
  out.push_back(registration<HammingLoss>("hamming_loss", "fraction of test measurements with sign(score) ≠ label",
                                          "Prediction error (Hamming loss) of the one-bit single-label multi-label paper (2017), Figure 1"));
  Registration exported = registration<TestRmse>(
      "export_predictions",
      "writes the test set's predictions, one line per record as rankone predict writes them, at every evaluation "
      "(the last stays); reports no value");
  exported.schema.string("path", std::nullopt, "the file written (replaced at each evaluation; one trial per path)")
      .make_required();
  exported.example = {{"path", "/dev/null"}};
  exported.factory = [](const Params& p, const BuildContext&) { return std::make_unique<ExportPredictions>(p.string("path")); };
  out.push_back(std::move(exported));
  return out;
}

}  // namespace rankone::metrics
