// The registry of plugin registrations and the plugin library loader.
#include "rankone/plugin/registry.hpp"

#include "rankone/interfaces/estimator.hpp"

#include <elf.h>

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>

#include <dlfcn.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>

#include "rankone/plugin/plugin_api.hpp"

namespace rankone {

const char* core_build_fingerprint() { return RANKONE_BUILD_FINGERPRINT; }

std::string to_string(Kind k) {
  switch (k) {
    case Kind::sampler: return "sampler";
    case Kind::sensing_operator: return "operator";
    case Kind::data_source: return "source";
    case Kind::estimator: return "estimator";
    case Kind::metric: return "metric";
    case Kind::initializer: return "initializer";
  }
  return "unknown";
}

Kind kind_from_string(const std::string& s) {
  for (Kind k : {Kind::sampler, Kind::sensing_operator, Kind::data_source, Kind::estimator, Kind::metric,
                 Kind::initializer})
    if (to_string(k) == s) return k;
  throw ConfigError("unknown plugin kind '" + s + "' (expected sampler, operator, source, estimator, metric or initializer)");
}

std::string with_article(const std::string& noun) {
  const bool vowel = !noun.empty() && std::string("aeiou").find(noun[0]) != std::string::npos;
  return (vowel ? "an " : "a ") + noun;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

void Registry::add(Registration r) {
  if (r.name.empty()) throw PluginError("a registration from " + r.library + " has an empty name");
  if (!r.factory) throw PluginError("registration '" + r.name + "' from " + r.library + " has no factory");
  auto it = entries_.find(r.name);
  if (it != entries_.end())
    throw PluginError("duplicate plugin name '" + r.name + "': registered by " +
                      (it->second.library.empty() ? std::string("(built in)") : it->second.library) + " and by " +
                      (r.library.empty() ? std::string("(built in)") : r.library));
  entries_.emplace(r.name, std::move(r));
}

namespace {

// Plugin libraries are never unloaded: objects and std::functions they made may outlive any registry.
std::vector<boost::dll::shared_library>& loaded_libraries() {
  static auto* libs = new std::vector<boost::dll::shared_library>();
  return *libs;
}

}  // namespace

namespace {

/// Where the paths being loaded come from ("RANKONE_PLUGIN_PATH", "x.json: at /plugin_paths/0").
std::string& loading_source() {
  static std::string source;
  return source;
}

/// While a library's static initialisers run: an exception cannot cross the dynamic loader (C
/// code) everywhere, so one that escapes ends the process with the error a user needs, not abort.
class TerminateWhileLoading {
 public:
  explicit TerminateWhileLoading(std::string library) {
    library_() = std::move(library);
    previous_ = std::set_terminate(report_and_exit);
  }
  ~TerminateWhileLoading() { std::set_terminate(previous_); }

 private:
  static std::string& library_() {
    static std::string library;
    return library;
  }
  [[noreturn]] static void report_and_exit() {
    std::string what = "an exception";
    if (const auto e = std::current_exception()) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& x) {
        what = x.what();
      } catch (...) {
      }
    }
    const std::string& source = loading_source();
    std::fprintf(stderr, "rankone: error: %s%scannot load plugin library %s: its initialisation threw: %s\n", source.c_str(),
                 source.empty() ? "" : ": ", library_().c_str(), what.c_str());
    std::_Exit(2);
  }
  std::terminate_handler previous_;
};

/// Refuses a shared library whose segments reach past the end of its file: the dynamic loader
/// would map them and the process would die of SIGBUS on first touch (a truncated copy).
void check_elf_extent(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64)
    return;  // not a 64-bit ELF file: the loader says why
  auto truncated = [&](std::uint64_t needed) {
    throw PluginError("cannot load plugin library " + file.string() + ": the file is truncated (" + std::to_string(size) +
                      " bytes, its program headers reach byte " + std::to_string(needed) + ")");
  };
  const std::uint64_t headers_end = header.e_phoff + std::uint64_t{header.e_phnum} * header.e_phentsize;
  if (headers_end > size || header.e_phentsize != sizeof(Elf64_Phdr)) truncated(headers_end);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  for (int i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    if (!in.read(reinterpret_cast<char*>(&segment), sizeof segment)) truncated(headers_end);
    if (segment.p_type == PT_LOAD && segment.p_offset + segment.p_filesz > size) truncated(segment.p_offset + segment.p_filesz);
  }
}

}  // namespace

