// The registered rank-one sensing operators, checked through the real registry for every design
// kind each one accepts: the adjoint identity, forward against a dense reference computed straight
// from the definition, the isotropic moment inversion (Monte Carlo), and input validation.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace {

using namespace rankone;
using DesignKind = DesignSide::Kind;
using Catch::Matchers::Contains;

std::unique_ptr<SensingOperator> make_operator(const std::string& name, std::optional<bool> first_order = {}) {
  Json ref = {{"name", name}};
  if (first_order) ref["first_order"] = *first_order;
  return test::make<SensingOperator>(ref, Kind::sensing_operator);
}

Matrix gaussian_matrix(Rng& rng, Index rows, Index cols) {
  Matrix m(rows, cols);
  rng.fill_normal(m.data(), m.size());
  return m;
}

/// A design side together with the dense matrix it stands for, built independently of
/// DesignSide::to_dense so the reference does not share code with what it checks.
struct Designs {
  DesignSide side;
  Matrix dense;  ///< dim × n (empty for Kind::all)
};

Designs make_designs(Rng& rng, DesignKind kind, Index dim, Index n) {
  Designs d;
  switch (kind) {
    case DesignKind::dense:
      d.dense = gaussian_matrix(rng, dim, n);
      d.side = DesignSide::make_dense(d.dense);
      break;
    case DesignKind::sparse: {
      // About a third of the entries non-zero.
      d.dense = Matrix::Zero(dim, n);
      for (Index j = 0; j < n; ++j)
        for (Index i = 0; i < dim; ++i)
          if (rng.below(3) == 0) d.dense(i, j) = rng.normal();
      d.side.kind = DesignKind::sparse;
      d.side.dim = dim;
      d.side.sparse = d.dense.sparseView();
      break;
    }
    case DesignKind::index: {
      IndexVector index(n);
      d.dense = Matrix::Zero(dim, n);
      for (Index i = 0; i < n; ++i) {
        index(i) = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(dim)));
        d.dense(index(i), i) = 1.0;
      }
      d.side = DesignSide::make_index(dim, index);
      break;
    }
    case DesignKind::all: d.side = DesignSide::make_all(dim); break;
    case DesignKind::matrix: throw std::logic_error("make_designs: matrix designs are tested in test_batch.cpp");
  }
  return d;
}

/// One operator with one combination of design kinds.
struct Case {
  std::string op;
  DesignKind left;
  std::optional<DesignKind> right;  ///< none for the symmetric operator
  double right_gain = 1.0;          ///< single_label uses ē = √d2 e_j
  bool first_order = false;         ///< the operator is created with first_order = true

  std::string label() const {
    auto name = [](DesignKind k) {
      switch (k) {
        case DesignKind::dense: return "dense";
        case DesignKind::sparse: return "sparse";
        case DesignKind::index: return "index";
        case DesignKind::all: return "all";
        case DesignKind::matrix: return "matrix";
      }
      return "?";
    };
    return op + " (" + name(left) + (right ? std::string(", ") + name(*right) : std::string()) + ")";
  }
};

std::vector<Case> all_cases(Index d2) {
  const double sqrt_d2 = std::sqrt(static_cast<double>(d2));
  return {
      {"symmetric_rank_one", DesignKind::dense, std::nullopt, 1.0, true},
      {"symmetric_rank_one", DesignKind::sparse, std::nullopt, 1.0, true},
      {"asymmetric_rank_one", DesignKind::dense, DesignKind::dense, 1.0, true},
      {"asymmetric_rank_one", DesignKind::dense, DesignKind::sparse, 1.0, true},
      {"asymmetric_rank_one", DesignKind::sparse, DesignKind::dense, 1.0, true},
      {"asymmetric_rank_one", DesignKind::sparse, DesignKind::sparse, 1.0, true},
      {"entry", DesignKind::index, DesignKind::index},
      {"single_label", DesignKind::dense, DesignKind::index, sqrt_d2},
      {"single_label", DesignKind::sparse, DesignKind::index, sqrt_d2},
      {"single_label", DesignKind::dense, DesignKind::all, sqrt_d2},
      {"single_label", DesignKind::sparse, DesignKind::all, sqrt_d2},
  };
}

/// A batch for a case, with the dense matrices (d1 × n and d2 × n) its designs stand for.
struct Problem {
  Batch batch;
  Matrix A;  ///< left designs, d1 × n
  Matrix B;  ///< right designs including the operator's gain, d2 × n (d2 × d2 for Kind::all)
  Index measurements = 0;
};

