#pragma once
/// \file A data source over arrays the caller holds (numpy's memory, borrowed, never copied whole):
/// feature rows (dense row-major, or CSR) with targets, or (row, column, value) entries. It serves
/// them in order, one pass at a time, as a file source with `shuffle_buffer` 0 serves a file's
/// records — so a fit on the arrays and a fit on the same records written to a file see the same
/// batches. The arrays must outlive the source.
#include <cstdint>
#include <memory>

#include "rankone/interfaces/data_source.hpp"
#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone::python {

/// Feature rows: `n` rows of `d` features, dense (row-major `values`, n·d) or CSR (`values` at
/// `indices` per row, rows delimited by `indptr`, n + 1 offsets; 32- or 64-bit indices).
struct FeatureArrays {
  std::int64_t n = 0, d = 0;
  const double* values = nullptr;
  const void* indices = nullptr;  ///< null: dense
  const void* indptr = nullptr;
  bool wide_indices = false;      ///< int64 indices and offsets (else int32)
  bool dense() const { return indices == nullptr; }
};

/// Completion entries: `n` (row, column) pairs of a d1 × d2 matrix (32-bit indices).
struct EntryArrays {
  std::int64_t n = 0, d1 = 0, d2 = 0;
  const std::int32_t* rows = nullptr;
  const std::int32_t* cols = nullptr;
};

/// Non-finite input is the caller's error (DataError: a ValueError in Python), found in a batch of
/// feature rows as it is copied, with no pass of its own over the arrays; `first` numbers its rows.
void check_finite(const Batch& b, Index first);

/// The designs of feature rows [first, first + count) as a batch side (dense or sparse).
DesignSide feature_rows(const FeatureArrays& x, std::int64_t first, std::int64_t count);

class ArraySource final : public DataSource {
 public:
  /// Feature rows with their targets `y` (n values), for a feature operator.
  ArraySource(FeatureArrays x, const double* y, std::unique_ptr<SensingOperator> op);
  /// Entries with their values `y` (n values), for the entry operator.
  ArraySource(EntryArrays entries, const double* y, std::unique_ptr<SensingOperator> op);
  /// Feature rows with every label observed: `labels` is n × classes row-major (±1), served as a
  /// file source's `label_view: "full"` serves it (the right side all labels, y label-major).
  ArraySource(FeatureArrays x, const double* labels, Index classes, std::unique_ptr<SensingOperator> op);

  void open(std::uint64_t seed) override;
  ProblemShape shape() const override;
  const SensingOperator& sensing_operator() const override { return *op_; }
  bool finite() const override { return true; }
  std::optional<Index> size() const override { return n_; }
  void rewind() override { position_ = 0; }

 protected:
  Batch produce(Index n) override;

 private:
  std::optional<FeatureArrays> features_;
  std::optional<EntryArrays> entries_;
  const double* y_ = nullptr;
  Index classes_ = 0;  ///< with every label observed: their number
  std::unique_ptr<SensingOperator> op_;
  Index n_ = 0;
  Index position_ = 0;
};

}  // namespace rankone::python
