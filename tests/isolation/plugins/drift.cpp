// An estimator whose code differs between two builds (DRIFT_VARIANT), standing in for a plugin
// that its author rebuilt after changing it: trials of the first build become stale.
#include <memory>

#include "rankone/plugin/plugin_api.hpp"
#include "rankone/rankone.hpp"

namespace {

using namespace rankone;

class Drift final : public Estimator {
 public:
  void start(DataSource& data, Rng&) override {
    data.next(DRIFT_VARIANT);  // the two builds draw a different number of samples
    summary_.status = Status::converged;
    summary_.message = "variant " + std::to_string(DRIFT_VARIANT);
  }
  bool step(DataSource&) override { return false; }
  Estimate estimate() const override { return Estimate{}; }
  Summary summary() const override { return summary_; }

 private:
  Summary summary_;
};

PluginDescriptor describe() {
  PluginDescriptor d;
  Registration r;
  r.kind = Kind::estimator;
  r.name = "drift";
  r.summary = "draws DRIFT_VARIANT samples (code identity tests)";
  r.factory = [](const Params&, const BuildContext&) -> std::unique_ptr<Component> { return std::make_unique<Drift>(); };
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace

RANKONE_PLUGIN(describe)