Problem make_problem(const Case& c, Rng& rng, Index d1, Index d2, Index n) {
  Problem p;
  Designs left = make_designs(rng, c.left, d1, n);
  p.batch.left = left.side;
  p.A = left.dense;
  if (!c.right) {
    p.B = p.A;
  } else {
    Designs right = make_designs(rng, *c.right, d2, n);
    p.batch.right = right.side;
    p.B = (*c.right == DesignKind::all ? Matrix(Matrix::Identity(d2, d2)) : right.dense) * c.right_gain;
  }
  p.measurements = (c.right == DesignKind::all) ? n * d2 : n;
  p.batch.y = Vector::Zero(p.measurements);
  return p;
}

/// M straight from the model's definition.
Matrix dense_matrix(const LowRankModel& m) {
  Matrix M = m.left * m.right.transpose();
  if (m.symmetrize) M = Matrix(0.5 * (M + M.transpose()));
  if (m.zero_diagonal) M.diagonal().setZero();
  return M;
}

/// y by the definition: a_i' M b_i (+ a_i' w) + bias, measurement by measurement.
Vector reference_forward(const Problem& p, const LowRankModel& model, bool first_order) {
  const Matrix M = dense_matrix(model);
  const Index n = p.A.cols();
  const bool all = p.measurements != n;
  Vector y(p.measurements);
  for (Index m = 0; m < p.measurements; ++m) {
    const Index i = m % n;                // instance
    const Index b = all ? m / n : i;      // column of B: the label for Kind::all
    double value = p.A.col(i).dot(M * p.B.col(b)) + model.bias;
    if (first_order && model.has_first_order()) value += p.A.col(i).dot(model.w);
    y(m) = value;
  }
  return y;
}

/// Σ_m z_m a_m b_m' by the definition.
Matrix reference_adjoint(const Problem& p, const Vector& z) {
  const Index n = p.A.cols();
  const bool all = p.measurements != n;
  Matrix G = Matrix::Zero(p.A.rows(), p.B.rows());
  for (Index m = 0; m < p.measurements; ++m) G += z(m) * p.A.col(m % n) * p.B.col(all ? m / n : m).transpose();
  return G;
}

double relative(const Matrix& a, const Matrix& b) { return (a - b).norm() / std::max(b.norm(), 1e-300); }

constexpr double kExact = 1e-10;

}  // namespace

TEST_CASE("every operator is registered with its schema, summary and citation", "[operators]") {
  for (const std::string name : {"symmetric_rank_one", "asymmetric_rank_one", "entry", "single_label"}) {
    INFO(name);
    const Registration& r = test::registry().get(name, Kind::sensing_operator);
    CHECK_FALSE(r.summary.empty());
    CHECK_FALSE(r.citation.empty());
    CHECK(r.doc_page == "docs/plugins/operators.md");
    const bool gaussian_design = name == "symmetric_rank_one" || name == "asymmetric_rank_one";
    CHECK((r.schema.find("first_order") != nullptr) == gaussian_design);
    CHECK(r.schema.params().size() == (gaussian_design ? 1u : 0u));
  }
  CHECK_THAT(test::registry().get("single_label").citation, Contains("Qiu"));
  CHECK_THAT(test::registry().get("symmetric_rank_one").citation, Contains("Lin & Ye 2016"));
  CHECK_THROWS_AS(make_operator("entry", true), ConfigError);  // no first-order term to switch on

  const auto sym = make_operator("symmetric_rank_one");
  CHECK(sym->symmetric());
  CHECK_FALSE(sym->has_first_order());
  CHECK(make_operator("symmetric_rank_one", true)->has_first_order());
  CHECK_FALSE(make_operator("asymmetric_rank_one")->symmetric());
  CHECK(make_operator("single_label")->accepted_right() ==
        std::vector<DesignKind>{DesignKind::index, DesignKind::all});
  CHECK(make_operator("entry")->accepted_left() == std::vector<DesignKind>{DesignKind::index});
}

