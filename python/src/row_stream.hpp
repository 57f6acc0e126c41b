#pragma once
/// \file `partial_fit` for one-pass estimators: rows given call after call, served to an estimator
/// that runs on a thread of its own as one endless stream. Its next(n) waits until n rows have been
/// given, so the batches are those of the rows' concatenation whatever the calls' sizes; each call
/// returns once the estimator waits for rows it has not been given, or has stopped.
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "array_source.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/store/saved_model.hpp"

namespace rankone::python {

class RowQueue;

/// One estimator fed by successive calls.
class RowStream {
 public:
  /// `estimator`: a validated reference; `data`: the data configuration its model keeps.
  RowStream(std::unique_ptr<Estimator> estimator, std::unique_ptr<SensingOperator> op, Index d, std::uint64_t seed,
            Json data, std::string name);
  ~RowStream();  ///< ends the stream and joins the estimator's thread
  RowStream(const RowStream&) = delete;
  RowStream& operator=(const RowStream&) = delete;

  struct State {
    std::optional<SavedModel> model;  ///< none until the estimator has started
    std::string status, message;      ///< "running" while it waits for rows
    int iterations = 0;
    Index rows_waited_for = 0;        ///< rows the estimator waits for beyond those given (0 once stopped)
  };
  /// Gives rows (copied) and returns once the estimator waits for more or has stopped. DataError for
  /// non-finite values; an estimator that failed is a std::runtime_error with its message.
  State give(const FeatureArrays& x, const double* y);

 private:
  std::unique_ptr<Estimator> estimator_;
  std::shared_ptr<RowQueue> queue_;
  Rng rng_;
  Json data_;
  std::string name_;
  std::thread thread_;
};

}  // namespace rankone::python
