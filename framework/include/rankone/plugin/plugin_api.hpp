#pragma once
/// \file What a plugin library exports. Each library defines exactly one entry point with
/// `RANKONE_PLUGIN(function)`, where `function` returns a PluginDescriptor.
///
/// The loader first calls two C-linkage probes (API version and build fingerprint) that are safe
/// whatever the library was built with, and only then the C++ entry point; a mismatch is reported
/// with the library's path and both values, never by crashing.
///
/// \code
///   rankone::PluginDescriptor describe_my_plugin() {
///     rankone::PluginDescriptor d;
///     rankone::Registration r;
///     r.kind = rankone::Kind::estimator;
///     r.name = "my_estimator";
///     r.schema.integer("rank", 2, "target rank").at_least(1);
///     r.factory = [](const rankone::Params& p, const rankone::BuildContext&) {
///       return std::make_unique<MyEstimator>(p);
///     };
///     d.registrations.push_back(std::move(r));
///     return d;
///   }
///   RANKONE_PLUGIN(describe_my_plugin)
/// \endcode
#include <boost/dll/alias.hpp>
#include <boost/version.hpp>
#include <nlohmann/json.hpp>

#include "rankone/plugin/registry.hpp"

namespace rankone {

/// Bumped whenever an interface in framework/include/rankone/interfaces, or a structure a plugin
/// fills (Registration, ParamSpec), changes incompatibly. 6: ParamSpec's conditional and nested
/// defaults, Registration::one_pass.
inline constexpr int kPluginApiVersion = 6;

#define RANKONE_STRINGIFY_IMPL(x) #x
#define RANKONE_STRINGIFY(x) RANKONE_STRINGIFY_IMPL(x)

#if defined(__SANITIZE_ADDRESS__)
#define RANKONE_SANITIZE_FINGERPRINT ";sanitize=address"
#else
#define RANKONE_SANITIZE_FINGERPRINT ""
#endif

/// The instruction set the code was compiled for (RANKONE_ARCH): it sets Eigen's vector width and
/// alignment, and which arithmetic (FMA or not) every product uses.
#if defined(__AVX512F__)
#define RANKONE_ISA_FINGERPRINT ";isa=avx512f"
#elif defined(__AVX2__) && defined(__FMA__)
#define RANKONE_ISA_FINGERPRINT ";isa=avx2+fma"
#elif defined(__AVX2__)
#define RANKONE_ISA_FINGERPRINT ";isa=avx2"
#elif defined(__AVX__)
#define RANKONE_ISA_FINGERPRINT ";isa=avx"
#else
#define RANKONE_ISA_FINGERPRINT ";isa=sse2"
#endif

/// Everything that must agree between the core and a plugin for C++ objects (Eigen matrices with
/// their alignment, std::string, std::function) to cross the library boundary safely.
#define RANKONE_BUILD_FINGERPRINT                                                                 \
  "gcc-abi=" RANKONE_STRINGIFY(__GXX_ABI_VERSION) ";cxx11-abi=" RANKONE_STRINGIFY(                \
      _GLIBCXX_USE_CXX11_ABI) ";eigen=" RANKONE_STRINGIFY(EIGEN_WORLD_VERSION) "." RANKONE_STRINGIFY( \
      EIGEN_MAJOR_VERSION) "." RANKONE_STRINGIFY(EIGEN_MINOR_VERSION) ";eigen-align=" RANKONE_STRINGIFY(   \
      EIGEN_MAX_ALIGN_BYTES) ";eigen-static-align=" RANKONE_STRINGIFY(EIGEN_MAX_STATIC_ALIGN_BYTES) ";json=" RANKONE_STRINGIFY(NLOHMANN_JSON_VERSION_MAJOR) "." RANKONE_STRINGIFY( \
      NLOHMANN_JSON_VERSION_MINOR) ";boost=" RANKONE_STRINGIFY(BOOST_VERSION) RANKONE_ISA_FINGERPRINT \
      RANKONE_SANITIZE_FINGERPRINT

/// The fingerprint the core library was built with.
const char* core_build_fingerprint();

struct PluginDescriptor {
  int api_version = kPluginApiVersion;
  std::vector<Registration> registrations;
};

using PluginEntryPoint = PluginDescriptor();
using PluginProbeInt = int();
using PluginProbeString = const char*();

}  // namespace rankone

/// Defines the library's entry point and its ABI probes.
#define RANKONE_PLUGIN(describe_function)                                                        \
  namespace rankone_plugin_exports {                                                             \
  inline int api_version() { return ::rankone::kPluginApiVersion; }                              \
  inline const char* fingerprint() { return RANKONE_BUILD_FINGERPRINT; }                         \
  }                                                                                              \
  BOOST_DLL_ALIAS(rankone_plugin_exports::api_version, rankone_plugin_api_version)               \
  BOOST_DLL_ALIAS(rankone_plugin_exports::fingerprint, rankone_plugin_fingerprint)               \
  BOOST_DLL_ALIAS(describe_function, rankone_plugin)
