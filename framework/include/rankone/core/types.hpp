#pragma once
/// \file Basic numeric types shared by every RankOne component.
// GCC 12's AVX-512 intrinsics initialise a placeholder from itself (`__m512d __Y = __Y;` in
// avx512fintrin.h), which -Wmaybe-uninitialized reports wherever Eigen's kernels inline them (GCC
// bug 105593, fixed in GCC 13): silenced for the intrinsics' own lines only, not for our code.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#endif
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
