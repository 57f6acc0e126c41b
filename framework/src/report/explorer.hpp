#pragma once
// The interactive explorer of a study: Vega (Debian's libjs-vega modules, inlined) draws the
// curves or the per-repetition final values of a chosen metric against a chosen x axis, with
// hover values and zoom.
#include <filesystem>
#include <string>

#include "figures.hpp"
#include "study.hpp"

namespace rankone::reporting {

/// The Vega runtime as the text of one inline <script>, or why it is unavailable.
struct VegaRuntime {
  std::string script;
  std::string missing;  ///< non-empty when the modules were not found
};

/// Reads Vega's modules from `folder` (empty: $RANKONE_VEGA_DIR, else /usr/share/javascript/vega).
VegaRuntime load_vega(const std::filesystem::path& folder);

/// A study's data for its explorer, as JSON safe inside a <script> element.
std::string explorer_data(const Study& s, const StudyFigures& f);

/// The script that builds every explorer of the page (after the Vega runtime).
const char* explorer_script();

}  // namespace rankone::reporting
