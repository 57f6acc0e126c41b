// Code identities: library fingerprints and the comparison that makes stored trials stale.
#include "rankone/runner/code_identity.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <tuple>

#include <boost/dll/runtime_symbol_info.hpp>

#include "rankone/core/checksum.hpp"
#include "rankone/core/errors.hpp"

namespace rankone {

namespace {

/// Every plugin named in a resolved reference: objects with a registered "name", at any depth.
void collect_plugin_names(const Json& value, const Registry& registry, std::set<std::string>& names) {
  if (value.is_object()) {
    if (auto it = value.find("name"); it != value.end() && it->is_string() && registry.contains(it->get<std::string>()))
      names.insert(it->get<std::string>());
    for (const auto& [key, child] : value.items()) collect_plugin_names(child, registry, names);
  } else if (value.is_array()) {
    for (const auto& child : value) collect_plugin_names(child, registry, names);
  }
}

Json library_identity(const std::filesystem::path& library, const std::string& version) {
  return Json{{"library", library.string()}, {"fingerprint", file_fingerprint(library)}, {"version", version}};
}

}  // namespace

std::string file_fingerprint(const std::filesystem::path& file) {
  static std::mutex mutex;
  static std::map<std::string, std::tuple<std::uintmax_t, std::filesystem::file_time_type, std::string>> cache;
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  const auto mtime = std::filesystem::last_write_time(file, ec);
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(file.string());
  if (!ec && it != cache.end() && std::get<0>(it->second) == size && std::get<1>(it->second) == mtime)
    return std::get<2>(it->second);
  std::string fp = checksum_of_file(file);
  if (!ec) cache[file.string()] = {size, mtime, fp};
  return fp;
}

Json code_identity(const TrialSpec& spec, const Registry& registry) {
  Json identity = Json::object();
  identity["core"] = library_identity(boost::dll::this_line_location().string(), RANKONE_VERSION);
  std::set<std::string> names;
  for (const Json* part : {&spec.data, &spec.estimator, &spec.metrics}) collect_plugin_names(*part, registry, names);
  for (const auto& name : names) {
    const Registration& r = registry.get(name);
    identity[name] = r.library.empty() ? Json{{"library", "(built in)"}, {"fingerprint", "core"}, {"version", r.version}}
                                       : library_identity(r.library, r.version);
  }
  return identity;
}

std::vector<std::string> stale_reasons(const Json& stored, const Json& current) {
  if (!stored.is_object() || stored.empty()) return {"stored before code identities were recorded"};
  std::vector<std::string> reasons;
  for (const auto& [role, now] : current.items()) {
    const std::string what = role == "core" ? std::string("core library ") : "plugin '" + role + "' in ";
    if (!stored.contains(role)) {
      reasons.push_back(what + now["library"].get<std::string>() + ": no identity stored for it");
      continue;
    }
    const Json& then = stored[role];
    if (then.value("fingerprint", "") != now["fingerprint"].get<std::string>())
      reasons.push_back(what + now["library"].get<std::string>() + " changed: fingerprint " +
                        then.value("fingerprint", "?") + " then, " + now["fingerprint"].get<std::string>() + " now");
    else if (then.value("version", "") != now["version"].get<std::string>())
      reasons.push_back(what + now["library"].get<std::string>() + ": version " + then.value("version", "?") + " then, " +
                        now["version"].get<std::string>() + " now");
  }
  return reasons;
}

}  // namespace rankone
