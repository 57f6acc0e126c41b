// The `synthetic` data source: planted truth, reproducible training stream, held-out test set.
#include "synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "rankone/core/errors.hpp"
#include "rankone/linalg/eigensolvers.hpp"

namespace rankone::sources {

namespace {

Matrix gaussian_matrix(Rng& rng, Index rows, Index cols, double std = 1.0) {
  Matrix G(rows, cols);
  rng.fill_normal(G.data(), G.size());
  return std * G;
}

bool is_spectral(TruthStructure s) {
  return s == TruthStructure::symmetric || s == TruthStructure::psd || s == TruthStructure::general ||
         s == TruthStructure::unit_columns;
}
bool is_square(TruthStructure s) { return !(s == TruthStructure::general || s == TruthStructure::unit_columns); }
bool is_symmetric(TruthStructure s) {
  return s == TruthStructure::symmetric || s == TruthStructure::psd || s == TruthStructure::fm;
}
bool has_signed_spectrum(TruthStructure s) { return s == TruthStructure::symmetric; }

/// The rank eigen/singular values followed by the tail: the explicit list, or geometric (log-spaced)
/// or linear spacing from `scale` down to `scale / condition_number` with the requested signs.
Vector spectrum(const SyntheticConfig& c) {
  const Index r = c.rank;
  const Index t = static_cast<Index>(c.tail.size());
  Vector values(r + t);
  for (Index i = 0; i < r; ++i) {
    if (!c.eigenvalues.empty()) {
      values(i) = c.eigenvalues[static_cast<std::size_t>(i)];
      continue;
    }
    const double decay = r == 1 ? 0.0 : static_cast<double>(i) / static_cast<double>(r - 1);
    double sign = 1.0;
    if (has_signed_spectrum(c.structure)) {
      if (c.signs == SpectrumSigns::negative) sign = -1.0;
      if (c.signs == SpectrumSigns::mixed && i % 2 == 1) sign = -1.0;
    }
    const double magnitude = c.spacing == SpectrumSpacing::linear
                                 ? c.scale * (1.0 - decay * (1.0 - 1.0 / c.condition_number))
                                 : c.scale * std::pow(c.condition_number, -decay);
    values(i) = sign * magnitude;
  }
  for (Index i = 0; i < t; ++i) values(r + i) = c.tail[static_cast<std::size_t>(i)];
  return values;
}

/// Copies designs [first, first + n) of `from` to positions [at, at + n) of `to`, which holds
/// `total` designs once filled: sized on the first call, so each design is copied exactly once.
void copy_designs(const DesignSide& from, Index first, Index n, Index at, Index total, DesignSide& to) {
  const bool stored_dense = from.kind == DesignSide::Kind::dense || from.kind == DesignSide::Kind::matrix;
  const Index width = from.kind == DesignSide::Kind::matrix ? from.cols : 1;  // stored columns per design
  if (at == 0) {
    if (!stored_dense && from.kind != DesignSide::Kind::index) to = DesignSide{};  // appended to
    to.kind = from.kind;
    to.dim = from.dim;
    to.cols = from.cols;
    to.scale = from.scale;
    if (stored_dense) to.dense.resize(from.dim, total * width);
    if (from.kind == DesignSide::Kind::index) to.index.resize(total);
  }
  switch (from.kind) {
    case DesignSide::Kind::dense:
    case DesignSide::Kind::matrix:
      to.dense.middleCols(at * width, n * width) = from.dense.middleCols(first * width, n * width);
      break;
    case DesignSide::Kind::index: to.index.segment(at, n) = from.index.segment(first, n); break;
    default: to.append(from.slice(first, n)); break;  // sparse designs: the generic append
  }
}

}  // namespace

GroundTruth plant_truth(const SyntheticConfig& c, Rng& rng) {
  GroundTruth m;
  switch (c.structure) {
    case TruthStructure::symmetric:
    case TruthStructure::psd: {
      const Vector values = spectrum(c);
      m = LowRankModel::symmetric_from_eigen(orthonormalize(gaussian_matrix(rng, c.d1, values.size())), values);
      break;
    }
    case TruthStructure::general:
    case TruthStructure::unit_columns: {
      const Vector values = spectrum(c);
      m.left = orthonormalize(gaussian_matrix(rng, c.d1, values.size())) * values.asDiagonal();
      m.right = orthonormalize(gaussian_matrix(rng, c.d2, values.size()));
      if (c.structure == TruthStructure::unit_columns) {
        // Column j of W = L R' is L R(j,:)'; L has orthogonal columns, so its norm is |S ∘ V(j,:)|.
        for (Index j = 0; j < m.right.rows(); ++j) {
          const double norm = (m.left * m.right.row(j).transpose()).norm();
          if (norm > 0.0) m.right.row(j) /= norm;
        }
      }
      break;
    }
    case TruthStructure::fm: {
      m.left = gaussian_matrix(rng, c.d1, c.rank, c.factor_std);
      m.right = m.left;
      m.symmetrize = true;  // U U' is symmetric; the flag says so
      m.zero_diagonal = true;
      break;
    }
    case TruthStructure::zero_diagonal: {
      m.left = gaussian_matrix(rng, c.d1, c.rank, c.factor_std);
      m.right = gaussian_matrix(rng, c.d2, c.rank, c.factor_std);
      m.zero_diagonal = true;
      break;
    }
  }
  m.left *= c.truth_sign;
  if (c.w_std) {
    m.w = gaussian_matrix(rng, c.d1, 1, *c.w_std);
  } else if (c.w_norm > 0.0) {
    const Vector direction = gaussian_matrix(rng, c.d1, 1);
    m.w = c.w_norm * direction / direction.norm();
  }
  m.bias = c.bias;
  return m;
}

// ---- SyntheticSource ----

SyntheticSource::SyntheticSource(SyntheticConfig config, std::unique_ptr<SensingOperator> op,
                                 std::unique_ptr<Sampler> left, std::unique_ptr<Sampler> right)
    : config_(std::move(config)), op_(std::move(op)), left_sampler_(std::move(left)), right_sampler_(std::move(right)) {}

SyntheticSource::~SyntheticSource() = default;

ProblemShape SyntheticSource::shape() const { return {config_.d1, config_.d2, op_->symmetric()}; }

void SyntheticSource::open(std::uint64_t seed) {
  prefetcher_.reset();  // first: its worker reads the truth and the seed this call replaces
  Rng truth_rng(derive_seed(seed, "truth"));
  truth_ = plant_truth(config_, truth_rng);
  opened_ = true;
  if (config_.without_replacement) {
    Rng entries_rng(derive_seed(seed, "entries"));
    entries_ = draw_entries(entries_rng, config_.d1, config_.d2, *config_.size, config_.min_per_line,
                            config_.test_size + config_.validation_size);
  }
  Rng test_rng(derive_seed(seed, "test"));
  test_ = config_.test_size > 0 ? draw(test_rng, config_.test_size, /*test=*/true, config_.size.value_or(0)) : Batch{};
  Rng validation_rng(derive_seed(seed, "validation"));
  validation_ = config_.validation_size > 0 ? draw(validation_rng, config_.validation_size, /*test=*/false,
                                                   config_.size.value_or(0) + config_.test_size)
                                            : Batch{};
  train_seed_ = derive_seed(seed, "train");
  position_ = 0;
  cached_chunk_ = -1;
  cached_ = Batch{};
  if (config_.prefetch > 0) {
    const Index chunks = config_.size ? (*config_.size + kChunk - 1) / kChunk : -1;
    prefetcher_ = std::make_unique<ChunkPrefetcher>([this](Index c) { return draw_chunk(c); }, chunks,
                                                    (config_.prefetch + kChunk - 1) / kChunk + 1);
  }
}

Batch SyntheticSource::draw(Rng& rng, Index n, bool test, Index first) const {
  Batch b;
  if (config_.matrix_designs) {
    DesignSide entries;
    left_sampler_->sample(rng, config_.d1, n * config_.d2, entries);  // A_i: d2 columns of dimension d
    b.left = DesignSide::make_matrix(config_.d2, std::move(entries.dense));
  } else {
    left_sampler_->sample(rng, config_.d1, n, b.left);
  }
  if (config_.without_replacement) b.left.index = entries_.rows.segment(first, n);  // the sampler's scale, Ω's rows
  if (right_sampler_) {
    DesignSide right;
    right_sampler_->sample(rng, config_.d2, n, right);
    if (config_.without_replacement) right.index = entries_.cols.segment(first, n);
    const bool every_label = test ? config_.test_full_labels : config_.full_labels;
    if (every_label) right = DesignSide::make_all(config_.d2, right.scale);
    b.right = std::move(right);
  }
  b.y = op_->forward(b, truth_);
  const bool noisy = !test || config_.test_noise;
  if (noisy && config_.amplitude_snr) {
    // On the amplitudes |a_i'x| = √y₀, clipped at zero, as the phase-retrieval papers add it; σ from the truth
    // (‖x‖ = √tr M*, the RMS amplitude of designs with E aa' = I), the same for every chunk and part.
    const Vector amplitude = b.y.cwiseMax(0.0).cwiseSqrt();
    const double sigma = std::sqrt(std::max(truth_.left.cwiseProduct(truth_.right).sum(), 0.0)) / *config_.amplitude_snr;
    Vector noise(b.y.size());
    rng.fill_normal(noise.data(), noise.size());
    b.y = (amplitude + sigma * noise).cwiseMax(0.0).array().square();
  }
  if (noisy && config_.noise_std > 0.0) {
    Vector noise(b.y.size());
    rng.fill_normal(noise.data(), noise.size());
    b.y += config_.noise_std * noise;
  }
  if (config_.link == Link::sign) b.y = b.y.unaryExpr([](double v) { return v >= 0.0 ? 1.0 : -1.0; });
  if (noisy && config_.flip_probability > 0.0)
    for (Index i = 0; i < b.y.size(); ++i)
      if (rng.uniform() < config_.flip_probability) b.y(i) = -b.y(i);
  return b;
}

Batch SyntheticSource::draw_chunk(Index c) const {
  Rng rng(derive_seed(train_seed_, "chunk/" + std::to_string(c)));
  const Index n = config_.size ? std::min(kChunk, *config_.size - c * kChunk) : kChunk;
  return draw(rng, n, /*test=*/false, c * kChunk);
}

const Batch& SyntheticSource::chunk(Index c) {
  if (c != cached_chunk_) {
    cached_ = prefetcher_ ? prefetcher_->take(c) : draw_chunk(c);
    cached_chunk_ = c;
  }
  return cached_;
}

Batch SyntheticSource::empty_batch() const {
  Batch b;
  b.left.kind = config_.matrix_designs ? DesignSide::Kind::matrix : left_sampler_->kind();
  b.left.dim = config_.d1;
  if (config_.matrix_designs) b.left.cols = config_.d2;
  if (right_sampler_) {
    DesignSide right;
    right.kind = config_.full_labels ? DesignSide::Kind::all : right_sampler_->kind();
    right.dim = config_.d2;
    b.right = std::move(right);
  }
  return b;
}

Batch SyntheticSource::produce(Index n) {
  if (!opened_) throw std::logic_error("synthetic source: next() called before open()");
  const Index wanted = config_.size ? std::min(n, *config_.size - position_) : n;
  if (wanted <= 0) return empty_batch();
  Batch out = take_spare();  // a recycled batch's buffers: no allocation when the size repeats
  // With full_labels every instance carries all d2 labels, stored label-major: y(i + n·j).
  const Index labels = config_.full_labels ? config_.d2 : 1;
  out.y.resize(wanted * labels);
  if (right_sampler_) out.right = DesignSide{};
  for (Index filled = 0; filled < wanted;) {
    const Batch& current = chunk(position_ / kChunk);
    const Index offset = position_ % kChunk;
    const Index take = std::min(wanted - filled, current.instances() - offset);
    copy_designs(current.left, offset, take, filled, wanted, out.left);
    if (config_.full_labels) {
      if (filled == 0) out.right = DesignSide::make_all(config_.d2, current.right->scale);
      for (Index j = 0; j < labels; ++j)
        out.y.segment(filled + wanted * j, take) = current.y.segment(offset + current.instances() * j, take);
    } else {
      if (out.right) copy_designs(*current.right, offset, take, filled, wanted, *out.right);
      out.y.segment(filled, take) = current.y.segment(offset, take);
    }
    position_ += take;
    filled += take;
  }
  return out;
}

// ---- Registration: parameters, combinations, factory ----

namespace {

[[noreturn]] void reject(const Params& p, const std::string& name, const std::string& message) {
  throw ConfigError("at " + p.path_of(name) + ": " + message);
}

bool accepts(const std::vector<DesignSide::Kind>& kinds, DesignSide::Kind k) {
  return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
}

std::string kinds_text(const std::vector<DesignSide::Kind>& kinds) {
  std::string out;
  for (auto k : kinds) out += (out.empty() ? "" : " or ") + kind_name(k);
  return out;
}

std::string plugin_name(const Json& ref) { return ref.is_string() ? ref.get<std::string>() : ref.value("name", ""); }

TruthStructure structure_from(const std::string& s) {
  if (s == "psd") return TruthStructure::psd;
  if (s == "fm") return TruthStructure::fm;
  if (s == "zero_diagonal") return TruthStructure::zero_diagonal;
  if (s == "general") return TruthStructure::general;
  if (s == "unit_columns") return TruthStructure::unit_columns;
  return TruthStructure::symmetric;
}

SpectrumSpacing spacing_from(const std::string& s) {
  return s == "linear" ? SpectrumSpacing::linear : SpectrumSpacing::geometric;
}

SpectrumSigns signs_from(const std::string& s) {
  if (s == "positive") return SpectrumSigns::positive;
  if (s == "negative") return SpectrumSigns::negative;
  return SpectrumSigns::mixed;
}

/// True when the operator takes whole design matrices (gaussian_ensemble), drawn entry by entry.
bool takes_matrices(const SensingOperator& op) { return op.accepted_left() == std::vector{DesignSide::Kind::matrix}; }

void check_sampler(const Params& p, const std::string& param, const Sampler& sampler, const std::string& sampler_name,
                   const std::vector<DesignSide::Kind>& accepted, const std::string& side,
                   const std::string& operator_name) {
  // A matrix design's entries are drawn by a dense sampler, d2 design vectors per matrix.
  const bool drawn = accepts(accepted, sampler.kind()) ||
                     (accepts(accepted, DesignSide::Kind::matrix) && sampler.kind() == DesignSide::Kind::dense);
  if (!drawn)
    reject(p, param,
           "operator '" + operator_name + "' takes " + kinds_text(accepted) + " " + side + " designs, but sampler '" +
               sampler_name + "' makes " + kind_name(sampler.kind()) + " designs");
}

/// Reads the configuration and rejects combinations the schema alone cannot express.
SyntheticConfig read_config(const Params& p, const SensingOperator& op, const std::string& operator_name) {
  SyntheticConfig c;
  c.d1 = p.integer("d");
  c.d2 = p.has("d2") ? p.integer("d2") : c.d1;
  c.rank = p.integer("rank");
  c.structure = structure_from(p.string("truth"));
  c.eigenvalues = p.numbers("eigenvalues");
  c.scale = p.number("scale");
  c.condition_number = p.number("condition_number");
  c.signs = signs_from(p.string("signs"));
  c.spacing = spacing_from(p.string("spacing"));
  c.tail = p.numbers("tail");
  c.truth_sign = static_cast<double>(p.integer("truth_sign"));
  c.factor_std = p.has("factor_std") ? p.number("factor_std") : 1.0 / std::sqrt(static_cast<double>(c.d1));
  c.w_norm = p.number("w_norm");
  if (p.has("w_std")) c.w_std = p.number("w_std");
  c.bias = p.number("bias");
  c.link = p.string("link") == "sign" ? Link::sign : Link::identity;
  c.noise_std = p.number("noise_std");
  if (p.has("amplitude_snr")) c.amplitude_snr = p.number("amplitude_snr");
  c.flip_probability = p.number("flip_probability");
  c.test_size = p.integer("test_size");
  c.validation_size = p.integer("validation_size");
  c.test_full_labels = p.boolean("test_full_labels");
  c.full_labels = p.boolean("full_labels");
  c.test_noise = p.boolean("test_noise");
  if (p.has("size")) c.size = p.integer("size");
  c.prefetch = p.integer("prefetch");
  c.without_replacement = p.string("entries") == "without_replacement";
  c.min_per_line = p.integer("min_per_line");
  c.matrix_designs = takes_matrices(op);

  const std::string truth = p.string("truth");
  const std::string op_text = "operator '" + operator_name + "'";
  if (op.symmetric() && c.d2 != c.d1)
    reject(p, "d2", op_text + " is symmetric (x'Mx): d2 must equal d (" + std::to_string(c.d1) + ")");
  if (is_square(c.structure) && c.d2 != c.d1)
    reject(p, "d2", "truth '" + truth + "' is a square matrix: d2 must equal d (" + std::to_string(c.d1) + ")");
  if (!is_square(c.structure) && op.symmetric())
    reject(p, "truth", "truth '" + truth + "' is a rectangular d x d2 matrix; " + op_text +
                           " only sees its symmetric part (use \"symmetric\" or \"psd\")");
  if (is_symmetric(c.structure) && !op.symmetric() && !c.matrix_designs && op.accepted_left() != op.accepted_right())
    reject(p, "truth", "truth '" + truth + "' is symmetric, but " + op_text +
                           " pairs designs of different kinds (features and labels); use \"general\" or \"unit_columns\"");

  const Index factors = c.rank + static_cast<Index>(c.tail.size());
  if (c.rank > std::min(c.d1, c.d2))
    reject(p, "rank", "rank " + std::to_string(c.rank) + " exceeds min(d, d2) = " + std::to_string(std::min(c.d1, c.d2)));
  if (!c.eigenvalues.empty()) {
    if (!is_spectral(c.structure)) reject(p, "eigenvalues", "truth '" + truth + "' has no prescribed spectrum");
    if (static_cast<Index>(c.eigenvalues.size()) != c.rank)
      reject(p, "eigenvalues", "expected rank = " + std::to_string(c.rank) + " values, found " +
                                   std::to_string(c.eigenvalues.size()));
  }
  if (!c.tail.empty()) {
    if (!is_spectral(c.structure)) reject(p, "tail", "truth '" + truth + "' has no prescribed spectrum to extend");
    if (factors > std::min(c.d1, c.d2))
      reject(p, "tail", "rank + tail length = " + std::to_string(factors) + " exceeds min(d, d2) = " +
                            std::to_string(std::min(c.d1, c.d2)));
  }
  if (c.structure != TruthStructure::symmetric) {
    // psd eigenvalues and singular values cannot be negative.
    for (const char* list : {"eigenvalues", "tail"})
      for (double v : p.numbers(list))
        if (is_spectral(c.structure) && v < 0.0)
          reject(p, list, "truth '" + truth + "' needs non-negative values, found " + std::to_string(v));
  }
  if (p.has("factor_std") && is_spectral(c.structure))
    reject(p, "factor_std", "applies to truth \"fm\" and \"zero_diagonal\" only (truth is '" + truth + "')");
  if (c.truth_sign == 0.0) reject(p, "truth_sign", "must be 1 or -1, found 0");
  if (c.w_std && c.w_norm > 0.0) reject(p, "w_std", "give either w_norm or w_std, not both");
  if ((c.w_std || c.w_norm > 0.0) && !op.has_first_order())
    reject(p, c.w_std ? "w_std" : "w_norm",
           op_text + " adds no first-order term a'w here (symmetric_rank_one and asymmetric_rank_one add it unless "
                                          "\"first_order\" is false)");
  if (c.amplitude_snr) {
    // Amplitudes √y₀ exist where every clean response is (a_i'x)² ≥ 0: phase retrieval's data.
    if (!op.symmetric() || c.matrix_designs || c.structure != TruthStructure::psd || c.truth_sign < 0.0)
      reject(p, "amplitude_snr", "noise on amplitudes needs responses (a_i'x)² ≥ 0: operator symmetric_rank_one with "
                                 "truth \"psd\" (here " + op_text + ", truth '" + truth + "')");
    if (c.w_norm > 0.0 || c.w_std || c.bias != 0.0 || c.link != Link::identity)
      reject(p, "amplitude_snr", "noise on amplitudes needs responses (a_i'x)²: no w_norm, w_std, bias or sign link");
    if (c.noise_std > 0.0) reject(p, "amplitude_snr", "give amplitude_snr or noise_std, not both");
  }
  if (c.flip_probability > 0.0 && c.link != Link::sign)
    reject(p, "flip_probability", "label flips need link \"sign\" (link is \"identity\")");
  if (c.test_full_labels && (op.symmetric() || !accepts(op.accepted_right(), DesignSide::Kind::all)))
    reject(p, "test_full_labels", op_text + " cannot pair an instance with every right index");
  if (c.full_labels && (op.symmetric() || !accepts(op.accepted_right(), DesignSide::Kind::all)))
    reject(p, "full_labels", op_text + " cannot pair an instance with every right index");
  if (c.without_replacement) {
    const bool entries = !op.symmetric() && op.accepted_left() == std::vector{DesignSide::Kind::index} &&
                         op.accepted_right() == std::vector{DesignSide::Kind::index};
    if (!entries)
      reject(p, "entries", "entries are drawn without replacement for an entry operator (index designs on both sides, "
                           "e.g. \"entry\"); " + op_text + " is not one");
    const Index wanted = *c.size + c.test_size + c.validation_size;
    // d · d2 in 128 bits: the dimensions have no upper bound of their own.
    const auto cells = static_cast<unsigned __int128>(c.d1) * static_cast<unsigned __int128>(c.d2);
    if (static_cast<unsigned __int128>(wanted) > cells)
      reject(p, "size", "size + test_size + validation_size = " + std::to_string(wanted) + " distinct entries of a " +
                            std::to_string(c.d1) + " × " + std::to_string(c.d2) + " matrix (" +
                            std::to_string(static_cast<std::uint64_t>(cells)) + " entries)");
    if (c.min_per_line > std::min(c.d1, c.d2))
      reject(p, "min_per_line", "a line of the " + std::to_string(c.d1) + " × " + std::to_string(c.d2) + " matrix has at "
                                "most min(d, d2) = " + std::to_string(std::min(c.d1, c.d2)) + " entries");
    if (*c.size < c.min_per_line * (c.d1 + c.d2))
      reject(p, "size", std::to_string(*c.size) + " entries cannot hold min_per_line = " + std::to_string(c.min_per_line) +
                            " in every row and column whatever is drawn: give at least min_per_line · (d + d2) = " +
                            std::to_string(c.min_per_line * (c.d1 + c.d2)));
  }
  return c;
}

std::unique_ptr<Component> make_synthetic(const Params& p, const BuildContext& ctx) {
  const std::string operator_name = plugin_name(p.raw("operator"));
  auto op = ctx.registry.create<SensingOperator>(p.raw("operator"), Kind::sensing_operator, p.path_of("operator"));
  auto left = ctx.registry.create<Sampler>(p.raw("sampler"), Kind::sampler, p.path_of("sampler"));
  check_sampler(p, "sampler", *left, plugin_name(p.raw("sampler")), op->accepted_left(), "left", operator_name);

  std::unique_ptr<Sampler> right;
  if (op->symmetric()) {
    if (p.has("right_sampler"))
      reject(p, "right_sampler", "operator '" + operator_name + "' is symmetric: its right design is the left one");
  } else if (takes_matrices(*op)) {
    if (p.has("right_sampler"))
      reject(p, "right_sampler", "operator '" + operator_name + "' takes one matrix A_i per measurement, drawn by "
                                 "\"sampler\"; it has no right design");
  } else if (p.has("right_sampler")) {
    right = ctx.registry.create<Sampler>(p.raw("right_sampler"), Kind::sampler, p.path_of("right_sampler"));
    check_sampler(p, "right_sampler", *right, plugin_name(p.raw("right_sampler")), op->accepted_right(), "right",
                  operator_name);
  } else if (accepts(op->accepted_right(), left->kind())) {
    right = ctx.registry.create<Sampler>(p.raw("sampler"), Kind::sampler, p.path_of("sampler"));
  } else if (accepts(op->accepted_right(), DesignSide::Kind::index)) {
    // Labels on the right (single_label): a uniformly random label index.
    const ValidationContext vctx(ctx.registry, nullptr);
    const Json ref = validate_plugin_ref(Json("one_hot"), Kind::sampler, vctx, p.path_of("right_sampler"));
    right = ctx.registry.create<Sampler>(ref, Kind::sampler, p.path_of("right_sampler"));
  } else {
    reject(p, "right_sampler", "operator '" + operator_name + "' needs " + kinds_text(op->accepted_right()) +
                                   " right designs; give a right_sampler");
  }

  SyntheticConfig config = read_config(p, *op, operator_name);
  return std::make_unique<SyntheticSource>(std::move(config), std::move(op), std::move(left), std::move(right));
}

/// Bytes of one design of `sampler` in dimension `dim` (its declared footprint).
double design_bytes(const Registry& registry, const Json& sampler, Index dim) {
  DataFootprint design;
  design.shape.d1 = dim;
  return registry.footprint(sampler, Kind::sampler, FootprintContext{registry, design}).data.instance_bytes;
}

/// The served instance (designs, responses), the truth, the test set and the cached chunk.
Footprint synthetic_footprint(const Params& p, const FootprintContext& ctx) {
  const auto op = ctx.registry.create<SensingOperator>(p.raw("operator"), Kind::sensing_operator, p.path_of("operator"));
  const Index d1 = p.integer("d");
  const Index d2 = p.has("d2") ? p.integer("d2") : d1;
  Footprint f;
  f.data.shape = ProblemShape{d1, d2, op->symmetric()};
  // A matrix design is d2 draws of the sampler's design vector.
  const double left = design_bytes(ctx.registry, p.raw("sampler"), d1) * (takes_matrices(*op) ? static_cast<double>(d2) : 1.0);
  const DesignSide::Kind left_kind = ctx.registry.create<Sampler>(p.raw("sampler"), Kind::sampler)->kind();
  f.data.dense_designs = left_kind == DesignSide::Kind::dense && !takes_matrices(*op);
  double right = 0;
  if (!op->symmetric() && !takes_matrices(*op)) {
    if (p.has("right_sampler")) right = design_bytes(ctx.registry, p.raw("right_sampler"), d2);
    else if (accepts(op->accepted_right(), left_kind))
      right = design_bytes(ctx.registry, p.raw("sampler"), d2);
    else right = sizeof(std::int32_t);  // a label index
  }
  const double labels = static_cast<double>(d2);
  f.data.measurements_per_instance = p.boolean("full_labels") ? labels : 1.0;
  f.data.instance_bytes = left + (p.boolean("full_labels") ? 0.0 : right) + 8.0 * f.data.measurements_per_instance;
  if (p.has("size")) f.data.training_instances = static_cast<double>(p.integer("size"));
  f.data.endless = !p.has("size");
  f.data.test_instances = static_cast<double>(p.integer("test_size"));
  f.data.test_measurements_per_instance = p.boolean("test_full_labels") ? labels : 1.0;
  f.data.has_truth = true;
  f.data.zero_diagonal_model = p.string("truth") == "fm" || p.string("truth") == "zero_diagonal";

  const double factors = static_cast<double>(p.integer("rank")) + static_cast<double>(p.numbers("tail").size());
  f.add("planted truth (factors " + format_count(static_cast<double>(d1)) + " + " + format_count(static_cast<double>(d2)) +
            " × " + format_count(factors) + ", w)",
        dense_bytes(static_cast<double>(d1) + static_cast<double>(d2), factors) + dense_bytes(static_cast<double>(d1), 1));
  if (f.data.test_instances > 0) {
    const double test_instance = left + (p.boolean("test_full_labels") ? 0.0 : right) + 8.0 * f.data.test_measurements_per_instance;
    f.add("test set of " + format_count(f.data.test_instances) + " instances", f.data.test_instances * test_instance);
  }
  if (p.string("entries") == "without_replacement") {
    // While drawn: a hash set of the keys (~40 bytes an entry), the keys, the training copy, the indices.
    const double entries = static_cast<double>(p.integer("size") + p.integer("test_size") + p.integer("validation_size"));
    f.add("distinct entries while drawn (" + format_count(entries) + ")", entries * 64.0);
  }
  f.add("cached chunk of " + std::to_string(SyntheticSource::kChunk) + " instances",
        static_cast<double>(SyntheticSource::kChunk) * f.data.instance_bytes);
  if (const Index ahead = p.integer("prefetch"); ahead > 0)  // the window: whole chunks, one more
    f.add("prefetched instances",
          static_cast<double>(((ahead + SyntheticSource::kChunk - 1) / SyntheticSource::kChunk + 1) * SyntheticSource::kChunk) *
              f.data.instance_bytes);
  return f;
}

}  // namespace

Registration synthetic_registration() {
  Registration r;
  r.kind = Kind::data_source;
  r.name = "synthetic";
  r.summary = "Planted low-rank truth observed through a sensing operator, with noise, link and label flips";
  r.doc_page = "docs/plugins/synthetic.md";
  r.citation = "Truth models of Lin & Ye 2016 (gFM, Eq. 1), Learning FMs on Sub-gaussian Data 2019 (FM Eq. 2, "
               "iFM Eq. 12, Section 4.1) and Qiu et al. 2017 (one-bit single-label, Eq. 2)";
  Schema& s = r.schema;
  s.plugin("operator", "operator", "symmetric_rank_one", "sensing operator producing a'Mb (+ a'w + bias)")
      .sets_defaults_of_referenced(
          [](const Json& given) {
            const bool w_norm = given.contains("w_norm") && given["w_norm"].is_number() && given["w_norm"].get<double>() > 0.0;
            const bool w_std = given.contains("w_std") && !given["w_std"].is_null();
            return Json{{"first_order", w_norm || w_std}};
          },
          "the operator's first_order defaults to whether the truth plants w (w_norm above 0, or w_std)");
  s.plugin("sampler", "sampler", "gaussian", "distribution of the left designs (and of the right ones by default)");
  s.plugin("right_sampler", "sampler", std::nullopt,
                    "right designs of a non-symmetric operator; default: `sampler` if the operator accepts its "
                    "kind, else one_hot (a uniform label index)").make_nullable();
  s.integer("d", std::nullopt, "rows d1 of M (the feature dimension)").at_least(1);
  s.integer("d2", std::nullopt, "columns of M; default d").make_nullable().at_least(1);
  s.integer("rank", 2, "rank k of M*").at_least(1);
  s.choice("truth", "symmetric", {"symmetric", "psd", "fm", "zero_diagonal", "general", "unit_columns"},
           "structure of M*: U diag(λ) U' | same, λ > 0 | UU' − D(UU') | UV' − D(UV') | U S V' | U S V' with "
           "unit-norm columns");
  s.number_list("eigenvalues", "explicit eigen/singular values (rank of them), used as given; default geometric");
  s.number("scale", 1.0, "largest |eigenvalue| / singular value of the geometric spectrum").above(0.0);
  s.number("condition_number", 1.0, "ratio κ of the largest to the k-th |eigenvalue| of the generated spectrum")
      .at_least(1.0);
  s.choice("spacing", "geometric", {"geometric", "linear"},
           "how the generated spectrum falls from scale to scale/κ: log-spaced (geometric) or linearly spaced");
  s.constraint({"spacing", "eigenvalues"}, "spacing shapes a generated spectrum; explicit eigenvalues are used as given",
               [](const Params& p) { return p.string("spacing") == "geometric" || !p.has("eigenvalues"); });
  s.choice("signs", "mixed", {"mixed", "positive", "negative"},
           "eigenvalue signs of truth \"symmetric\": alternating +,−,+,… | all + | all −");
  s.number_list("tail", "extra eigen/singular values beyond the rank (M* not exactly low-rank), used as given");
  s.integer("truth_sign", 1, "multiplies M* (−1: labels with their sign flipped)").at_least(-1).at_most(1);
  s.number("factor_std", std::nullopt, "entry std of the Gaussian factors of \"fm\" / \"zero_diagonal\"; "
                                                "default 1/√d").make_nullable()
      .above(0.0);
  s.number("w_norm", 0.0, "norm of w* = w_norm · (uniform random unit vector); 0: no first-order term").at_least(0.0);
  s.number("w_std", std::nullopt, "w* with i.i.d. N(0, w_std²) entries instead of w_norm").make_nullable().at_least(0.0);
  s.number("bias", 0.0, "intercept added to every measurement");
  s.choice("link", "identity", {"identity", "sign"}, "y = 𝒜(M*) + ξ, or y = sign(𝒜(M*) + ξ) with sign(0) = +1");
  s.number("noise_std", 0.0, "std of the Gaussian noise ξ added before the link").at_least(0.0);
  s.number("amplitude_snr", std::nullopt,
           "phase retrieval's noise: y = max(√y₀ + ξ, 0)², ξ ~ N(0, σ²), σ = ‖x‖/amplitude_snr with ‖x‖ = √tr M* (the "
           "RMS of √y₀ = |a'x| for designs with E aa' = I) (operator symmetric_rank_one, truth \"psd\"); unset: none")
      .above(0.0)
      .make_nullable();
  s.number("flip_probability", 0.0, "probability that a training label's sign is flipped (link sign only)")
      .at_least(0.0)
      .at_most(0.5);
  s.integer("test_size", 0, "instances in the held-out test set (0: none)").at_least(0);
  s.integer("validation_size", 0,
            "instances in a validation part drawn like the training data (noise included), apart from it and from "
            "the test set: what early_stopping scores (0: none)")
      .at_least(0);
  s.boolean("test_full_labels", false, "pair each test instance with every right index (single_label)");
  s.boolean("full_labels", false,
            "training instances observe every right index (full-observation multi-label, single_label); "
            "a batch of n instances then has n·d2 measurements");
  s.boolean("test_noise", false, "apply noise and flips to the test labels too (default: clean test labels)");
  s.integer("size", std::nullopt, "a finite training set of this many instances; default endless").make_nullable()
      .at_least(1);
  s.choice("entries", "with_replacement", {"with_replacement", "without_replacement"},
           "entry operators: entries drawn independently (an entry may repeat) | a training set of `size` distinct "
           "entries, with test and validation entries distinct from it (needs size)");
  s.integer("min_per_line", 0,
            "without replacement: every row and every column of the training set holds at least this many entries "
            "(the rest uniform); needs size ≥ min_per_line · (d + d2)")
      .at_least(0);
  s.constraint({"entries", "size"}, "entries without replacement form a finite training set: give its size",
               [](const Params& p) { return p.string("entries") == "with_replacement" || p.has("size"); });
  s.constraint({"min_per_line", "entries"}, "a minimum per row and column is a property of entries drawn without replacement",
               [](const Params& p) { return p.integer("min_per_line") == 0 || p.string("entries") == "without_replacement"; });
  s.integer("prefetch", 0,
            "training instances drawn ahead on a second thread while the estimator works (e.g. its batch_size; "
            "0: none). Instances depend only on their position, so results are unchanged; it costs a second "
            "core and the memory of that many instances")
      .at_least(0);
  r.example = {{"d", 10}};
  r.factory = make_synthetic;
  r.footprint = synthetic_footprint;
  return r;
}

}  // namespace rankone::sources
