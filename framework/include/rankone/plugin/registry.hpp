#pragma once
/// \file Plugin registrations and the registry that holds them.
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rankone/core/errors.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/component.hpp"
#include "rankone/interfaces/footprint.hpp"

namespace rankone {

enum class Kind { sampler, sensing_operator, data_source, estimator, metric, initializer };
/// "sampler", "operator", "source", "estimator", "metric", "initializer"
std::string to_string(Kind k);
Kind kind_from_string(const std::string& s);      ///< throws ConfigError
/// "an estimator", "a sampler": the noun with its indefinite article.
std::string with_article(const std::string& noun);

class Registry;

/// What a factory receives besides its validated parameters.
struct BuildContext {
  const Registry& registry;
};

using Factory = std::function<std::unique_ptr<Component>(const Params&, const BuildContext&)>;
/// What a component will hold at its peak, from its validated parameters (interfaces/footprint.hpp).
using FootprintModel = std::function<Footprint(const Params&, const FootprintContext&)>;

/// One plugin: identity, documentation, declared parameters and a factory.
struct Registration {
  Kind kind = Kind::estimator;
  std::string name;
  std::string version = "1.0";
  std::string summary;    ///< one line
  std::string citation;   ///< paper and equation, or "" for generic components
  std::string doc_page;   ///< path of its documentation page, relative to the repository
  Schema schema;
  /// Parameters for a minimal working instance, beyond the defaults (required ones, e.g. `{"d": 10}`
  /// for a source). The conformance test builds every plugin from it.
  Json example = Json::object();
  /// Estimators and metrics: a data source reference (`{"name": "synthetic", ...}`) on which the
  /// example runs in the conformance checks; null: conformance's default_example_data().
  Json example_data;
  Factory factory;
  /// Its memory footprint; without one the component counts as holding nothing (the trial's memory
  /// limit still stops it at run time). Every built-in sampler, source and estimator declares one.
  FootprintModel footprint;
  /// Estimators that fit one fixed training set (FixedSampleEstimator): an experiment pairing one
  /// with an endless source is refused at validation, naming the estimator.
  bool needs_finite_data = false;
  /// Estimators that draw fresh batches as they iterate and never revisit one (one-pass): the
  /// Python package streams successive partial_fit rows to them (docs/python.md).
  bool one_pass = false;
  /// Initializers: the start reads data through the estimator's reader (an estimator that holds its
  /// data once keeps a copy for it, and footprints count that copy).
  bool reads_data = true;
  /// Initializers that start models of one rank only (the phase-retrieval starts, M = z z': 1); 0: any.
  /// Conformance asks them for that rank.
  Index start_rank = 0;
  std::string library;    ///< filled in by the loader: the shared library it came from
};

/// All registrations known to a process. Names are unique across kinds.
class Registry {
 public:
  /// Adds a registration; a duplicate name is a PluginError naming both libraries.
  void add(Registration r);
  /// Loads every plugin library in a folder (files ending in .so), in name order.
  void load_folder(const std::filesystem::path& folder);
  /// Loads one plugin library (see plugin/plugin_api.hpp for the checks).
  void load_library(const std::filesystem::path& file);
  /// Loads a plugin folder or one library, whichever `path` names. A non-empty `source` says where
  /// the path came from ("RANKONE_PLUGIN_PATH", "x.json: at /plugin_paths/0") and prefixes any error.
  void load_path(const std::filesystem::path& path, const std::string& source = "");
  /// The build's plugin folder, then RANKONE_PLUGIN_PATH (':'-separated), then `extra`.
  void load_default(const std::vector<std::filesystem::path>& extra = {});

  bool contains(const std::string& name) const { return entries_.count(name) > 0; }
  /// The registration of `name`; unknown names are a PluginError listing what exists of that kind
  /// and the closest match.
  const Registration& get(const std::string& name, std::optional<Kind> kind = std::nullopt) const;
  std::vector<const Registration*> all() const;
  std::vector<const Registration*> of_kind(Kind kind) const;
  std::vector<std::filesystem::path> libraries() const { return libraries_; }

  /// Creates a component from a validated plugin reference `{"name": ..., params...}`.
  std::unique_ptr<Component> create_component(const Json& ref, Kind kind, const std::string& path) const;
  /// Runs `registration`'s factory on `params` and, for an iterative estimator, configures the
  /// shared iteration policy from the same parameters (IterativeEstimator::configure_policy).
  std::unique_ptr<Component> build(const Registration& registration, const Params& params) const;
  /// The footprint of the component a validated reference would create, in `context`.
  Footprint footprint(const Json& ref, Kind kind, const FootprintContext& context) const;
  template <class T>
  std::unique_ptr<T> create(const Json& ref, Kind kind, const std::string& path = "") const {
    auto c = create_component(ref, kind, path);
    auto* t = dynamic_cast<T*>(c.get());
    if (!t) throw PluginError("plugin '" + ref.value("name", std::string{}) + "' did not create " + with_article(to_string(kind)));
    c.release();
    return std::unique_ptr<T>(t);
  }

  /// The folder where the build (or installation) puts plugin libraries, found relative to the
  /// running executable (`<prefix>/bin/../lib/rankone/plugins`).
  static std::filesystem::path default_plugin_folder();

 private:
  std::map<std::string, Registration> entries_;
  std::vector<std::filesystem::path> libraries_;
  std::vector<std::shared_ptr<void>> handles_;  // keep libraries loaded for the process lifetime
};

/// Levenshtein distance (for "did you mean" suggestions).
std::size_t edit_distance(const std::string& a, const std::string& b);

/// Carries where each JSON path of a composed experiment came from, so validation errors can name
/// the file (or the command-line override) that set the offending value.
class ValidationContext {
 public:
  ValidationContext(const Registry& registry, std::function<std::string(const std::string&)> origin)
      : registry_(registry), origin_(std::move(origin)) {}
  const Registry& registry() const { return registry_; }
  std::string origin(const std::string& json_path) const { return origin_ ? origin_(json_path) : ""; }
  /// Throws ConfigError "<origin>: at <path>: expected <expected>, found <found>".
  [[noreturn]] void fail(const std::string& path, const std::string& expected, const Json& found) const;
  [[noreturn]] void fail_message(const std::string& path, const std::string& message) const;

 private:
  const Registry& registry_;
  std::function<std::string(const std::string&)> origin_;
};

/// Validates a plugin reference (`"name"` or `{"name": ..., params...}`) of a given kind and returns
/// it as an object with defaults filled in (`label`, if present, is kept).
Json validate_plugin_ref(const Json& ref, Kind kind, const ValidationContext& ctx, const std::string& path);

}  // namespace rankone
