#pragma once
// Shared helpers for the test suite: the registry of built plugins, and paths.
#include <cstdlib>
#include <filesystem>
#include <string>

#include "rankone/rankone.hpp"

namespace rankone::test {

/// The registry with every plugin of this build loaded (once per test process).
inline const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    reg.load_default();
    return reg;
  }();
  return r;
}

/// Creates a plugin of a given kind from a JSON reference, validating it as an experiment would.
template <class T>
std::unique_ptr<T> make(const Json& ref, Kind kind) {
  ValidationContext ctx(registry(), [](const std::string&) { return std::string("test"); });
  Json resolved = validate_plugin_ref(ref, kind, ctx, "");
  return registry().create<T>(resolved, kind, "");
}

inline std::filesystem::path source_dir() {
  const char* s = std::getenv("RANKONE_SOURCE_DIR");
  return s ? std::filesystem::path(s) : std::filesystem::path(RANKONE_TEST_SOURCE_DIR);
}
inline std::filesystem::path binary_dir() {
  const char* s = std::getenv("RANKONE_BINARY_DIR");
  return s ? std::filesystem::path(s) : std::filesystem::path(RANKONE_TEST_BINARY_DIR);
}

}  // namespace rankone::test
