// Distributed trials: a dynamic work queue over MPI point-to-point messages.
#include "mpi_executor.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include <boost/mpi.hpp>
#include <boost/serialization/string.hpp>

#include "rankone/core/errors.hpp"

namespace rankone::mpi {

namespace {

// Worker → coordinator: ready (first request), a finished trial, or an error. Coordinator →
// worker: a trial index into plan.trials, or stop.
enum Tag : int { ready = 1, result = 2, input_error = 3, runtime_error = 4, config_error = 5, work = 10, stop = 11 };

}  // namespace

bool launched_with_several_ranks() {
  for (const char* var : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char* v = std::getenv(var)) return std::atoi(v) > 1;
  return false;
}

struct Session::Impl {
  boost::mpi::environment environment;
  boost::mpi::communicator world;
  Impl(int& argc, char**& argv) : environment(argc, argv) {}
};

Session::Session(int& argc, char**& argv) : impl_(std::make_unique<Impl>(argc, argv)) {}
Session::~Session() = default;
int Session::rank() const { return impl_->world.rank(); }
int Session::size() const { return impl_->world.size(); }
void Session::abort(int code) const {
  boost::mpi::environment::abort(code);
  std::_Exit(code);  // MPI_Abort does not return; this only tells the compiler so
}

TrialExecutor coordinator(const Session& session, const Plan& plan) {
  return [&session, &plan](const std::vector<const TrialSpec*>& todo, const Registry&, const TrialEvents& events) {
    boost::mpi::communicator& world = session.impl_->world;
    std::size_t next = 0;
    int active = world.size() - 1;
    std::string error_message;
    int error_tag = 0;
    while (active > 0) {
      // Poll rather than block: Open MPI's blocking receive spins a core the workers need.
      boost::optional<boost::mpi::status> probe = world.iprobe(boost::mpi::any_source, boost::mpi::any_tag);
      if (!probe) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        continue;
      }
      std::string payload;
      world.recv(probe->source(), probe->tag(), payload);
      const int from = probe->source();
      if (probe->tag() == result) events.finished(trial_from_json(Json::parse(payload)));
      if (probe->tag() == input_error || probe->tag() == runtime_error || probe->tag() == config_error) {
        if (!error_tag) {
          error_tag = probe->tag();
          error_message = payload;
        }
      }
      if (!error_tag && next < todo.size() && !events.stop_requested()) {
        const long index = static_cast<long>(todo[next] - plan.trials.data());
        events.started(*todo[next]);
        ++next;
        world.send(from, work, index);
      } else {
        world.send(from, stop, 0L);
        --active;
      }
    }
    if (error_tag == config_error) throw ConfigError(error_message);  // the caller adds the experiment file
    if (error_tag == input_error) throw InputError(error_message);
    if (error_tag == runtime_error) throw std::runtime_error(error_message);
  };
}

void worker(const Session& session, const Plan& plan, const Registry& registry, const isolation::HostConfig* hosts) {
  boost::mpi::communicator& world = session.impl_->world;
  std::unique_ptr<isolation::TrialHost> host;
  world.send(0, ready, std::string());
  while (true) {
    long index = 0;
    const boost::mpi::status st = world.recv(0, boost::mpi::any_tag, index);
    if (st.tag() == stop) return;
    const TrialSpec& spec = plan.trials.at(static_cast<std::size_t>(index));
    try {
      if (!hosts) {
        world.send(0, result, trial_to_json(run_trial(spec, registry)).dump());
        continue;
      }
      if (!host) host = std::make_unique<isolation::TrialHost>(isolation::current_executable(), *hosts);
      host->send(spec);
      isolation::HostReply reply = host->wait_reply();
      if (reply.host_ended) host.reset();  // a fresh host for the next trial
      if (reply.kind == isolation::HostReply::Kind::config_error) throw ConfigError(reply.message);
      if (reply.kind == isolation::HostReply::Kind::input_error) throw InputError(reply.message);
      if (reply.kind == isolation::HostReply::Kind::runtime_error) throw std::runtime_error(reply.message);
      world.send(0, result, trial_to_json(reply.record).dump());
    } catch (const ConfigError& e) {
      world.send(0, config_error, std::string(e.what()));
    } catch (const InputError& e) {
      world.send(0, input_error, std::string(e.what()));
    } catch (const std::exception& e) {
      world.send(0, runtime_error, "rank " + std::to_string(world.rank()) + ": " + e.what());
    }
  }
}

}  // namespace rankone::mpi
