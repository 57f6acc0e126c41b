// The estimator '@name@': gradient descent on the factors of M = L R' (with Tu et al.'s balancing
// term) for the least-squares loss of one fixed training set, y_i = <A_i, M> on any operator, from
// the shared start (`init`). Replace `advance` with your update rule: reading the training set, its
// fit, the divergence rule, the best iterate, the start, the held-out fit and the schema come from
// FixedSampleEstimator.
#include <algorithm>
#include <any>
#include <utility>

#include <rankone/estimation/fixed_sample_plugin.hpp>
#include <rankone/linalg/balanced_factors.hpp>
#include <rankone/rankone.hpp>

namespace {

using namespace rankone;

/// The parameters, declared once: the schema, the defaults and the fields all come from table().
struct @Name@Options : FixedSampleSettings, DeclaredOptions<@Name@Options> {
  Index rank;
  double step_size;

  static const OptionsTable<@Name@Options>& table() {
    static const OptionsTable<@Name@Options> t = [] {
      OptionsTable<@Name@Options> t;
      Schema& s = t.schema();
      t.bind(&@Name@Options::rank, s.integer("rank", 2, "rank k of the factors").at_least(1));
      t.bind(&@Name@Options::step_size, s.number("step_size", 0.5, "step η, divided by σ1 of the start").above(0.0));
      bind_fixed_sample_settings(t, 1000, "one gradient step each");  // max_iterations, tolerance, divergence_factor
      return t;
    }();
    return t;
  }
  @Name@Options() { read_defaults(); }
  explicit @Name@Options(const Params& p) { read(p); }
};

class @Name@ final : public FixedSampleEstimator {
 public:
  explicit @Name@(@Name@Options options) : FixedSampleEstimator(options), options_(std::move(options)) {}

  void start(DataSource& data, Rng& rng) override {
    if (!read_training_set(data, "@name@") || !rank_fits(options_.rank)) return;
    const Start s = initial_model(data, start_request(options_.rank), rng);  // spectral_init unless `init` says otherwise
    if (!s.ok) return finish(Status::failed, "no start: " + s.failure);
    // Balanced factors (U Σ^½, V Σ^½): the step η/σ1 then means the same at every scale of M.
    const BalancedFactors f = balanced_factors(s.model, options_.rank);
    model_.left = f.left;
    model_.right = f.right;
    model_.symmetrize = sensing().symmetric();
    step_ = options_.step_size / std::max(f.values(0), 1e-300);
  }

  Estimate estimate() const override { return model_; }

 protected:
  /// Both factors at once from the residual r of L R': L ← L − η (S R + ½ L D), R ← R − η (S'L − ½ R D),
  /// S the loss gradient (c/n) 𝒜'(r) applied matrix-free, D = L'L − R'R the gradient of the balancing
  /// term (1/8)‖L'L − R'R‖² (Tu et al. 2016). Returns the relative change of M.
  double advance(const Vector& r) override {
    const LowRankModel before = model_;
    const Matrix D = before.left.transpose() * before.left - before.right.transpose() * before.right;
    model_.left -= step_ * (gradient_times(r, before.right) + 0.5 * before.left * D);
    model_.right -= step_ * (gradient_transpose_times(r, before.left) - 0.5 * before.right * D);
    return difference_norms(model_, &before).frobenius / std::max(difference_norms(before, nullptr).frobenius, 1e-300);
  }
  /// What best-iterate keeping copies and puts back.
  std::any snapshot() const override { return model_; }
  void restore(const std::any& state) override { model_ = std::any_cast<const LowRankModel&>(state); }

 private:
  @Name@Options options_;
  double step_ = 0.0;
  LowRankModel model_;
};

/// The training set with the start's copy and the residuals (the base's), and the factors: the
/// current, previous and best ones and a gradient of each.
Footprint footprint(const Params& p, const FootprintContext& c) {
  const @Name@Options o(p);  // the parameters as the estimator reads them
  Footprint f = FixedSampleEstimator::training_footprint(c);
  const double rows = static_cast<double>(c.data.shape.d1 + c.data.shape.d2);
  f.add("factors: current, previous, best and gradients", 4 * dense_bytes(rows, static_cast<double>(o.rank)));
  return f;
}

PluginDescriptor describe_plugin() {
  return fixed_sample_plugin<@Name@, @Name@Options>(
      {"@name@", "factored gradient descent M = L R' on a fixed training set, any operator (a template: replace it)",
       "",  // the paper and equation it implements
       "spectral_init", Json{{"max_iterations", 5}}, footprint, nullptr, "@name@.md"});
}

}  // namespace

RANKONE_PLUGIN(describe_plugin)
