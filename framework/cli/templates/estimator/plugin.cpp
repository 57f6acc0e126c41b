// The estimator '@name@': resampled subspace iteration for y = x'w + x'Mx with symmetric M of rank k.
// It starts from the spectral estimate of one batch and then, on each fresh batch, adds the moment
// estimate of the remaining error to the current model and keeps its top-k part. Replace `iterate`
// with your algorithm; the rest (parameters, footprint, entry point) is what every estimator needs.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

#include <rankone/rankone.hpp>

namespace {

using namespace rankone;

class @Name@ final : public IterativeEstimator {
 public:
  explicit @Name@(const Params& p)
      : IterativeEstimator(static_cast<int>(p.integer("max_iterations")), p.number("tolerance")),
        rank_(p.integer("rank")),
        requested_batch_size_(BatchReader::optional(p, "batch_size")),
        requested_passes_(BatchReader::optional(p, "passes")),
        divergence_factor_(p.number("divergence_factor")) {}

  void start(DataSource& data, Rng& rng) override {
    const ProblemShape shape = data.shape();
    if (!data.sensing_operator().symmetric() || shape.d1 != shape.d2)
      return finish(Status::failed, "@name@ needs a symmetric operator (y = x'Mx), found a " +
                                        std::to_string(shape.d1) + " × " + std::to_string(shape.d2) + " problem");
    // The shared finite-data rule: unset batch_size and passes follow a finite file's size (printed).
    const BatchReader::Plan plan = BatchReader::choose(data, requested_batch_size_, requested_passes_, max_iterations_,
                                                       10 * shape.d1 * rank_, "@name@");
    batch_size_ = plan.batch_size;
    reader_.allow_passes(plan.passes);
    batch_note_ = plan.note;
    if (const std::string why = BatchReader::refusal(data, batch_size_, "batch_size"); !why.empty())
      return finish(Status::failed, why);
    // The spectral estimate of one batch: top-k eigenpairs of ½(𝒜'(y)/n − mean(y) I), and w = Σ y x / n.
    const Batch first = reader_.next(data, batch_size_);
    SpectralResult start = spectral_estimate(first, data.sensing_operator(), shape, rank_, /*first_order=*/true, rng);
    if (!start.ok) return finish(Status::failed, "no spectral start: " + start.failure);
    model_ = std::move(start.model);
    if (!model_.has_first_order()) model_.w = Vector::Zero(shape.d1);
  }

  Estimate estimate() const override { return model_; }

  /// The status, with how the batch was chosen when it came from the data.
  Summary summary() const override {
    Summary s = IterativeEstimator::summary();
    if (!batch_note_.empty()) s.notes.push_back(batch_note_);
    return s;
  }

 protected:
  double iterate(DataSource& data) override {
    const SensingOperator& op = data.sensing_operator();
    Batch batch = reader_.next(data, batch_size_);
    if (batch.instances() < batch_size_) {  // the data ended: a short last batch is never handed out
      finish(Status::max_iterations, reader_.exhausted_message(data, iteration()) + reader_.reuse_note(data));
      return -1.0;
    }
    const Vector residual = batch.y - op.forward(batch, model_);
    const double fit = residual.norm() / std::max(batch.y.norm(), 1e-300);
    // The shared divergence rule: the residual's RMS above divergence_factor × the responses' RMS.
    const double root_n = std::sqrt(static_cast<double>(residual.size()));
    if (end_if_diverged(residual.norm() / root_n, batch.y.norm() / root_n, divergence_factor_, iteration() + 1,
                        [] { return std::string("; the estimate is the one before this iteration"); }))
      return -1.0;
    // G = M + M̂(residual): the current model plus the moment estimate of what it still misses. The
    // maps refer to the batch and the residual, which must outlive them.
    const MomentMaps correction = moment_maps(batch, op, data.shape(), residual);
    // `-> Matrix`: an Eigen expression returned by `auto` would refer to temporaries that are gone.
    const auto apply_G = [&](const Matrix& Z) -> Matrix { return model_times(Z) + correction.times(Z); };
    const Matrix basis = Eigen::HouseholderQR<Matrix>(apply_G(model_.left)).householderQ() * Matrix::Identity(model_.rows(), rank_);
    LowRankModel next;
    next.left = basis;
    next.right = apply_G(basis);  // M ≈ sym(U (GU)')
    next.symmetrize = true;
    // E[x x'] = I: the mean of r x estimates the error in w.
    next.w = model_.w + op.first_order_adjoint(batch, residual) / static_cast<double>(batch.size());
    const double change = difference_norms(next, &model_).frobenius / std::max(difference_norms(next, nullptr).frobenius, 1e-300);
    model_ = std::move(next);
    record_fresh_fit(fit, "relative residual on the fresh batch, before the step", std::move(batch), data);
    return change;
  }

 private:
  /// M Z for the current model, from its factors.
  Matrix model_times(const Matrix& Z) const {
    if (!model_.symmetrize) return model_.left * (model_.right.transpose() * Z);
    return 0.5 * (model_.left * (model_.right.transpose() * Z) + model_.right * (model_.left.transpose() * Z));
  }

  Index rank_;
  std::optional<Index> requested_batch_size_;  ///< none: from the data (BatchReader::choose)
  std::optional<Index> requested_passes_;
  double divergence_factor_;
  BatchReader reader_;
  Index batch_size_ = 0;  ///< resolved at start
  std::string batch_note_;
  LowRankModel model_;
};

/// Two batches (the one in use and the one kept for the noise floor) and the factors.
Footprint footprint(const Params& p, const FootprintContext& c) {
  double n = static_cast<double>(BatchReader::footprint_batch_size(p));
  if (c.data.training_instances > 0) n = std::min(n, c.data.training_instances);
  Footprint f;
  f.add("two batches of " + format_count(n) + " instances", 2 * batch_bytes(c.data, n));
  f.add("factors", dense_bytes(2.0 * static_cast<double>(c.data.shape.d1), static_cast<double>(p.integer("rank"))));
  return f;
}

PluginDescriptor describe_plugin() {
  Registration r;
  r.kind = Kind::estimator;
  r.name = "@name@";
  r.version = "0.1";
  r.summary = "resampled subspace iteration for y = x'w + x'Mx, symmetric M of rank k (a template: replace it)";
  r.citation = "";  // the paper and equation it implements
  r.doc_page = "@name@.md";
  r.schema.integer("rank", 2, "rank k of the estimate").at_least(1);
  BatchReader::declare_batch_size(r.schema, "instances per iteration (a fresh batch each time)");
  r.schema.integer("max_iterations", 30, "iteration budget").at_least(1);
  r.schema.number("tolerance", 1e-10, "stop when the relative change of M falls below this").at_least(0.0);
  BatchReader::declare_passes(r.schema);
  IterativeEstimator::declare_divergence_factor(r.schema);
  IterativeEstimator::declare_policy(r.schema);  // stall verdict; the registry reads these parameters
  r.example = {{"batch_size", 500}, {"max_iterations", 3}};
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> { return std::make_unique<@Name@>(p); };
  r.footprint = footprint;
  PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe_plugin)