TEST_CASE("isotropic_inverse constants", "[operators]") {
  const ProblemShape square{6, 6, true};
  const ProblemShape rect{7, 5, false};
  const auto s = make_operator("symmetric_rank_one")->isotropic_inverse(square);
  CHECK(s.scale == 0.5);
  CHECK(s.trace_shift == 1.0);
  const auto a = make_operator("asymmetric_rank_one")->isotropic_inverse(rect);
  CHECK(a.scale == 1.0);
  CHECK(a.trace_shift == 0.0);
  const auto e = make_operator("entry")->isotropic_inverse(rect);
  CHECK(e.scale == 35.0);
  CHECK(e.trace_shift == 0.0);
  const auto l = make_operator("single_label")->isotropic_inverse(rect);
  CHECK(l.scale == 1.0);
  CHECK(l.trace_shift == 0.0);
}

TEST_CASE("adjoint identity <A(M), z> = <M, A'(z)> for every operator and design kind", "[operators]") {
  const Index d1 = 7, d2 = 5, n = 40, k = 3;
  for (const Case& c : all_cases(d2)) {
    SECTION(c.label()) {
      Rng rng(derive_seed(11, c.label()));
      const Index dd2 = c.right ? d2 : d1;  // the symmetric operator is square
      const auto op = make_operator(c.op, c.first_order ? std::optional<bool>(true) : std::nullopt);
      const Problem p = make_problem(c, rng, d1, dd2, n);

      LowRankModel model;
      model.left = gaussian_matrix(rng, d1, k);
      model.right = gaussian_matrix(rng, dd2, k);
      const Matrix M = dense_matrix(model);
      const Vector z = gaussian_matrix(rng, p.measurements, 1);

      const Vector y = op->forward(p.batch, model);
      REQUIRE(y.size() == p.measurements);
      const Matrix G = op->adjoint_dense(p.batch, z);
      REQUIRE(G.rows() == d1);
      REQUIRE(G.cols() == dd2);

      // The identity itself, relative to ‖A(M)‖‖z‖ (the inner product may cancel).
      CHECK(std::abs(y.dot(z) - (G.array() * M.array()).sum()) <= kExact * y.norm() * z.norm());
      // The dense adjoint is the definition.
      CHECK(relative(G, reference_adjoint(p, z)) <= kExact);

      // Matrix-free products agree with the dense adjoint.
      const Matrix Z2 = gaussian_matrix(rng, dd2, k);
      const Matrix Z1 = gaussian_matrix(rng, d1, k);
      CHECK(relative(op->adjoint_times(p.batch, z, Z2), G * Z2) <= kExact);
      CHECK(relative(op->adjoint_transpose_times(p.batch, z, Z1), G.transpose() * Z1) <= kExact);

      // First-order adjoint: Σ z_m a_m, consistent with the first-order part of forward.
      Vector expected_first = Vector::Zero(d1);
      for (Index m = 0; m < p.measurements; ++m) expected_first += z(m) * p.A.col(m % n);
      const Vector first = op->first_order_adjoint(p.batch, z);
      CHECK(relative(first, expected_first) <= kExact);
      if (c.first_order) {
        LowRankModel with_w = model;
        with_w.w = gaussian_matrix(rng, d1, 1);
        const Vector linear = op->forward(p.batch, with_w) - y;
        CHECK(std::abs(linear.dot(z) - with_w.w.dot(first)) <= kExact * linear.norm() * z.norm());
      }
    }
  }
}

