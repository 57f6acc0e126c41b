#pragma once
/// \file Named numeric arrays: how a model's factors and a data source's preparation (statistics, id
/// maps) are kept, stored and exported. One element type each, float64 or int64; one or two
/// dimensions; row-major (C order, as numpy's default), whatever Eigen's own order.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "rankone/core/types.hpp"

namespace rankone {

struct NamedArray {
  std::vector<std::int64_t> shape;     ///< one or two extents
  std::vector<double> reals;           ///< float64 elements, row-major (a float64 array)
  std::vector<std::int64_t> integers;  ///< int64 elements, row-major (an int64 array)
  bool integral = false;               ///< int64 (integers) or float64 (reals)

  std::int64_t elements() const;
  /// A float64 array of a matrix (2-d) or of a vector (1-d).
  static NamedArray of(const Matrix& m);
  static NamedArray of(const Vector& v);
  static NamedArray of(std::vector<std::int64_t> values);
  /// The float64 array as a matrix (a 1-d array of n elements is an n × 1 matrix).
  Matrix matrix() const;
  Vector vector() const;
};

/// Arrays by name (names are also file names when exported: letters, digits and '_').
using ArraySet = std::map<std::string, NamedArray>;

}  // namespace rankone
