#pragma once
/// \file The passes over the instances that both FM baselines' coordinate updates make. A coordinate
/// update is memory-bound: its slope h over the n instances is a product of stored columns, and the
/// update needs Σh², Σh·e and then e += δh. Each `apply` changes one coordinate and, in the same pass,
/// sums the next coordinate's slope against the updated vectors, so a coordinate costs one pass over
/// its column and the state (four reads, two writes) instead of five passes and a stored h.
///
/// The sums are vectorised (`omp simd`, -fopenmp-simd): their order is the vector lanes', fixed for an
/// instruction set, as Eigen's reductions are.
#include "rankone/core/types.hpp"

namespace rankone::fm_baselines {

/// Σh² and Σh·e of a coordinate's slope h.
struct Slope {
  double hh = 0.0;
  double he = 0.0;
};

/// Gibbs FM's factor coordinate v_jf: ∂ŷ/∂v_jf = x_j ∘ (q − v_jf x_j), with q = X v_f.
struct FactorSlope {
  /// The slope of the coordinate with column `x` and value `c`.
  static Slope of(const double* __restrict x, const double* __restrict q, const double* __restrict e, double c,
                  Index n) {
    double hh = 0.0, he = 0.0;
#pragma omp simd reduction(+ : hh, he)
    for (Index i = 0; i < n; ++i) {
      const double h = x[i] * (q[i] - c * x[i]);
      hh += h * h;
      he += h * e[i];
    }
    return {hh, he};
  }
  /// Moves the coordinate (x, c) by δ (q += δx, e += δh) and returns the slope of the next one
  /// (x2, c2) against the updated q and e; `x2` null: there is no next one.
  static Slope apply(const double* __restrict x, double c, double delta, const double* __restrict x2, double c2,
                     double* __restrict q, double* __restrict e, Index n) {
    if (x2 == nullptr) {
#pragma omp simd
      for (Index i = 0; i < n; ++i) {
        e[i] += delta * (x[i] * (q[i] - c * x[i]));
        q[i] += delta * x[i];
      }
      return {};
    }
    double hh = 0.0, he = 0.0;
#pragma omp simd reduction(+ : hh, he)
    for (Index i = 0; i < n; ++i) {
      const double ei = e[i] + delta * (x[i] * (q[i] - c * x[i]));
      const double qi = q[i] + delta * x[i];
      e[i] = ei;
      q[i] = qi;
      const double h = x2[i] * (qi - c2 * x2[i]);
      hh += h * h;
      he += h * ei;
    }
    return {hh, he};
  }
};

/// A linear weight w_j: its slope is its column, h = x_j, whose Σh² is fixed (so only Σh·e is summed).
struct ColumnSlope {
  static double of(const double* __restrict x, const double* __restrict e, Index n) {
    double he = 0.0;
#pragma omp simd reduction(+ : he)
    for (Index i = 0; i < n; ++i) he += x[i] * e[i];
    return he;
  }
  /// e += δx, then Σ x2·e of the next column against the updated e; `x2` null: none.
  static double apply(const double* __restrict x, double delta, const double* __restrict x2, double* __restrict e,
                      Index n) {
    if (x2 == nullptr) {
#pragma omp simd
      for (Index i = 0; i < n; ++i) e[i] += delta * x[i];
      return 0.0;
    }
    double he = 0.0;
#pragma omp simd reduction(+ : he)
    for (Index i = 0; i < n; ++i) {
      const double ei = e[i] + delta * x[i];
      e[i] = ei;
      he += x2[i] * ei;
    }
    return he;
  }
};

/// A coordinate whose slope is its column times a fixed vector, h = x ∘ ξ: the polynomial network's
/// lifted coordinates.
struct ScaledColumnSlope {
  static Slope of(const double* __restrict x, const double* __restrict xi, const double* __restrict e, Index n) {
    double hh = 0.0, he = 0.0;
#pragma omp simd reduction(+ : hh, he)
    for (Index i = 0; i < n; ++i) {
      const double h = x[i] * xi[i];
      hh += h * h;
      he += h * e[i];
    }
    return {hh, he};
  }
  /// e += δ x∘ξ, then the slope of the next column `x2` against the updated e; `x2` null: none.
  static Slope apply(const double* __restrict x, double delta, const double* __restrict x2,
                     const double* __restrict xi, double* __restrict e, Index n) {
    if (x2 == nullptr) {
#pragma omp simd
      for (Index i = 0; i < n; ++i) e[i] += delta * (x[i] * xi[i]);
      return {};
    }
    double hh = 0.0, he = 0.0;
#pragma omp simd reduction(+ : hh, he)
    for (Index i = 0; i < n; ++i) {
      const double ei = e[i] + delta * (x[i] * xi[i]);
      e[i] = ei;
      const double h = x2[i] * xi[i];
      hh += h * h;
      he += h * ei;
    }
    return {hh, he};
  }
};

}  // namespace rankone::fm_baselines
