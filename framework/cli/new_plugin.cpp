// `rankone new-plugin`: fills the templates of one kind with the plugin's name and writes its folder.
#include "new_plugin.hpp"

#include <unistd.h>

#include <fstream>
#include <regex>
#include <set>

#include "rankone/core/errors.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone::cli {
namespace {

const std::set<std::string> kKinds = {"estimator", "sampler", "operator", "source", "metric"};

/// my_estimator → MyEstimator (the class name in the templates).
std::string class_name(const std::string& name) {
  std::string out;
  bool upper = true;
  for (const char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string filled(std::string text, const std::map<std::string, std::string>& values) {
  for (const auto& [key, value] : values)
    for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size()))
      text.replace(at, key.size(), value);
  return text;
}

const std::string& template_file(const std::string& path) {
  const auto& files = plugin_templates();
  const auto it = files.find(path);
  if (it == files.end()) throw std::logic_error("new-plugin: the template " + path + " is missing from this build");
  return it->second;
}

}  // namespace

std::filesystem::path new_plugin(const std::string& name, const std::string& kind, const std::filesystem::path& dir) {
  if (!std::regex_match(name, std::regex("[a-z][a-z0-9_]{0,39}")))
    throw UsageError("new-plugin: expected a NAME of lower-case letters, digits and '_' starting with a letter "
                     "(at most 40), found '" + name + "'");
  if (!kKinds.count(kind))
    throw UsageError("new-plugin: --kind: expected estimator, sampler, operator, source or metric, found '" + kind + "'");
  Registry loaded;
  loaded.load_default();
  if (loaded.contains(name))
    throw UsageError("new-plugin: a plugin called '" + name + "' already exists (" + loaded.get(name).library +
                     "); plugin names are unique across kinds");
  const std::filesystem::path folder = dir / name;
  std::error_code ec;
  if (std::filesystem::exists(folder, ec)) throw UsageError("new-plugin: " + folder.string() + " already exists; nothing written");
  if (!std::filesystem::is_directory(dir, ec)) throw UsageError("new-plugin: --dir " + dir.string() + " is not a folder");

  const std::map<std::string, std::string> values = {{"@name@", name}, {"@Name@", class_name(name)}, {"@kind@", kind}};
  const std::map<std::string, std::string> files = {
      {"CMakeLists.txt", template_file("CMakeLists.txt")},
      {name + ".cpp", template_file(kind + "/plugin.cpp")},
      {name + ".md", template_file(kind + "/page.md")},
      {"test_" + name + ".cpp", template_file("test_common.cpp") + template_file(kind + "/test.cpp")},
      {name + ".json", template_file(kind + "/experiment.json")}};

  // Written in a scratch folder beside the target and renamed into place: all files or none.
  const std::filesystem::path scratch = dir / ("." + name + ".partial-" + std::to_string(::getpid()));
  std::filesystem::create_directory(scratch);
  try {
    for (const auto& [file, text] : files) {
      std::ofstream out(scratch / file, std::ios::binary);
      out << filled(text, values);
      if (!out.flush()) throw std::runtime_error("new-plugin: cannot write " + (scratch / file).string());
    }
    std::filesystem::rename(scratch, folder);
  } catch (...) {
    std::filesystem::remove_all(scratch, ec);
    throw;
  }
  return folder;
}

std::string new_plugin_next_steps(const std::filesystem::path& folder) {
  const std::string name = folder.filename().string();
  // This rankone's package, when it is installed (<libdir>/cmake/RankOne beside <libdir>/rankone/plugins).
  std::error_code ec;
  const std::filesystem::path package = std::filesystem::weakly_canonical(
      Registry::default_plugin_folder().parent_path().parent_path() / "cmake" / "RankOne", ec);
  const bool installed = std::filesystem::exists(package / "RankOneConfig.cmake", ec);
  std::string steps;
  if (!installed)
    steps += "  cmake --install build --prefix \"$HOME/rankone\"      # once, from the RankOne checkout: the package plugins build against\n";
  const std::string package_text = installed ? package.string() : "$HOME/rankone/lib/cmake/RankOne";
  const std::string f = folder.string();
  steps += "  cmake -S " + f + " -B " + f + "/build -DRankOne_DIR=\"" + package_text + "\"\n";
  steps += "  cmake --build " + f + "/build && ctest --test-dir " + f + "/build --output-on-failure\n";
  steps += "  rankone test-plugin " + f + "/build/lib" + name + ".so\n";
  steps += "  RANKONE_PLUGIN_PATH=" + f + "/build rankone run " + f + "/" + name + ".json --out results/" + name + " --report\n";
  return steps;
}

}  // namespace rankone::cli
