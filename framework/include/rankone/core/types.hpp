#pragma once
/// \file Basic numeric types shared by every RankOne component.
#include <Eigen/Dense>
#include <cstdint>

namespace rankone {

using Index = Eigen::Index;
using Matrix = Eigen::MatrixXd;  ///< column-major, dynamic
using Vector = Eigen::VectorXd;
using IndexVector = Eigen::Matrix<std::int32_t, Eigen::Dynamic, 1>;

}  // namespace rankone
