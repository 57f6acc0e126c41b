#pragma once
// Shared helpers for the benchmark suites: the registry of built plugins.
#include "rankone/rankone.hpp"

namespace rankone::bench {

/// The registry with every plugin of this build loaded (once per process).
inline const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    reg.load_default();
    return reg;
  }();
  return r;
}

/// Creates a plugin from a JSON reference, validated as an experiment would be.
template <class T>
std::unique_ptr<T> make(const Json& ref, Kind kind) {
  ValidationContext ctx(registry(), nullptr);
  return registry().create<T>(validate_plugin_ref(ref, kind, ctx, ""), kind, "");
}

}  // namespace rankone::bench
