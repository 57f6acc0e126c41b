#pragma once
/// \file `rankone test-plugin LIB`: the installed conformance checks on one plugin library.
#include <filesystem>
#include <ostream>

namespace rankone::cli {

/// Loads the default plugins and `library`, runs check_plugin on every plugin `library` registers,
/// prints one line per check and a tally to `out`. Returns 0 when all pass, 1 otherwise; throws
/// InputError for a file that is not a loadable plugin library or registers nothing.
int test_plugin(const std::filesystem::path& library, std::ostream& out);

}  // namespace rankone::cli
