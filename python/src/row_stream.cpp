#include "row_stream.hpp"

#include <stdexcept>

namespace rankone::python {

namespace {

/// What a waiting next() throws when the stream is ended (the Python object went away).
struct StreamClosed : std::exception {
  const char* what() const noexcept override { return "the stream of partial_fit rows was closed"; }
};

}  // namespace

/// The rows given so far and not yet served, as batches; the estimator's side and the caller's
/// meet under one mutex.
class RowQueue final : public DataSource {
 public:
  RowQueue(Index d, std::unique_ptr<SensingOperator> op) : d_(d), op_(std::move(op)) {}
  void open(std::uint64_t) override {}
  ProblemShape shape() const override { return {d_, d_, op_->symmetric()}; }
  const SensingOperator& sensing_operator() const override { return *op_; }
  bool finite() const override { return false; }

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Batch> given;  ///< chunks not yet served, in order
  Index queued = 0;         ///< their rows
  Index wanted = 0;         ///< rows a waiting next() asks for (0: not waiting)
  bool started = false;     ///< the estimator's start has returned: it has a model
  bool closed = false, ended = false;
  std::string failure;      ///< the estimator's exception, when it threw

 protected:
  Batch produce(Index n) override {
    std::unique_lock lock(mutex);
    if (queued < n) {
      wanted = n;
      changed.notify_all();
      changed.wait(lock, [&] { return closed || queued >= n; });
      wanted = 0;
      if (closed) throw StreamClosed();
    }
    Batch out;
    for (Index taken = 0; taken < n;) {
      Batch& front = given.front();
      const Index take = std::min(n - taken, front.instances());
      Batch part;
      if (take == front.instances()) {
        part = std::move(front);
        given.pop_front();
      } else {
        part = front.slice(0, take);
        front = front.slice(take, front.instances() - take);
      }
      if (taken == 0) out = std::move(part); else out.append(part);
      taken += take;
    }
    queued -= n;
    return out;
  }

 private:
  Index d_;
  std::unique_ptr<SensingOperator> op_;
};

RowStream::RowStream(std::unique_ptr<Estimator> estimator, std::unique_ptr<SensingOperator> op, Index d, std::uint64_t seed,
                     Json data, std::string name)
    : estimator_(std::move(estimator)), queue_(std::make_shared<RowQueue>(d, std::move(op))), rng_(seed),
      data_(std::move(data)), name_(std::move(name)) {
  thread_ = std::thread([this] {
    try {
      estimator_->start(*queue_, rng_);
      {
        std::lock_guard lock(queue_->mutex);
        queue_->started = true;
      }
      if (estimator_->summary().status == Status::running)
        while (estimator_->step(*queue_)) {
        }
    } catch (const StreamClosed&) {
    } catch (const std::exception& e) {
      std::lock_guard lock(queue_->mutex);
      queue_->failure = e.what();
    }
    std::lock_guard lock(queue_->mutex);
    queue_->ended = true;
    queue_->changed.notify_all();
  });
}

RowStream::~RowStream() {
  {
    std::lock_guard lock(queue_->mutex);
    queue_->closed = true;
    queue_->changed.notify_all();
  }
  if (thread_.joinable()) thread_.join();
}

RowStream::State RowStream::give(const FeatureArrays& x, const double* y) {
  Batch chunk;
  chunk.left = feature_rows(x, 0, x.n);
  if (!queue_->sensing_operator().symmetric()) chunk.right = chunk.left;
  chunk.y = Eigen::Map<const Vector>(y, x.n);
  check_finite(chunk, 0);
  std::unique_lock lock(queue_->mutex);
  if (!queue_->ended && x.n > 0) {
    queue_->given.push_back(std::move(chunk));
    queue_->queued += x.n;
    queue_->changed.notify_all();
  }
  // The estimator is waiting for rows not given, or has stopped: its state is still while the lock is held.
  queue_->changed.wait(lock, [&] { return queue_->ended || (queue_->wanted > queue_->queued); });
  if (queue_->ended) {
    lock.unlock();
    if (thread_.joinable()) thread_.join();
    lock.lock();
  }
  if (!queue_->failure.empty()) throw std::runtime_error(name_ + " failed: " + queue_->failure);
  State s;
  const Summary summary = estimator_->summary();
  s.status = to_string(summary.status);
  s.message = summary.message;
  s.iterations = summary.iterations;
  s.rows_waited_for = queue_->ended ? 0 : queue_->wanted - queue_->queued;
  if (queue_->started) {
    const Estimate estimate = estimator_->estimate();
    if (estimate.all_finite()) s.model = SavedModel::of(estimate, *queue_, data_, name_, "python");
  }
  return s;
}

}  // namespace rankone::python
