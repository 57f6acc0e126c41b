#pragma once
/// \file `rankone new-plugin NAME --kind KIND`: a plugin folder from the templates in cli/templates/.
#include <filesystem>
#include <map>
#include <string>

namespace rankone::cli {

/// The template files, by path under cli/templates/ (compiled in by cmake/EmbedFiles.cmake).
const std::map<std::string, std::string>& plugin_templates();

/// Writes `dir/name/`: CMakeLists.txt, name.cpp, name.md, test_name.cpp and name.json for a plugin of
/// `kind` (estimator, sampler, operator, source, metric), all at once (an interrupted run leaves no
/// half-written folder). Returns the folder. Throws UsageError for a name that is not an identifier
/// or is taken by a loaded plugin, an unknown kind, or a folder that exists.
std::filesystem::path new_plugin(const std::string& name, const std::string& kind, const std::filesystem::path& dir);

/// The commands that build, check and run the new plugin.
std::string new_plugin_next_steps(const std::filesystem::path& folder);

}  // namespace rankone::cli
