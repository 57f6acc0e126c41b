// libFuzzer target: the experiment loader — compose_experiment (extends/include/overrides are
// resolved from the file) then plan_experiment against the registry of built plugins.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "rankone/experiment/experiment.hpp"
#include "rankone/rankone.hpp"

namespace {

const rankone::Registry& registry() {
  static const rankone::Registry r = [] {
    rankone::Registry reg;
    reg.load_default();
    return reg;
  }();
  return r;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // A folder of its own, so that an "extends" by a plain name finds nothing else.
  static const std::filesystem::path file = [] {
    const auto dir = std::filesystem::temp_directory_path() / ("rankone_fuzz_experiment_" + std::to_string(getpid()));
    std::filesystem::create_directories(dir);
    return dir / "experiment.json";
  }();
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    const rankone::ComposedExperiment composed = rankone::compose_experiment(file, {});
    rankone::plan_experiment(composed, registry());
  } catch (const rankone::InputError&) {
  }
  return 0;
}
