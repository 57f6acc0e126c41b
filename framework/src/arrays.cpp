#include "rankone/core/arrays.hpp"

#include <stdexcept>

namespace rankone {

std::int64_t NamedArray::elements() const {
  std::int64_t n = 1;
  for (const std::int64_t e : shape) n *= e;
  return n;
}

NamedArray NamedArray::of(const Matrix& m) {
  NamedArray a;
  a.shape = {m.rows(), m.cols()};
  a.reals.resize(static_cast<std::size_t>(m.size()));
  Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(a.reals.data(), m.rows(), m.cols()) = m;
  return a;
}

NamedArray NamedArray::of(const Vector& v) {
  NamedArray a;
  a.shape = {v.size()};
  a.reals.assign(v.data(), v.data() + v.size());
  return a;
}

NamedArray NamedArray::of(std::vector<std::int64_t> values) {
  NamedArray a;
  a.shape = {static_cast<std::int64_t>(values.size())};
  a.integers = std::move(values);
  a.integral = true;
  return a;
}

Matrix NamedArray::matrix() const {
  if (integral) throw std::invalid_argument("an int64 array read as a float64 matrix");
  const Index rows = shape.empty() ? 0 : shape[0];
  const Index cols = shape.size() > 1 ? shape[1] : 1;
  return Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(reals.data(), rows, cols);
}

Vector NamedArray::vector() const {
  if (integral) throw std::invalid_argument("an int64 array read as a float64 vector");
  return Eigen::Map<const Vector>(reals.data(), static_cast<Index>(reals.size()));
}

}  // namespace rankone
