// The one instantiation of the dense decompositions declared extern in rankone/core/types.hpp.
#include "rankone/core/types.hpp"

template class Eigen::BDCSVD<rankone::Matrix>;
template class Eigen::JacobiSVD<rankone::Matrix>;
template class Eigen::SelfAdjointEigenSolver<rankone::Matrix>;
template class Eigen::HouseholderQR<rankone::Matrix>;
template class Eigen::LLT<rankone::Matrix>;
template class Eigen::LDLT<rankone::Matrix>;
