// The data source '@name@': an endless stream of y = x'M*x + ξ with standard Gaussian x and a planted
// symmetric M* = U diag(λ) U' of rank k, λ alternating 1, −1, 1, … (an indefinite model), measured
// through the built-in `symmetric_rank_one` operator. Replace `open` and `produce` with your data
// (a simulator, a file format); the rest is what every source needs.
#include <memory>
#include <string>

#include <rankone/rankone.hpp>

namespace {

using namespace rankone;

class @Name@ final : public DataSource {
 public:
  @Name@(Index d, Index rank, double noise_std, std::unique_ptr<SensingOperator> op)
      : d_(d), rank_(rank), noise_std_(noise_std), op_(std::move(op)) {}

  /// Draws the truth from `seed`, then positions the stream at its start (same seed, same data).
  void open(std::uint64_t seed) override {
    rng_ = Rng(seed);
    Matrix gaussian(d_, rank_);
    rng_.fill_normal(gaussian.data(), gaussian.size());
    const Matrix basis = Eigen::HouseholderQR<Matrix>(gaussian).householderQ() * Matrix::Identity(d_, rank_);
    Vector values(rank_);
    for (Index j = 0; j < rank_; ++j) values(j) = j % 2 == 0 ? 1.0 : -1.0;
    truth_ = LowRankModel::symmetric_from_eigen(basis, values);
  }

  ProblemShape shape() const override { return {d_, d_, true}; }
  const SensingOperator& sensing_operator() const override { return *op_; }
  bool finite() const override { return false; }
  const GroundTruth* truth() const override { return &truth_; }

 protected:
  Batch produce(Index n) override {
    Matrix x(d_, n);
    rng_.fill_normal(x.data(), x.size());
    Batch batch;
    batch.left = DesignSide::make_dense(std::move(x));
    batch.y = op_->forward(batch, truth_);
    if (noise_std_ > 0) {
      Vector noise(n);
      rng_.fill_normal(noise.data(), n);
      batch.y += noise_std_ * noise;
    }
    return batch;
  }

 private:
  Index d_, rank_;
  double noise_std_;
  std::unique_ptr<SensingOperator> op_;
  Rng rng_{0};
  GroundTruth truth_;
};

/// It serves dense designs of dimension d (d doubles and a response per instance) and holds the truth.
Footprint footprint(const Params& p, const FootprintContext&) {
  const double d = static_cast<double>(p.integer("d"));
  Footprint f;
  f.data.shape = ProblemShape{p.integer("d"), p.integer("d"), true};
  f.data.instance_bytes = dense_bytes(d + 1, 1);
  f.data.has_truth = true;
  f.add("truth", dense_bytes(2 * d, static_cast<double>(p.integer("rank"))));
  return f;
}

PluginDescriptor describe_plugin() {
  Registration r;
  r.kind = Kind::data_source;
  r.name = "@name@";
  r.version = "0.1";
  r.summary = "endless y = x'M*x + noise, Gaussian x, planted indefinite M* of rank k (a template: replace it)";
  r.doc_page = "@name@.md";
  r.schema.integer("d", 20, "dimension d of x (M* is d × d)").at_least(1);
  r.schema.integer("rank", 2, "rank k of M*").at_least(1);
  r.schema.number("noise_std", 0.0, "standard deviation of the Gaussian noise ξ").at_least(0.0);
  r.factory = [](const Params& p, const BuildContext& build) -> std::unique_ptr<Component> {
    if (p.integer("rank") > p.integer("d")) throw ConfigError("at " + p.path_of("rank") + ": expected a rank ≤ d");
    // The measurement map comes from the registry, like any plugin an experiment names.
    auto op = build.registry.create<SensingOperator>(Json{{"name", "symmetric_rank_one"}, {"first_order", false}},
                                                     Kind::sensing_operator, p.path_of("operator"));
    return std::make_unique<@Name@>(p.integer("d"), p.integer("rank"), p.number("noise_std"), std::move(op));
  };
  r.footprint = footprint;
  PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe_plugin)
