// Dense design products in one pass, by register-tiled SIMD kernels (rankone/linalg/blocked_products.hpp).
#include "rankone/linalg/blocked_products.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace rankone {

namespace {

namespace ei = Eigen::internal;

/// The widest packet of doubles the build's instruction set has (2 with SSE2, 4 with AVX2, 8 with AVX-512).
using Packet = ei::packet_traits<double>::type;
constexpr Index kLanes = sizeof(Packet) / sizeof(double);

/// a·b + c rounded as the packets round it (fused where the build has FMA), for the scalar tails.
inline double madd(double a, double b, double c) {
#ifdef __FMA__
  return std::fma(a, b, c);
#else
  return a * b + c;
#endif
}

// `#pragma GCC unroll` on a tile's loops keeps its accumulator arrays in registers (GCC leaves an array
// indexed in a rolled loop on the stack).

/// The build's vector registers: 32 with AVX-512, 16 with SSE2 and AVX2. The tiles below fill them; their shapes
/// change only the speed, never a bit of the result (every sum runs in the same order whatever the tile).
constexpr int kRegisters = kLanes == 8 ? 32 : 16;

/// Tiles of X_s'F: 4 designs × 3 columns (12 accumulators, 3 packets of F and 1 of X fill 16 registers), or
/// 6 × 4 (24 + 4 + 1 of 32; measured faster on AVX-512 than 4 × 6 or 4 × 4): each loaded packet serves 3 to 6
/// multiply-adds.
constexpr int kDesignTile = kRegisters == 32 ? 6 : 4;
constexpr int kColumnTile = kRegisters == 32 ? 4 : 3;  ///< columns of F per tile of X_s'F, at most

/// Tiles of X_s W: 2 packets of rows × 6 columns (12 accumulators, with 2 packets of X and 1 weight in 16
/// registers), or 4 × 6 (24 + 4 + 1 of 32).
constexpr int kRowPackets = kRegisters == 32 ? 4 : 2;
constexpr int kWeightTile = 6;

/// The packet, held in a register: GCC would otherwise fold its load into each multiply-add that uses it and
/// load it once per design, which makes the tile wait on loads rather than arithmetic.
inline Packet in_register(Packet p) {
#if defined(__GNUC__) && defined(__AVX512F__)
  asm("" : "+v"(p));  // any of the 32 registers ("x" allows only the first 16)
#elif defined(__GNUC__)
  asm("" : "+x"(p));
#endif
  return p;
}

/// Reads the designs of a later tile into the cache while the current tile computes, one line per step of its
/// arithmetic (and, at the start of a call, the lines its steps cannot take): the hardware prefetcher alone keeps
/// the first pass over each tile waiting on memory. Each call of dot_tile reads the next `per_call` lines of
/// [next, end).
struct Ahead {
  const char* next;
  const char* end;
  Index per_call;
};

Index block_count(Index n) { return (n + kDesignBlock - 1) / kDesignBlock; }

/// Designs per slice: about 512 KB of X (64 designs at d = 1 000), so that the slice read from memory for X_s'F
/// is still in L2 or L3 when X_s W uses it. A multiple of the design tile unless clamped to the block; depends on
/// d only, and the result does not depend on it at all.
Index slice_size(Index d) {
  return std::clamp<Index>(((Index{1} << 16) / std::max<Index>(d, 1)) / kDesignTile * kDesignTile, kDesignTile,
                           kDesignBlock);
}

/// body(first, width) for m columns in groups of at most `tile`, of nearly equal width (10 as 5 + 5, not 6 + 4):
/// the narrowest group sets the rate, and a tile of one column has too few accumulators to hide the
/// multiply-add's latency.
template <class Body>
void for_each_column_group(Index m, Index tile, const Body& body) {
  const Index groups = (m + tile - 1) / tile;
  for (Index group = 0, first = 0; group < groups; ++group) {
    const Index width = m / groups + (group < m % groups ? 1 : 0);
    body(first, width);
    first += width;
  }
}

/// Adds x_i(j)·f_c(j) for j in [j_begin, j_end) (whole packets) to the packet sums of DESIGNS designs and
/// COLUMNS columns (packet c·DESIGNS + i of `sums`), which stay in registers meanwhile.
template <int DESIGNS, int COLUMNS>
void dot_tile(const double* const* x_in, const double* const* f_in, Index j_begin, Index j_end, double* sums,
              Ahead& ahead) {
  // Local copies, so that the pointers can stay in registers.
  const double* x[DESIGNS];
  const double* f[COLUMNS];
  for (int i = 0; i < DESIGNS; ++i) x[i] = x_in[i];
  for (int c = 0; c < COLUMNS; ++c) f[c] = f_in[c];
  // This call's lines to read ahead: one a step, and those the steps cannot take at once.
  const Index lines = std::min<Index>(ahead.per_call, (ahead.end - ahead.next) / 64);
  const Index steps = (j_end - j_begin) / kLanes;
  for (Index l = steps; l < lines; ++l) ei::prefetch(ahead.next + 64 * l);
  const Index in_steps = std::min(lines, steps);
  // With no line to read, the tile's own first line (cached) keeps the step's prefetch unconditional.
  const char* read = in_steps > 0 ? ahead.next : reinterpret_cast<const char*>(x[0]);
  const char* const read_last = read + 64 * std::max<Index>(in_steps - 1, 0);
  ahead.next += 64 * lines;
  Packet sum[DESIGNS][COLUMNS];
#pragma GCC unroll 8
  for (int i = 0; i < DESIGNS; ++i)
#pragma GCC unroll 8
    for (int c = 0; c < COLUMNS; ++c) sum[i][c] = ei::ploadu<Packet>(sums + (c * DESIGNS + i) * kLanes);
  for (Index j = j_begin; j < j_end; j += kLanes) {
    ei::prefetch(read);
    read += read < read_last ? 64 : 0;  // after this call's last line, that line again (a no-op)
    Packet fj[COLUMNS];
#pragma GCC unroll 8
    for (int c = 0; c < COLUMNS; ++c) fj[c] = in_register(ei::ploadu<Packet>(f[c] + j));
#pragma GCC unroll 8
    for (int i = 0; i < DESIGNS; ++i) {
      const Packet xj = in_register(ei::ploadu<Packet>(x[i] + j));
#pragma GCC unroll 8
      for (int c = 0; c < COLUMNS; ++c) sum[i][c] = ei::pmadd(xj, fj[c], sum[i][c]);
    }
  }
#pragma GCC unroll 8
  for (int i = 0; i < DESIGNS; ++i)
#pragma GCC unroll 8
    for (int c = 0; c < COLUMNS; ++c) ei::pstoreu(sums + (c * DESIGNS + i) * kLanes, sum[i][c]);
}

/// dot_tile for `width` (1 … WIDTH) columns of F from column c.
template <int DESIGNS, int WIDTH = kColumnTile>
void dot_columns(const double* const* x, const Matrix& F, Index c, Index width, Index j_begin, Index j_end,
                 double* sums, Ahead& ahead) {
  if constexpr (WIDTH > 1) {
    if (width < WIDTH) return dot_columns<DESIGNS, WIDTH - 1>(x, F, c, width, j_begin, j_end, sums, ahead);
  }
  const double* f[WIDTH];
  for (int t = 0; t < WIDTH; ++t) f[t] = F.col(c + t).data();
  dot_tile<DESIGNS, WIDTH>(x, f, j_begin, j_end, sums, ahead);
}

/// Features per chunk of a tile: the tile's designs × 256 features (8 or 12 KB) stay in L1 while every column of
/// F goes by, so that only F's packets come from L2.
constexpr Index kFeatureChunk = 256;

/// P(i, c) = x_i'f_c for DESIGNS designs and every column of F, up to kColumnTile columns per tile: packets along the
/// features, one reduction at the end, then the features past the last whole packet. `sums` holds DESIGNS ×
/// F.cols() packets.
template <int DESIGNS>
void dot_row_of_tiles(const double* const* x, const Matrix& F, double* p, Index p_stride, const double* X_end,
                      double* sums) {
  const Index d = F.rows();
  const Index m = F.cols();
  const Index whole = d / kLanes * kLanes;
  // The next tile (designs are contiguous), read ahead over this tile's calls of dot_tile.
  const Index groups = (m + kColumnTile - 1) / kColumnTile;
  const Index calls = (whole + kFeatureChunk - 1) / kFeatureChunk * groups;
  const double* later = x[0] + std::min<Index>(DESIGNS * d, X_end - x[0]);  // no pointer past X's end
  const double* later_end = later + std::min<Index>(DESIGNS * d, X_end - later);
  const Index lines = (later_end - later) * Index{sizeof(double)} / 64 + 1;
  Ahead ahead{reinterpret_cast<const char*>(later), reinterpret_cast<const char*>(later_end),
              (lines + calls - 1) / std::max<Index>(calls, 1)};
  std::fill(sums, sums + DESIGNS * m * kLanes, 0.0);
  for (Index j0 = 0; j0 < whole; j0 += kFeatureChunk) {
    const Index j1 = std::min(whole, j0 + kFeatureChunk);
    for_each_column_group(m, kColumnTile, [&](Index c, Index width) {
      dot_columns<DESIGNS>(x, F, c, width, j0, j1, sums + c * DESIGNS * kLanes, ahead);
    });
  }
  for (Index c = 0; c < m; ++c)
    for (int i = 0; i < DESIGNS; ++i) {
      double s = ei::predux(ei::ploadu<Packet>(sums + (c * DESIGNS + i) * kLanes));
      for (Index t = whole; t < d; ++t) s = madd(x[i][t], F(t, c), s);
      p[i + c * p_stride] = s;
    }
}

/// P = X_s'F for the s designs from `X_s` (d × s, contiguous), into P (s × m, column stride p_stride); `X_end`
/// bounds the reading ahead; `sums` holds kDesignTile × m packets. Not inlined, so that a profile tells the two kernels
/// apart.
__attribute__((noinline)) void slice_transpose_times(const double* X_s, Index s, const Matrix& F, double* p,
                                                     Index p_stride, const double* X_end, double* sums) {
  const Index d = F.rows();
  const double* x[kDesignTile];
  Index i = 0;
  for (; i + kDesignTile <= s; i += kDesignTile) {
    for (int t = 0; t < kDesignTile; ++t) x[t] = X_s + (i + t) * d;
    dot_row_of_tiles<kDesignTile>(x, F, p + i, p_stride, X_end, sums);
  }
  for (; i < s; ++i) {
    x[0] = X_s + i * d;
    dot_row_of_tiles<1>(x, F, p + i, p_stride, X_end, sums);
  }
}

/// G(j, c) += Σ_i X_s(j, i) W(i, c), i = 0 … s − 1 in order, for PACKETS packets of rows from j0 and COLUMNS
/// columns: the tile of G stays in registers while the slice's designs go by.
template <int PACKETS, int COLUMNS>
void axpy_tile(const double* X_s, Index d, Index s, const double* w, Index w_stride, double* g, Index j0) {
  Packet sum[PACKETS][COLUMNS];
#pragma GCC unroll 8
  for (int c = 0; c < COLUMNS; ++c)
#pragma GCC unroll 8
    for (int v = 0; v < PACKETS; ++v) sum[v][c] = ei::ploadu<Packet>(g + c * d + j0 + v * kLanes);
  for (Index i = 0; i < s; ++i) {
    const double* xi = X_s + i * d + j0;
    ei::prefetch(xi + PACKETS * kLanes);  // this design's rows of the next tile: X_s is read across
    Packet xj[PACKETS];
#pragma GCC unroll 8
    for (int v = 0; v < PACKETS; ++v) xj[v] = in_register(ei::ploadu<Packet>(xi + v * kLanes));
#pragma GCC unroll 8
    for (int c = 0; c < COLUMNS; ++c) {
      const Packet wic = ei::pset1<Packet>(w[i + c * w_stride]);
#pragma GCC unroll 8
      for (int v = 0; v < PACKETS; ++v) sum[v][c] = ei::pmadd(xj[v], wic, sum[v][c]);
    }
  }
#pragma GCC unroll 8
  for (int c = 0; c < COLUMNS; ++c)
#pragma GCC unroll 8
    for (int v = 0; v < PACKETS; ++v) ei::pstoreu(g + c * d + j0 + v * kLanes, sum[v][c]);
}

/// axpy_tile for `width` (1 … WIDTH) columns.
template <int PACKETS, int WIDTH = kWeightTile>
void axpy_columns(const double* X_s, Index d, Index s, const double* w, Index w_stride, double* g, Index j0,
                  Index width) {
  if constexpr (WIDTH > 1) {
    if (width < WIDTH) return axpy_columns<PACKETS, WIDTH - 1>(X_s, d, s, w, w_stride, g, j0, width);
  }
  axpy_tile<PACKETS, WIDTH>(X_s, d, s, w, w_stride, g, j0);
}

/// G += X_s W for the s designs from `X_s` (d × s) and W (s × G.cols(), column stride w_stride). Rows
/// outermost: the slice's lines of a tile of rows, read from L2 for the first six columns, are still in L1 for
/// the next six. Not inlined, so that a profile tells the two kernels apart.
__attribute__((noinline)) void slice_times_accumulate(const double* X_s, Index s, const double* w, Index w_stride,
                                                      Matrix& G) {
  const Index d = G.rows();
  const Index m = G.cols();
  const auto tile_columns = [&](auto packets, Index j) {
    for_each_column_group(m, kWeightTile, [&](Index c, Index width) {
      axpy_columns<decltype(packets)::value>(X_s, d, s, w + c * w_stride, w_stride, G.col(c).data(), j, width);
    });
  };
  Index j = 0;
  for (; j + kRowPackets * kLanes <= d; j += kRowPackets * kLanes)
    tile_columns(std::integral_constant<int, kRowPackets>{}, j);
  for (; j + kLanes <= d; j += kLanes) tile_columns(std::integral_constant<int, 1>{}, j);
  for (; j < d; ++j)  // the rows past the last whole packet, summed in the same order
    for (Index c = 0; c < m; ++c) {
      double sum = G(j, c);
      for (Index i = 0; i < s; ++i) sum = madd(X_s[i * d + j], w[i + c * w_stride], sum);
      G(j, c) = sum;
    }
}

}  // namespace

