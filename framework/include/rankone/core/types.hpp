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

// The dense decompositions the plugins use are compiled once, in the core library
// (framework/src/dense_decompositions.cpp): instantiating them in every file that calls one cost
// most of its compile time.
extern template class Eigen::BDCSVD<rankone::Matrix>;
extern template class Eigen::JacobiSVD<rankone::Matrix>;
extern template class Eigen::SelfAdjointEigenSolver<rankone::Matrix>;
extern template class Eigen::HouseholderQR<rankone::Matrix>;
extern template class Eigen::LLT<rankone::Matrix>;
extern template class Eigen::LDLT<rankone::Matrix>;