TEST_CASE("forward matches the definition with symmetrize, zero_diagonal, w and bias", "[operators]") {
  const Index k = 2, n = 30;
  // Square problems allow symmetrize; a rectangular one checks the diagonal of a d1 × d2 matrix.
  for (const auto& [d1, d2] : std::vector<std::pair<Index, Index>>{{6, 6}, {7, 5}, {4, 6}}) {
    for (const Case& c : all_cases(d2)) {
      if (!c.right && d1 != d2) continue;
      SECTION(c.label() + " " + std::to_string(d1) + "x" + std::to_string(d2)) {
        Rng rng(derive_seed(23, c.label() + std::to_string(d1) + std::to_string(d2)));
        Problem p = make_problem(c, rng, d1, d2, n);
        if (c.left == DesignKind::index && c.right == DesignKind::index) {
          // Make sure some entries sit on the diagonal.
          for (Index i = 0; i < n; i += 3) {
            const auto j = static_cast<std::int32_t>(i % std::min(d1, d2));
            p.batch.left.index(i) = p.batch.right->index(i) = j;
            p.A.col(i).setZero();
            p.B.col(i).setZero();
            p.A(j, i) = 1.0;
            p.B(j, i) = 1.0;
          }
        }
        for (const bool first_order : {false, true}) {
          if (first_order && !c.first_order) continue;
          const auto op = make_operator(c.op, c.first_order ? std::optional<bool>(first_order) : std::nullopt);
          for (const bool symmetrize : {false, true}) {
            if (symmetrize && d1 != d2) continue;
            for (const bool zero_diagonal : {false, true}) {
              LowRankModel model;
              model.left = gaussian_matrix(rng, d1, k);
              model.right = gaussian_matrix(rng, d2, k);
              model.symmetrize = symmetrize;
              model.zero_diagonal = zero_diagonal;
              model.w = gaussian_matrix(rng, d1, 1);  // ignored unless the operator has a first-order term
              model.bias = 0.75;
              INFO("first_order " << first_order << " symmetrize " << symmetrize << " zero_diagonal " << zero_diagonal);
              const Vector expected = reference_forward(p, model, first_order);
              CHECK(relative(op->forward(p.batch, model), expected) <= kExact);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("an 'all' right side equals every label spelled out as index designs", "[operators]") {
  const Index d1 = 6, d2 = 4, n = 9, k = 2;
  Rng rng(5);
  const auto op = make_operator("single_label");
  Batch all;
  all.left = DesignSide::make_dense(gaussian_matrix(rng, d1, n));
  all.right = DesignSide::make_all(d2);
  // The same measurements in the documented order y(i + n·j): instance i, label j.
  Batch spelled;
  Matrix X(d1, n * d2);
  IndexVector labels(n * d2);
  for (Index j = 0; j < d2; ++j)
    for (Index i = 0; i < n; ++i) {
      X.col(i + n * j) = all.left.dense.col(i);
      labels(i + n * j) = static_cast<std::int32_t>(j);
    }
  spelled.left = DesignSide::make_dense(X);
  spelled.right = DesignSide::make_index(d2, labels);

  LowRankModel model;
  model.left = gaussian_matrix(rng, d1, k);
  model.right = gaussian_matrix(rng, d2, k);
  model.zero_diagonal = true;
  model.bias = -0.5;
  const Vector y = op->forward(all, model);
  CHECK(relative(y, op->forward(spelled, model)) <= kExact);
  const Vector z = gaussian_matrix(rng, n * d2, 1);
  const Matrix Z2 = gaussian_matrix(rng, d2, k);
  const Matrix Z1 = gaussian_matrix(rng, d1, k);
  CHECK(relative(op->adjoint_times(all, z, Z2), op->adjoint_times(spelled, z, Z2)) <= kExact);
  CHECK(relative(op->adjoint_transpose_times(all, z, Z1), op->adjoint_transpose_times(spelled, z, Z1)) <= kExact);
  CHECK(relative(op->first_order_adjoint(all, z), op->first_order_adjoint(spelled, z)) <= kExact);
}

TEST_CASE("zero_diagonal with one-hot designs removes exactly the diagonal entries", "[operators]") {
  const auto op = make_operator("entry");
  LowRankModel model;
  model.left = Matrix::Ones(3, 1);
  model.right = Matrix::Ones(3, 1);  // M = all ones
  model.zero_diagonal = true;
  Batch b;
  IndexVector rows(3), cols(3);
  rows << 0, 1, 2;
  cols << 0, 2, 2;
  b.left = DesignSide::make_index(3, rows);
  b.right = DesignSide::make_index(3, cols);
  const Vector y = op->forward(b, model);
  CHECK(y(0) == 0.0);
  CHECK(y(1) == 1.0);
  CHECK(y(2) == 0.0);
}

namespace {

/// Monte-Carlo check of isotropic_inverse: with y = 𝒜(M), the estimate
/// `scale·(𝒜'(y)/N − shift·mean(y)·I)` (N measurements) must match M entry by entry within four
/// standard errors. The standard errors come from the per-instance terms computed from the
/// definition, instances being the independent units.
void check_isotropic_inverse(const Case& c, Index d1, Index d2, Index n, std::uint64_t seed) {
  Rng rng(seed);
  const auto op = make_operator(c.op);
  const Problem p = make_problem(c, rng, d1, d2, n);
  // A planted matrix with a non-zero trace when square, so a wrong trace shift shows.
  LowRankModel model;
  model.left = gaussian_matrix(rng, d1, 2);
  model.right = c.right ? gaussian_matrix(rng, d2, 2) : Matrix(model.left);
  if (!c.right) model.right.col(1) *= -0.25;  // M = l1 l1' − l2 l2'/4: indefinite, trace ≠ 0
  const Matrix M = dense_matrix(model);
  const Vector y = op->forward(p.batch, model);

  const MomentInverse inv = op->isotropic_inverse(ProblemShape{d1, d2, !c.right});
  const double N = static_cast<double>(y.size());
  Matrix estimate = inv.scale * op->adjoint_dense(p.batch, y) / N;
  if (d1 == d2) estimate.diagonal().array() -= inv.scale * inv.trace_shift * y.mean();

  // Per-instance contributions H_i (their mean is the estimate): sample variance → standard error.
  const Index per_instance = y.size() / n;
  Matrix sum = Matrix::Zero(d1, d2), sum_sq = Matrix::Zero(d1, d2);
  for (Index i = 0; i < n; ++i) {
    Matrix H = Matrix::Zero(d1, d2);
    for (Index l = 0; l < per_instance; ++l) {
      const Index m = i + n * l;
      H += y(m) * p.A.col(i) * p.B.col(per_instance > 1 ? l : i).transpose();
      if (d1 == d2) H.diagonal().array() -= inv.trace_shift * y(m);
    }
    H *= inv.scale / static_cast<double>(per_instance);
    sum += H;
    sum_sq += H.cwiseAbs2();
  }
  const Matrix mean = sum / static_cast<double>(n);
  REQUIRE(relative(mean, estimate) <= 1e-9);  // the operator's adjoint is the sum of these terms
  const Matrix variance = (sum_sq / static_cast<double>(n) - mean.cwiseAbs2()) * (n / (n - 1.0));
  const Matrix standard_error = (variance / static_cast<double>(n)).cwiseSqrt();

  for (Index a = 0; a < d1; ++a)
    for (Index b = 0; b < d2; ++b) {
      INFO(c.label() << " entry (" << a << ", " << b << "): estimate " << estimate(a, b) << ", truth " << M(a, b)
                     << ", standard error " << standard_error(a, b));
      CHECK(std::abs(estimate(a, b) - M(a, b)) <= 4.0 * standard_error(a, b) + 1e-12);
    }
  // And the check can fail: the error is far smaller than M itself.
  CHECK((estimate - M).norm() < 0.25 * M.norm());
}

}  // namespace

TEST_CASE("isotropic_inverse inverts the expected adjoint (Monte Carlo)", "[operators][statistics]") {
  const Index d2 = 4;
  const double sqrt_d2 = std::sqrt(static_cast<double>(d2));
  SECTION("symmetric_rank_one, standard Gaussian x") {
    check_isotropic_inverse({"symmetric_rank_one", DesignKind::dense, std::nullopt}, 4, 4, 40000, 101);
  }
  SECTION("asymmetric_rank_one, standard Gaussian u, v") {
    check_isotropic_inverse({"asymmetric_rank_one", DesignKind::dense, DesignKind::dense}, 5, d2, 40000, 102);
  }
  SECTION("entry, uniform entries") {
    check_isotropic_inverse({"entry", DesignKind::index, DesignKind::index}, 5, d2, 40000, 103);
  }
  SECTION("single_label, Gaussian x and a uniform label") {
    check_isotropic_inverse({"single_label", DesignKind::dense, DesignKind::index, sqrt_d2}, 5, d2, 40000, 104);
  }
  SECTION("single_label, Gaussian x and every label") {
    check_isotropic_inverse({"single_label", DesignKind::dense, DesignKind::all, sqrt_d2}, 5, d2, 10000, 105);
  }
}

TEST_CASE("operators reject mismatched inputs with clear messages", "[operators][errors]") {
  Rng rng(9);
  const Index d = 5, n = 8;
  Batch sym;
  sym.left = DesignSide::make_dense(gaussian_matrix(rng, d, n));
  LowRankModel model;
  model.left = gaussian_matrix(rng, d, 2);
  model.right = gaussian_matrix(rng, d, 2);
  const auto op = make_operator("symmetric_rank_one", true);
  const Vector z = Vector::Ones(n);

  CHECK_THROWS_WITH(op->adjoint_times(sym, Vector::Ones(n + 1), model.right),
                    Contains("z has 9 entries") && Contains("8 measurements"));
  CHECK_THROWS_WITH(op->adjoint_times(sym, z, gaussian_matrix(rng, d + 1, 2)), Contains("expected d2 = 5"));
  CHECK_THROWS_WITH(op->adjoint_transpose_times(sym, z, gaussian_matrix(rng, d + 1, 2)), Contains("expected d1 = 5"));
  CHECK_THROWS_AS(op->adjoint_dense(sym, Vector::Ones(n - 1)), std::invalid_argument);
  CHECK_THROWS_AS(op->first_order_adjoint(sym, Vector::Ones(n - 1)), std::invalid_argument);

  LowRankModel wrong = model;
  wrong.right = gaussian_matrix(rng, d + 1, 2);
  CHECK_THROWS_WITH(op->forward(sym, wrong), Contains("model factors are 5 × 2 and 6 × 2"));
  wrong = model;
  wrong.w = Vector::Ones(d - 1);
  CHECK_THROWS_WITH(op->forward(sym, wrong), Contains("first-order weights have 4 entries"));
  CHECK_NOTHROW(make_operator("symmetric_rank_one", false)->forward(sym, wrong));  // w ignored

  Batch with_right = sym;
  with_right.right = sym.left;
  CHECK_THROWS_WITH(op->forward(with_right, model), Contains("must have no right side"));

  Batch index_left;
  index_left.left = DesignSide::make_index(d, IndexVector::Zero(n));
  CHECK_THROWS_WITH(op->forward(index_left, model), Contains("left designs must be dense, sparse, got index"));

  const auto asym = make_operator("asymmetric_rank_one");
  CHECK_THROWS_WITH(asym->forward(sym, model), Contains("no right designs"));
  Batch short_right = sym;
  short_right.right = DesignSide::make_dense(gaussian_matrix(rng, d, n - 2));
  CHECK_THROWS_WITH(asym->forward(short_right, model), Contains("8 left and 6 right designs"));
  Batch rect = sym;
  rect.right = DesignSide::make_dense(gaussian_matrix(rng, d + 2, n));
  LowRankModel rect_model;
  rect_model.left = gaussian_matrix(rng, d, 2);
  rect_model.right = gaussian_matrix(rng, d + 2, 2);
  rect_model.symmetrize = true;
  CHECK_THROWS_WITH(asym->forward(rect, rect_model), Contains("symmetrised model needs a square matrix"));

  const auto entry = make_operator("entry");
  Batch dense_entry = sym;
  dense_entry.right = sym.left;
  CHECK_THROWS_WITH(entry->forward(dense_entry, model), Contains("left designs must be index, got dense"));

  const auto label = make_operator("single_label");
  Batch labels = sym;
  labels.right = DesignSide::make_all(3);
  CHECK_THROWS_WITH(label->adjoint_times(labels, z, gaussian_matrix(rng, 3, 1)), Contains("24 measurements"));
  labels.right = sym.left;
  CHECK_THROWS_WITH(label->forward(labels, model), Contains("right designs must be index, all, got dense"));
}

TEST_CASE("entry's forward sums each entry's products without gathered copies, bit for bit as the gathered formula",
          "[operators]") {
  // The index × index path of forward (dot_gathered_rows) against the formula it replaced: the
  // two n × k gathered factors multiplied and summed along rows by Eigen.
  const auto op = make_operator("entry");
  Rng rng(11);
  for (const Index k : {1, 2, 3, 7, 10, 33}) {
    const Index d1 = 50, d2 = 40, n = 1001;  // four chunks, the last odd
    IndexVector rows(n), cols(n);
    for (Index t = 0; t < n; ++t) {
      rows(t) = static_cast<std::int32_t>(rng.below(d1));
      cols(t) = static_cast<std::int32_t>(rng.below(d2));
    }
    Batch b;
    b.left = DesignSide::make_index(d1, rows, 1.5);
    b.right = DesignSide::make_index(d2, cols, 0.75);
    b.y = Vector::Zero(n);
    LowRankModel model;
    model.left = gaussian_matrix(rng, d1, k);
    model.right = gaussian_matrix(rng, d2, k);
    const Vector gathered = (b.left.project(model.left).array() * b.right->project(model.right).array()).rowwise().sum();
    const Vector y = op->forward(b, model);
    INFO("k = " << k);
    CHECK((y.array() == gathered.array()).all());
  }
}