Matrix blocked_fused_products(const Matrix& X, const Matrix& F, Index weight_cols, const SliceWeights& weights,
                              int threads) {
  if (F.rows() != X.rows()) {
    throw std::invalid_argument("blocked_fused_products: F has " + std::to_string(F.rows()) + " rows, X has " +
                                std::to_string(X.rows()));
  }
  const Index d = X.rows();
  const Index n = X.cols();
  const Index blocks = block_count(n);
  const Index slice = slice_size(d);
  // Partial sums are added in block order, whatever the thread count. On one thread the blocks end in that
  // order, so each is added as it ends; threads keep every block's until all have ended.
  const bool in_order = std::min<Index>(std::max(threads, 1), blocks) <= 1;
  Matrix out = Matrix::Zero(d, weight_cols);
  std::vector<Matrix> partial(static_cast<std::size_t>(in_order ? 1 : blocks));
  for_each_unit(blocks, threads, [&](Index b) {
    Matrix& G = partial[static_cast<std::size_t>(in_order ? 0 : b)];
    G.setZero(d, weight_cols);
    Matrix P(slice, F.cols());
    Matrix W(slice, weight_cols);
    std::vector<double> sums(static_cast<std::size_t>(kDesignTile * F.cols() * kLanes));  // dot tiles' packets
    const Index end = std::min(n, (b + 1) * kDesignBlock);
    for (Index first = b * kDesignBlock; first < end; first += slice) {  // slices in order within the block
      const Index size = std::min(slice, end - first);
      const double* X_s = X.col(first).data();
      if (F.cols() > 0) slice_transpose_times(X_s, size, F, P.data(), slice, X.data() + X.size(), sums.data());
      weights(first, P.topRows(size), W.topRows(size));
      slice_times_accumulate(X_s, size, W.data(), slice, G);
    }
    if (in_order) out += G;
  });
  if (!in_order)
    for (const Matrix& p : partial) out += p;
  return out;
}

Matrix blocked_transpose_times(const Matrix& X, const Matrix& F, int threads) {
  Matrix P(X.cols(), F.cols());
  blocked_fused_products(
      X, F, 0, [&](Index first, const Eigen::Ref<const Matrix>& slice, Eigen::Ref<Matrix>) {
        P.middleRows(first, slice.rows()) = slice;
      },
      threads);
  return P;
}

Matrix blocked_times(const Matrix& X, const Eigen::Ref<const Matrix>& W, int threads) {
  if (W.rows() != X.cols()) {
    throw std::invalid_argument("blocked_times: W has " + std::to_string(W.rows()) + " rows, X has " +
                                std::to_string(X.cols()) + " columns");
  }
  const Matrix no_columns(X.rows(), 0);  // no dot products: the weights are given
  return blocked_fused_products(
      X, no_columns, W.cols(), [&](Index first, const Eigen::Ref<const Matrix>& slice, Eigen::Ref<Matrix> weights) {
        weights = W.middleRows(first, slice.rows());
      },
      threads);
}

}  // namespace rankone