void Registry::load_library(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw PluginError("plugin library not found: " + file.string());
  const auto canonical = std::filesystem::canonical(file, ec);
  if (std::find(libraries_.begin(), libraries_.end(), canonical) != libraries_.end()) return;  // already loaded

  check_elf_extent(canonical);
  boost::dll::shared_library lib;
  boost::dll::fs::error_code load_error;
  try {
    const TerminateWhileLoading guard(canonical.string());
    lib.load(canonical.string(), boost::dll::load_mode::default_mode, load_error);
  } catch (const std::exception& e) {  // a static initialiser of the library threw
    throw PluginError("cannot load plugin library " + canonical.string() + ": its initialisation threw: " + e.what());
  } catch (...) {
    throw PluginError("cannot load plugin library " + canonical.string() + ": its initialisation threw an exception");
  }
  if (load_error || !lib.is_loaded()) {
    // Boost reports every dlopen failure as "Bad file descriptor"; the loader's own reason
    // ("invalid ELF header", "undefined symbol: ...") is what tells the user what is wrong.
    const char* reason = ::dlerror();
    throw PluginError("cannot load plugin library " + canonical.string() + ": " +
                      (reason ? std::string(reason) : load_error.message()) +
                      " (corrupt, not a shared library, or built for another system?)");
  }
  if (!lib.has("rankone_plugin_api_version") || !lib.has("rankone_plugin_fingerprint") || !lib.has("rankone_plugin"))
    throw PluginError(canonical.string() + " is not a RankOne plugin: it does not export rankone_plugin, "
                      "rankone_plugin_api_version and rankone_plugin_fingerprint (define them with RANKONE_PLUGIN)");

  const int api = lib.get_alias<PluginProbeInt>("rankone_plugin_api_version")();
  if (api != kPluginApiVersion)
    throw PluginError("plugin API version mismatch in " + canonical.string() + ": the library has version " +
                      std::to_string(api) + ", this rankone expects " + std::to_string(kPluginApiVersion) +
                      "; rebuild the plugin against this RankOne");
  const std::string fingerprint = lib.get_alias<PluginProbeString>("rankone_plugin_fingerprint")();
  if (fingerprint != core_build_fingerprint())
    throw PluginError("build fingerprint mismatch in " + canonical.string() + ":\n  library: " + fingerprint +
                      "\n  core:    " + core_build_fingerprint() +
                      "\nrebuild the plugin with the same compiler, libraries and instruction set (RANKONE_ARCH, "
                      "docs/PERFORMANCE.md#instruction-set)");

  PluginDescriptor descriptor;
  try {
    descriptor = lib.get_alias<PluginEntryPoint>("rankone_plugin")();
  } catch (const std::exception& e) {
    throw PluginError("plugin library " + canonical.string() + ": its describe function (rankone_plugin) threw: " + e.what());
  } catch (...) {
    throw PluginError("plugin library " + canonical.string() + ": its describe function (rankone_plugin) threw an exception");
  }
  if (descriptor.api_version != kPluginApiVersion)
    throw PluginError("plugin API version mismatch in " + canonical.string() + " (descriptor says " +
                      std::to_string(descriptor.api_version) + ")");
  // Check every name first so that a failing library adds nothing.
  std::set<std::string> names;
  for (const auto& r : descriptor.registrations) {
    if (entries_.count(r.name))
      throw PluginError("duplicate plugin name '" + r.name + "': registered by " + entries_.at(r.name).library +
                        " and by " + canonical.string());
    if (!names.insert(r.name).second)
      throw PluginError("duplicate plugin name '" + r.name + "': registered twice by " + canonical.string());
  }
  for (auto& r : descriptor.registrations) {
    r.library = canonical.string();
    add(std::move(r));
  }
  libraries_.push_back(canonical);
  loaded_libraries().push_back(std::move(lib));
}

void Registry::load_folder(const std::filesystem::path& folder) {
  std::error_code ec;
  if (!std::filesystem::is_directory(folder, ec)) throw PluginError("plugin folder not found: " + folder.string());
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(folder))
    if (e.path().extension() == ".so") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) load_library(f);
}

std::filesystem::path Registry::default_plugin_folder() {
  // The core library lives in <prefix>/lib (or build/lib); its plugins in lib/rankone/plugins.
  const auto core = std::filesystem::path(boost::dll::this_line_location().string());
  return core.parent_path() / "rankone" / "plugins";
}

void Registry::load_path(const std::filesystem::path& path, const std::string& source) {
  loading_source() = source;
  try {
    if (std::filesystem::is_directory(path)) load_folder(path); else load_library(path);
  } catch (const PluginError& e) {
    loading_source().clear();
    if (source.empty()) throw;
    throw PluginError(source + ": " + e.what());
  }
  loading_source().clear();
}

void Registry::load_default(const std::vector<std::filesystem::path>& extra) {
  const auto builtin = default_plugin_folder();
  if (std::filesystem::is_directory(builtin)) load_folder(builtin);
  if (const char* env = std::getenv("RANKONE_PLUGIN_PATH")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':'))
      if (!item.empty()) load_path(item, "RANKONE_PLUGIN_PATH");
  }
  for (const auto& p : extra) load_path(p);
}

