#pragma once
/// \file `rankone test-plugin LIB`: the installed conformance checks on one plugin library, each
/// plugin's checks in a supervised child process (`rankone test-plugin-child`).
#include <filesystem>
#include <ostream>

namespace rankone::cli {

/// The time a conformance check may take before its process is stopped (--check-seconds).
constexpr double kDefaultCheckSeconds = 300;

/// Runs check_plugin on every plugin `library` registers, in child processes that load it (this
/// process never does); prints one line per check and a tally to `out`. A check whose process
/// crashes, aborts, exits or passes `check_seconds` is a failure with that cause and the child's
/// last output; the plugin's remaining checks are not run and the next plugin gets a fresh child.
/// Returns 0 when all pass, 1 otherwise; throws InputError for a file that is not a loadable
/// plugin library or registers nothing.
int test_plugin(const std::filesystem::path& library, double check_seconds, std::ostream& out);

/// The child: loads `library`, checks its plugins from the `first` on, and reports each check
/// (as it begins and ends) on its protocol descriptor. Returns the exit code.
int test_plugin_child(const std::filesystem::path& library, std::size_t first);

}  // namespace rankone::cli
