#pragma once
/// \file The one implementation behind every rank-one sensing operator of RankOne.
///
/// Measurement i is `a_i' M b_i` (+ `a_i' w`), with `a_i` from the batch's left side and `b_i` from
/// its right side (or `b_i = a_i` for a symmetric operator). The registered variants
/// (`symmetric_rank_one`, `asymmetric_rank_one`, `entry`, `single_label`) differ only in the
/// `RankOneSpec` they are built from: which design kinds they accept, whether the right design is
/// rescaled by √d2, and how their isotropic moments invert.
#include <functional>
#include <string>
#include <vector>

#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone::operators {

/// What distinguishes one registered rank-one operator from another.
struct RankOneSpec {
  std::string name;                             ///< registered name, used in error messages
  bool symmetric = false;                       ///< b_i = a_i (the batch has no right side)
  bool first_order = false;                     ///< add a_i' w when the model carries w
  std::vector<DesignSide::Kind> left_kinds;     ///< accepted left design kinds
  std::vector<DesignSide::Kind> right_kinds;    ///< accepted right design kinds (unused when symmetric)
  bool right_gain_sqrt_dim = false;             ///< b_i = √d2 · (right design), as ē = √d2 e_j
  std::function<MomentInverse(const ProblemShape&)> inverse;  ///< isotropic moment inversion
};

/// `A_i = a_i b_i'`, matrix-free. Costs: forward O(n d k), adjoint products O(n d k); with an
/// `all` right side (every label of each instance) the n × d2 responses are handled as one matrix
/// product, never by expanding the designs.
class RankOneOperator final : public SensingOperator {
 public:
  explicit RankOneOperator(RankOneSpec spec);
  ~RankOneOperator() override;

  bool symmetric() const override { return spec_.symmetric; }
  bool has_first_order() const override { return spec_.first_order; }
  std::vector<DesignSide::Kind> accepted_left() const override { return spec_.left_kinds; }
  /// For a symmetric operator the right design is the left one, so the left kinds.
  std::vector<DesignSide::Kind> accepted_right() const override {
    return spec_.symmetric ? spec_.left_kinds : spec_.right_kinds;
  }
  MomentInverse isotropic_inverse(const ProblemShape& shape) const override { return spec_.inverse(shape); }

  Vector forward(const Batch& batch, const LowRankModel& model) const override;
  Matrix adjoint_times(const Batch& batch, const Vector& z, const Matrix& Z) const override;
  Matrix adjoint_transpose_times(const Batch& batch, const Vector& z, const Matrix& Z) const override;
  Matrix adjoint_dense(const Batch& batch, const Vector& z) const override;
  Vector first_order_adjoint(const Batch& batch, const Vector& z) const override;

 private:
  /// A batch checked against this operator, with the right side resolved.
  struct Sides {
    const DesignSide& left;
    const DesignSide& right;  ///< the left side again for a symmetric operator
    bool right_all;           ///< every right index for each instance (n · d2 measurements)
    double gain;              ///< factor applied to every right design (√d2 or 1)
    Index instances;
    Index measurements;
  };

  Sides sides(const Batch& batch, const char* caller) const;
  void check_responses(const Sides& s, const Vector& z, const char* caller) const;
  void check_model(const Sides& s, const LowRankModel& model) const;
  /// `a_i' M b_i` for M = L R' (or its symmetrisation), without the diagonal removal.
  Vector second_order(const Sides& s, const LowRankModel& model) const;
  /// Subtracts `a_i' D(M) b_i` from the second-order values (the zero-diagonal model).
  void remove_diagonal(const Sides& s, const LowRankModel& model, Vector& values) const;

  RankOneSpec spec_;
};

}  // namespace rankone::operators