const Registration& Registry::get(const std::string& name, std::optional<Kind> kind) const {
  auto it = entries_.find(name);
  if (it != entries_.end() && (!kind || it->second.kind == *kind)) return it->second;
  std::string known, closest;
  std::size_t best = std::string::npos;
  for (const auto& [n, r] : entries_) {
    if (kind && r.kind != *kind) continue;
    known += (known.empty() ? "" : ", ") + n;
    const std::size_t dist = edit_distance(name, n);
    if (dist < best) { best = dist; closest = n; }
  }
  std::string what = kind ? to_string(*kind) : std::string("plugin");
  // A name of another kind (an estimator where an initializer is expected) is not unknown.
  std::string msg = it != entries_.end() ? "'" + name + "' is " + with_article(to_string(it->second.kind)) + ", but " +
                                               with_article(what) + " is expected here"
                                         : "unknown " + what + " '" + name + "'";
  if (!closest.empty()) msg += "; did you mean '" + closest + "'?";
  msg += " Known " + what + "s: " + (known.empty() ? std::string("(none loaded)") : known);
  throw PluginError(msg);
}

std::vector<const Registration*> Registry::all() const {
  std::vector<const Registration*> out;
  for (const auto& [n, r] : entries_) out.push_back(&r);
  return out;
}

std::vector<const Registration*> Registry::of_kind(Kind kind) const {
  std::vector<const Registration*> out;
  for (const auto& [n, r] : entries_)
    if (r.kind == kind) out.push_back(&r);
  return out;
}

namespace {

/// The parameters of a plugin reference: the object without its "name" and "label".
Params params_of(const Json& ref, const std::string& path = "") {
  Json values = ref.is_object() ? ref : Json::object();
  values.erase("name");
  values.erase("label");
  return Params(std::move(values), path);
}

std::string name_of(const Json& ref) { return ref.is_string() ? ref.get<std::string>() : ref.value("name", std::string{}); }

}  // namespace

std::unique_ptr<Component> Registry::create_component(const Json& ref, Kind kind, const std::string& path) const {
  return build(get(name_of(ref), kind), params_of(ref, path));
}

std::unique_ptr<Component> Registry::build(const Registration& registration, const Params& params) const {
  std::unique_ptr<Component> component = registration.factory(params, BuildContext{*this});
  // The shared iteration policy reads its own declared parameters: no factory repeats that.
  if (auto* iterative = dynamic_cast<IterativeEstimator*>(component.get()))
    iterative->configure_policy(params, *this, registration.schema);
  return component;
}

Footprint Registry::footprint(const Json& ref, Kind kind, const FootprintContext& context) const {
  const Registration& r = get(name_of(ref), kind);
  if (!r.footprint) {  // undeclared: holds nothing we know of, and passes the shape it was given on
    Footprint unknown;
    unknown.data = context.data;
    return unknown;
  }
  return r.footprint(params_of(ref), context);
}

void ValidationContext::fail(const std::string& path, const std::string& expected, const Json& found) const {
  std::string shown = found.dump();
  if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
  fail_message(path, "expected " + expected + ", found " + shown);
}

void ValidationContext::fail_message(const std::string& path, const std::string& message) const {
  const std::string where = origin(path);
  throw ConfigError((where.empty() ? std::string() : where + ": ") + "at " + (path.empty() ? "/" : path) + ": " + message);
}

Json validate_plugin_ref(const Json& ref, Kind kind, const ValidationContext& ctx, const std::string& path) {
  Json obj;
  if (ref.is_string()) {
    obj = Json{{"name", ref}};
  } else if (ref.is_object()) {
    obj = ref;
    if (!obj.contains("name") || !obj["name"].is_string())
      ctx.fail(path + "/name", "the name of " + with_article(to_string(kind)) + " (a string)", obj.value("name", Json()));
  } else {
    ctx.fail(path, with_article(to_string(kind)) + ": a name or an object with \"name\"", ref);
  }
  if (obj.contains("label") && !obj["label"].is_string()) ctx.fail(path + "/label", "a string", obj["label"]);
  const std::string name = obj["name"].get<std::string>();
  const Registration* reg = nullptr;
  try {
    reg = &ctx.registry().get(name, kind);
  } catch (const PluginError& e) {
    ctx.fail_message(path + (ref.is_object() ? "/name" : ""), e.what());
  }
  Json out = reg->schema.validate(obj, ctx, path);
  out["name"] = name;
  if (obj.contains("label")) out["label"] = obj["label"];
  return out;
}

}  // namespace rankone
