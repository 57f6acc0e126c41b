#include "baseline_libm.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace rankone::cli {

void pin_baseline_libm([[maybe_unused]] char** argv) {
#ifdef RANKONE_PORTABLE
  constexpr const char* kBaseline = "glibc.cpu.hwcaps=-AVX2,-FMA,-AVX512F";
  const char* current = std::getenv("GLIBC_TUNABLES");
  if (current != nullptr && std::strstr(current, kBaseline) != nullptr) return;
  const std::string tunables = current && *current ? std::string(current) + ":" + kBaseline : std::string(kBaseline);
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only on failure: go on with the libm we have
#endif
}

}  // namespace rankone::cli
