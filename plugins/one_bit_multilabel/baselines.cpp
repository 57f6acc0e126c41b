#include "baselines.hpp"

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace rankone::one_bit {

namespace {

/// `training_size`, shared by the baselines, bound to BaselineSettings' field.
template <class Options>
void bind_training(OptionsTable<Options>& t) {
  t.bind(&BaselineSettings::training_size,
         t.schema()
             .integer("training_size", std::nullopt,
                      "instances in the fixed training set drawn at start; default: one pass of a finite source")
             .make_nullable()
             .at_least(1));
}

/// The Newton–CG settings shared by the baselines (`newton_steps` defaults differ), bound to NewtonOptions' fields.
template <class Options>
void bind_newton(OptionsTable<Options>& t, std::int64_t newton_steps) {
  Schema& s = t.schema();
  t.bind(&NewtonOptions::newton_steps,
         s.integer("newton_steps", newton_steps, "Newton steps per solve (each a conjugate-gradient solve)").at_least(1));
  t.bind(&NewtonOptions::cg_iterations,
         s.integer("cg_iterations", 50, "conjugate-gradient iterations per Newton step").at_least(1));
  t.bind(&NewtonOptions::cg_tolerance,
         s.number("cg_tolerance", 1e-6, "CG stops when ‖residual‖ ≤ cg_tolerance · ‖gradient‖").above(0.0));
}

/// θ = W (d1 × d2) seen through the operator: scores 𝒜(W) and adjoint 𝒜'(g), with W stored as the
/// factored model (W, I). Costs O(n d1 d2): for the unconstrained baselines only.
LinearScores full_matrix_map(const Batch& batch, const SensingOperator& op, Index d2) {
  auto identity = std::make_shared<Matrix>(Matrix::Identity(d2, d2));
  LinearScores map;
  map.scores = [&batch, &op, identity](const Matrix& W) {
    LowRankModel m;
    m.left = W;
    m.right = *identity;
    return op.forward(batch, m);
  };
  map.adjoint = [&batch, &op, identity](const Vector& g) { return op.adjoint_times(batch, g, *identity); };
  return map;
}

}  // namespace

// ---- leml ----

/// The training set of `leml` as LEML's own code holds it: X, the distinct feature vectors (d1 × m),
/// and per observation t its instance u_t and label j_t, with scores s_t = c · x_{u_t}' U V(j_t, :)'.
/// Matrices over instances and labels are kept transposed (k × m, k × d2) so that the per-observation
/// loops read contiguous columns.
struct ObservedEntries {
  bool sparse = false;
  /// X, d1 × m: the batch's own left designs when every one is distinct (no copy), else own_dense or
  /// own_sparse, the distinct ones.
  const Matrix* x_dense = nullptr;
  const SparseMatrix* x_sparse = nullptr;
  Matrix own_dense;
  SparseMatrix own_sparse;
  std::vector<Index> instance, label;
  std::vector<Index> order, start;  ///< observations grouped by instance: order[start[u] .. start[u+1])
  Index labels = 0;
  double c = 1.0;  ///< the operator's factor (√d2 for single_label), measured on a probe

  Index instances() const { return sparse ? x_sparse->cols() : x_dense->cols(); }
  /// F' X: k × m.
  Matrix project(const Matrix& F) const {
    Matrix out(F.cols(), instances());
    if (sparse) {
      out.noalias() = F.transpose() * (*x_sparse);
    } else {
      out.noalias() = F.transpose() * (*x_dense);
    }
    return out;
  }
  /// X Wt': d1 × k (Wt is k × m).
  Matrix accumulate(const Matrix& Wt) const {
    Matrix out(sparse ? x_sparse->rows() : x_dense->rows(), Wt.rows());
    if (sparse) {
      out.noalias() = (*x_sparse) * Wt.transpose();
    } else {
      out.noalias() = (*x_dense) * Wt.transpose();
    }
    return out;
  }
  /// s_t = P(:, u_t) · Q(:, j_t) for P k × m over instances and Q k × d2 over labels.
  Vector scores(const Matrix& P, const Matrix& Q) const {
    Vector s(static_cast<Index>(instance.size()));
    for (std::size_t t = 0; t < instance.size(); ++t) s(static_cast<Index>(t)) = P.col(instance[t]).dot(Q.col(label[t]));
    return s;
  }
  /// Σ_t g_t Q(:, j_t) into column u_t: k × m.
  Matrix by_instance(const Vector& g, const Matrix& Q) const {
    Matrix out = Matrix::Zero(Q.rows(), instances());
    for (std::size_t t = 0; t < instance.size(); ++t) out.col(instance[t]) += g(static_cast<Index>(t)) * Q.col(label[t]);
    return out;
  }
  /// accumulate(by_instance(h ∘ s, Q)) with s = scores(project(D), Q) written out: the Hessian
  /// product of a U solve in one pass over X, a block of instances at a time (the block's columns of X
  /// stay in cache between the two products). The same sums as the separate calls, grouped by block.
  Matrix curvature(const Matrix& D, const Vector& h, const Matrix& Q, Vector& s) const {
    constexpr Index kBlock = 256;
    const Index k = D.cols(), m = instances();
    Matrix out = Matrix::Zero(sparse ? x_sparse->rows() : x_dense->rows(), k);
    Matrix P(k, std::min(kBlock, m)), W(k, std::min(kBlock, m));
    s.resize(static_cast<Index>(instance.size()));
    for (Index first = 0; first < m; first += kBlock) {
      const Index b = std::min(kBlock, m - first);
      auto Pb = P.leftCols(b);
      auto Wb = W.leftCols(b);
      if (sparse) {
        Pb.noalias() = D.transpose() * x_sparse->middleCols(first, b);
      } else {
        Pb.noalias() = D.transpose() * x_dense->middleCols(first, b);
      }
      Wb.setZero();
      for (Index u = 0; u < b; ++u) {
        const auto begin = start[static_cast<std::size_t>(first + u)], end = start[static_cast<std::size_t>(first + u + 1)];
        for (Index p = begin; p < end; ++p) {
          const Index t = order[static_cast<std::size_t>(p)];
          const Index j = label[static_cast<std::size_t>(t)];
          const double st = Pb.col(u).dot(Q.col(j));
          s(t) = st;
          Wb.col(u) += (h(t) * st) * Q.col(j);
        }
      }
      if (sparse) {
        out.noalias() += x_sparse->middleCols(first, b) * Wb.transpose();
      } else {
        out.noalias() += x_dense->middleCols(first, b) * Wb.transpose();
      }
    }
    return out;
  }
  /// Σ_t g_t P(:, u_t) into column j_t: k × d2.
  Matrix by_label(const Vector& g, const Matrix& P) const {
    Matrix out = Matrix::Zero(P.rows(), labels);
    for (std::size_t t = 0; t < instance.size(); ++t) out.col(label[t]) += g(static_cast<Index>(t)) * P.col(instance[t]);
    return out;
  }
};

namespace {

/// A hash of design column i's bytes (dense: its values; sparse: its row indices and values).
std::size_t column_hash(const DesignSide& side, Index i) {
  const auto bytes = [](const auto* data, std::ptrdiff_t count) {
    return std::string_view(reinterpret_cast<const char*>(data), static_cast<std::size_t>(count) * sizeof(*data));
  };
  if (side.kind == DesignSide::Kind::dense) return std::hash<std::string_view>{}(bytes(side.dense.col(i).data(), side.dense.rows()));
  const auto begin = side.sparse.outerIndexPtr()[i], end = side.sparse.outerIndexPtr()[i + 1];
  const std::size_t h = std::hash<std::string_view>{}(bytes(side.sparse.innerIndexPtr() + begin, end - begin));
  return h ^ (std::hash<std::string_view>{}(bytes(side.sparse.valuePtr() + begin, end - begin)) + 0x9e3779b97f4a7c15ULL +
              (h << 6) + (h >> 2));
}

/// Whether design columns i and j hold the same bytes.
bool same_column(const DesignSide& side, Index i, Index j) {
  if (side.kind == DesignSide::Kind::dense)
    return std::memcmp(side.dense.col(i).data(), side.dense.col(j).data(), static_cast<std::size_t>(side.dense.rows()) * sizeof(double)) == 0;
  const auto* outer = side.sparse.outerIndexPtr();
  const auto count = outer[i + 1] - outer[i];
  if (outer[j + 1] - outer[j] != count) return false;
  return std::memcmp(side.sparse.innerIndexPtr() + outer[i], side.sparse.innerIndexPtr() + outer[j],
                     static_cast<std::size_t>(count) * sizeof(*side.sparse.innerIndexPtr())) == 0 &&
         std::memcmp(side.sparse.valuePtr() + outer[i], side.sparse.valuePtr() + outer[j],
                     static_cast<std::size_t>(count) * sizeof(double)) == 0;
}

/// Deterministic probe values (no draw from the run's generator: the estimate must not change).
Matrix probe(Index rows, Index cols, double phase) {
  Matrix m(rows, cols);
  for (Index j = 0; j < cols; ++j)
    for (Index i = 0; i < rows; ++i)
      m(i, j) = std::sin(phase + 0.7548776662 * static_cast<double>(i) + 1.3247179572 * static_cast<double>(j));
  return m;
}

/// The structured form of `batch`, or null when it does not apply: left designs not dense or sparse,
/// right designs not an index per measurement, or an operator whose scores on a probe model are not
/// c · a_i' L R(j_i, :)' for one constant c (then the generic products are used).
std::unique_ptr<ObservedEntries> observed_entries(const Batch& batch, const SensingOperator& op, Index d2, Index rank) {
  using Kind = DesignSide::Kind;
  const DesignSide& left = batch.left;
  if ((left.kind != Kind::dense && left.kind != Kind::sparse) || !batch.right || batch.right->kind != Kind::index)
    return nullptr;
  const IndexVector& asked = batch.right->index;
  const Index n = batch.size();
  if (asked.size() != n || left.count() != n || n == 0) return nullptr;
  if (asked.minCoeff() < 0 || asked.maxCoeff() >= d2) return nullptr;

  auto e = std::make_unique<ObservedEntries>();
  e->sparse = left.kind == Kind::sparse;
  e->labels = d2;
  e->label.assign(asked.data(), asked.data() + n);
  e->instance.resize(static_cast<std::size_t>(n));
  // Distinct columns by hash, confirmed byte for byte; no copy of a column is kept.
  std::unordered_multimap<std::size_t, Index> seen;  // hash → distinct instance
  seen.reserve(static_cast<std::size_t>(n));
  std::vector<Index> first;  // the batch column of each distinct instance
  for (Index i = 0; i < n; ++i) {
    const std::size_t h = column_hash(left, i);
    Index found = -1;
    for (auto [it, end] = seen.equal_range(h); it != end && found < 0; ++it)
      if (same_column(left, first[static_cast<std::size_t>(it->second)], i)) found = it->second;
    if (found < 0) {
      found = static_cast<Index>(first.size());
      first.push_back(i);
      seen.emplace(h, found);
    }
    e->instance[static_cast<std::size_t>(i)] = found;
  }
  seen = {};
  const Index m = static_cast<Index>(first.size());
  e->start.assign(static_cast<std::size_t>(m + 1), 0);  // a stable counting sort by instance
  for (const Index u : e->instance) ++e->start[static_cast<std::size_t>(u + 1)];
  for (Index u = 0; u < m; ++u) e->start[static_cast<std::size_t>(u + 1)] += e->start[static_cast<std::size_t>(u)];
  e->order.resize(static_cast<std::size_t>(n));
  std::vector<Index> next(e->start.begin(), e->start.end() - 1);
  for (Index t = 0; t < n; ++t) e->order[static_cast<std::size_t>(next[static_cast<std::size_t>(e->instance[static_cast<std::size_t>(t)])]++)] = t;
  if (m == n) {  // every column distinct (first[u] = u): the batch's designs serve as X
    e->x_dense = &left.dense;
    e->x_sparse = &left.sparse;
  } else if (e->sparse) {
    std::vector<Eigen::Triplet<double, std::int64_t>> entries;
    for (Index u = 0; u < m; ++u)
      for (SparseMatrix::InnerIterator it(left.sparse, first[static_cast<std::size_t>(u)]); it; ++it)
        entries.emplace_back(it.row(), u, it.value());
    e->own_sparse.resize(left.dim, m);
    e->own_sparse.setFromTriplets(entries.begin(), entries.end());
    e->x_sparse = &e->own_sparse;
  } else {
    e->own_dense.resize(left.dim, m);
    for (Index u = 0; u < m; ++u) e->own_dense.col(u) = left.dense.col(first[static_cast<std::size_t>(u)]);
    e->x_dense = &e->own_dense;
  }

  // The operator's own scores on a probe model against the structured ones: one constant c for all.
  LowRankModel model;
  model.left = probe(left.dim, rank, 0.3);
  model.right = probe(d2, rank, 1.9);
  const Vector reference = op.forward(batch, model);
  const Vector raw = e->scores(e->project(model.left), model.right.transpose());
  const double raw_sq = raw.squaredNorm();
  if (!(raw_sq > 0.0) || !reference.allFinite()) return nullptr;
  e->c = raw.dot(reference) / raw_sq;
  const double tolerance = 1e-9 * reference.cwiseAbs().maxCoeff();
  if (!((reference - e->c * raw).cwiseAbs().maxCoeff() <= tolerance)) return nullptr;
  return e;
}

}  // namespace

// ---- leml ----

const OptionsTable<LemlOptions>& LemlOptions::table() {
  static const OptionsTable<LemlOptions> t = [] {
    OptionsTable<LemlOptions> t;
    Schema& s = t.schema();
    t.bind(&LemlOptions::rank, s.integer("rank", 2, "rank k of W = UV'").at_least(1));
    t.bind_choice(&LemlOptions::loss, s.choice("loss", "squared", {"squared", "logistic"}, "loss on each observed label"),
                  {{"squared", LossKind::squared}, {"logistic", LossKind::logistic}});
    t.bind(&LemlOptions::penalty, s.number("penalty", 1e-4, "λ in mean loss + λ(‖U‖²_F + ‖V‖²_F)").at_least(0.0));
    bind_training(t);
    t.bind(&LemlOptions::max_iterations,
           s.integer("max_iterations", 10, "alternations (a U solve then a V solve)").at_least(0));
    t.bind(&LemlOptions::tolerance,
           s.number("tolerance", 1e-6, "stop when the objective's relative change falls below this").at_least(0.0));
    bind_newton(t, 5);
    return t;
  }();
  return t;
}

Leml::Leml(LemlOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance),
      options_(std::move(options)),
      loss_{options_.loss} {}

Leml::~Leml() = default;

void Leml::start(DataSource& data, Rng& rng) {
  entries_.reset();
  std::string why;
  std::optional<Batch> train = gather_training_set(data, options_.training_size, why);
  if (!train) {
    finish(Status::failed, "leml: " + why);
    return;
  }
  train_ = std::move(*train);
  op_ = &data.sensing_operator();
  const ProblemShape shape = data.shape();
  StartRequest request = training_set_request(train_, options_.rank);
  request.random_std = 1.0 / std::sqrt(static_cast<double>(options_.rank));  // LEML's V ~ N(0, 1/k)
  request.solves_left_first = true;                                   // LEML's U = 0: the first alternation solves for U
  const Start start = initial_model(data, request, rng);
  if (!start.ok) {
    finish(Status::failed, "leml: no start: " + start.failure);
    return;
  }
  if (start.model.rows() != shape.d1 || start.model.cols() != shape.d2 || start.model.zero_diagonal) {
    finish(Status::failed, "leml: the start is not a " + std::to_string(shape.d1) + " × " + std::to_string(shape.d2) +
                               " pair of factors");
    return;
  }
  model_ = LowRankModel{};
  model_.left = start.model.left;
  model_.right = start.model.right;
  objective_ = loss_.mean(train_.y, op_->forward(train_, model_)) +
               options_.penalty * (model_.left.squaredNorm() + model_.right.squaredNorm());
  entries_ = observed_entries(train_, *op_, shape.d2, options_.rank);
}

LinearScores Leml::u_step_map() const {
  if (entries_) {
    // The structured training set (see ObservedEntries): a U product costs one pass over the m
    // distinct feature vectors.
    const ObservedEntries& e = *entries_;
    const Matrix right_t = e.c * model_.right.transpose();  // k × d2, the factor c folded in
    LinearScores map;
    map.scores = [&e, right_t](const Matrix& D) { return e.scores(e.project(D), right_t); };
    map.adjoint = [&e, right_t](const Vector& g) { return e.accumulate(e.by_instance(g, right_t)); };
    map.curvature = [&e, right_t](const Matrix& D, const Vector& h, Vector& s) { return e.curvature(D, h, right_t, s); };
    return map;
  }
  // Scores 𝒜(D V') are linear in D; the adjoint is 𝒜'(g) V. The V-penalty is a constant.
  LinearScores map;
  map.scores = [this](const Matrix& D) {
    LowRankModel m;
    m.left = D;
    m.right = model_.right;
    return op_->forward(train_, m);
  };
  map.adjoint = [this](const Vector& g) { return op_->adjoint_times(train_, g, model_.right); };
  return map;
}

LinearScores Leml::v_step_map() const {
  if (entries_) {
    // X'U is fixed during the V solve: a V product needs no pass over the features.
    const ObservedEntries& e = *entries_;
    const Matrix left_t = e.c * e.project(model_.left);  // k × m: c · U'X
    LinearScores map;
    map.scores = [&e, left_t](const Matrix& E) { return e.scores(left_t, E.transpose()); };
    map.adjoint = [&e, left_t](const Vector& g) -> Matrix { return e.by_label(g, left_t).transpose(); };
    return map;
  }
  // Scores 𝒜(U E'), adjoint 𝒜'(g)' U.
  LinearScores map;
  map.scores = [this](const Matrix& E) {
    LowRankModel m;
    m.left = model_.left;
    m.right = E;
    return op_->forward(train_, m);
  };
  map.adjoint = [this](const Vector& g) { return op_->adjoint_transpose_times(train_, g, model_.left); };
  return map;
}

double Leml::iterate(DataSource&) {
  const double before = objective_;
  const LowRankModel previous = model_;
  model_.left = newton_cg(u_step_map(), loss_, train_.y, options_.penalty, model_.left, options_.newton());
  double v_objective = 0.0;
  model_.right = newton_cg(v_step_map(), loss_, train_.y, options_.penalty, model_.right, options_.newton(), &v_objective);
  objective_ = v_objective + options_.penalty * model_.left.squaredNorm();
  if (end_if_not_finite(model_.all_finite() && std::isfinite(objective_), "factors", [&] {
        model_ = previous;
        return std::string("; the estimate returned is the one before this iteration");
      }))
    return -1.0;
  return std::abs(before - objective_) / std::max(std::abs(before), 1e-300);
}

void Leml::measure_final_fit() {
  if (!op_ || train_.size() == 0) return;
  if (record_test_fit(estimate(), "fraction of the held-out test set's signs the estimate gets wrong")) return;
  record_fit(fit_of(train_.y, op_->forward(train_, model_)),
             "fraction of the training set's signs the estimate gets wrong (leml learns from one training set; no held-out test set)");
}

// ---- ova_svm ----

const OptionsTable<OvaSvmOptions>& OvaSvmOptions::table() {
  static const OptionsTable<OvaSvmOptions> t = [] {
    OptionsTable<OvaSvmOptions> t;
    t.bind(&OvaSvmOptions::penalty, t.schema().number("penalty", 1e-4, "λ in mean squared hinge + λ‖W‖²_F").above(0.0));
    bind_training(t);
    bind_newton(t, 20);
    return t;
  }();
  return t;
}

OneVsAllSvm::OneVsAllSvm(OvaSvmOptions options) : options_(std::move(options)) {}

OneVsAllSvm::~OneVsAllSvm() = default;

void OneVsAllSvm::start(DataSource& data, Rng&) {
  std::string why;
  const std::optional<Batch> train = gather_training_set(data, options_.training_size, why);
  const ProblemShape shape = data.shape();
  model_ = LowRankModel{};
  model_.left = Matrix::Zero(shape.d1, shape.d2);
  model_.right = Matrix::Identity(shape.d2, shape.d2);
  if (!train) {
    summary_.status = Status::failed;
    summary_.message = "ova_svm: " + why;
    return;
  }
  const LinearScores map = full_matrix_map(*train, data.sensing_operator(), shape.d2);
  const Loss hinge{LossKind::squared_hinge};
  model_.left = newton_cg(map, hinge, train->y, options_.penalty, model_.left, options_.newton());
  if (!model_.all_finite()) {
    summary_.status = Status::diverged;
    summary_.message = "ova_svm: non-finite weights";
    return;
  }
  summary_.status = Status::converged;
  summary_.message = "ova_svm: " + std::to_string(shape.d2) + " L2-SVMs from " + std::to_string(train->size()) +
                     " labels (" + std::to_string(options_.newton_steps) + " Newton steps at most)";
}

}  // namespace rankone::one_bit

