#pragma once
/// \file The headers nearly every RankOne file parses, precompiled once per build (CMake's
/// target_precompile_headers in framework/CMakeLists.txt, portable builds; the plugins, the CLI, the tests and the
/// benchmarks reuse it): the standard library, Eigen, nlohmann/json and the plugin interfaces. A
/// change to one of these recompiles every file anyway; the study's headers (store, runner,
/// experiment, report) stay out, so that a change there recompiles only what includes it.
#include "rankone/core/types.hpp"  // Eigen, behind its GCC 12 warning fix; before any other include of it
#include <nlohmann/json.hpp>

#include "rankone/core/errors.hpp"
#include "rankone/core/options_table.hpp"
#include "rankone/core/params.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/plugin/plugin_api.hpp"
#include "rankone/plugin/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>
