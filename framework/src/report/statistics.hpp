#pragma once
// Order statistics of the report: quantiles, medians and bands over repetitions.
#include <algorithm>
#include <cmath>
#include <vector>

namespace rankone::reporting {

/// Linear-interpolation quantile of sorted, non-empty values.
inline double quantile(const std::vector<double>& sorted, double q) {
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

struct Band {
  double median = 0.0, low = 0.0, high = 0.0;
};

/// Median and the [q, 1 − q] quantiles (sorts `values`).
inline Band band_of(std::vector<double>& values, double band_quantile) {
  std::sort(values.begin(), values.end());
  return {quantile(values, 0.5), quantile(values, band_quantile), quantile(values, 1.0 - band_quantile)};
}

inline double median_of(std::vector<double>& values) {
  std::sort(values.begin(), values.end());
  return quantile(values, 0.5);
}

}  // namespace rankone::reporting
