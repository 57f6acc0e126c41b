#pragma once
/// \file Declared parameters (the mlpack model): every plugin declares each parameter once — type,
/// default, range or choices, and a one-line doc. The same `Schema` validates experiment files
/// (unknown keys are errors), fills in defaults, prints `rankone describe NAME`, and documents the
/// plugin.
#include <functional>
#include <memory>
#include <set>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "rankone/core/types.hpp"

namespace rankone {

using Json = nlohmann::json;

enum class ParamType { integer, number, boolean, string, choice, number_list, plugin, object };
std::string to_string(ParamType t);

/// One declared parameter. Built fluently: `schema.integer("rank", 2, "target rank").at_least(1)`.
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::number;
  std::string doc;
  Json default_value;             ///< null when required or optional-without-default
  bool required = false;          ///< must be given
  bool nullable = false;          ///< may be absent (or null) with no default
  std::optional<double> minimum;  ///< inclusive bounds for numbers, integers and list elements
  std::optional<double> maximum;
  bool exclusive_minimum = false;
  bool exclusive_maximum = false;
  std::vector<std::string> choices;  ///< for ParamType::choice
  std::string plugin_kind;           ///< for ParamType::plugin: the kind of plugin referenced
  /// The default when another parameter is given (test_fraction is 0 when test_file is given).
  std::optional<std::pair<std::string, Json>> default_when_given;
  /// For ParamType::plugin: defaults the referencing plugin sets for the referenced one, from its own
  /// given values (a file source turns on its operator's first-order term). Applied to parameters the
  /// referenced plugin declares and the reference leaves out; `nested_defaults_doc` says the rule.
  std::function<Json(const Json& given)> nested_defaults;
  std::string nested_defaults_doc;

  ParamSpec& at_least(double v) { minimum = v; exclusive_minimum = false; return *this; }
  ParamSpec& above(double v) { minimum = v; exclusive_minimum = true; return *this; }
  ParamSpec& at_most(double v) { maximum = v; exclusive_maximum = false; return *this; }
  ParamSpec& below(double v) { maximum = v; exclusive_maximum = true; return *this; }
  ParamSpec& make_required() { required = true; nullable = false; default_value = nullptr; return *this; }
  ParamSpec& make_nullable() { nullable = true; required = false; default_value = nullptr; return *this; }
  ParamSpec& defaults_to_when_given(Json value, std::string other) {
    default_when_given = std::make_pair(std::move(other), std::move(value));
    return *this;
  }
  ParamSpec& sets_defaults_of_referenced(std::function<Json(const Json& given)> rule, std::string rule_doc) {
    nested_defaults = std::move(rule);
    nested_defaults_doc = std::move(rule_doc);
    return *this;
  }
  /// What `describe` prints after the type: "default 0.2 (0 when test_file is given)", "required", …
  std::string default_text() const;

  /// Human-readable expectation, e.g. "integer ≥ 1" or "one of \"sign\", \"identity\"".
  std::string expectation() const;
  Json to_json() const;
};

class ValidationContext;
class Params;

/// The declared parameters of one plugin.
class Schema {
 public:
  ParamSpec& integer(std::string name, std::optional<std::int64_t> def, std::string doc);
  ParamSpec& number(std::string name, std::optional<double> def, std::string doc);
  ParamSpec& boolean(std::string name, bool def, std::string doc);
  ParamSpec& string(std::string name, std::optional<std::string> def, std::string doc);
  ParamSpec& choice(std::string name, std::string def, std::vector<std::string> choices, std::string doc);
  ParamSpec& number_list(std::string name, std::string doc);  ///< nullable unless made required
  /// A nested plugin reference: `"name"` or `{"name": ..., params...}`.
  ParamSpec& plugin(std::string name, std::string kind, std::optional<std::string> def, std::string doc);
  /// Free-form JSON object (validated by the plugin itself).
  ParamSpec& object(std::string name, std::string doc);
  /// A retired parameter name: validation refuses it with a hint to `new_name` (one name per
  /// concept across plugins, docs/experiments.md#parameter-names). Not a parameter: not in to_json.
  Schema& renamed(std::string old_name, std::string new_name);
  /// A retired parameter that has no one-to-one replacement: validation refuses it with `advice`.
  Schema& retired(std::string old_name, std::string advice);
  /// A rule between parameters that no type or range expresses (Ceres' cross-field constraints):
  /// `holds` reads the validated values. `validate` and `is_valid` refuse a violation at the first
  /// field's path, naming every field, their values and `message`, e.g. "at /threads: violated
  /// constraint on /threads and /blocks: blocks = 1 leaves nothing to run in parallel (threads = 2,
  /// blocks = 1)".
  Schema& constraint(std::vector<std::string> fields, std::string message, std::function<bool(const Params&)> holds);
  /// The constraint that `name`, a setting only `choice` = `value` reads, is not given with another choice
  /// ("gamma is read by variant taf only"): a setting that would be silently ignored is refused.
  Schema& only_with(const std::string& name, const std::string& choice, const std::string& value);
  /// The same for a setting that several values of `choice` read ("tau0 is read by variant wf or rwf only").
  Schema& only_with(const std::string& name, const std::string& choice, const std::vector<std::string>& values);
  struct Constraint {
    std::vector<std::string> fields;
    std::string message;
    std::function<bool(const Params&)> holds;
  };
  const std::vector<Constraint>& constraints() const { return constraints_; }

  const std::vector<ParamSpec>& params() const { return params_; }
  const ParamSpec* find(const std::string& name) const;

  /// Validates `given` (an object) and returns it with defaults filled in. Nested plugin references
  /// are validated through the context's registry. Throws ConfigError naming file, path, expectation
  /// and what was found.
  Json validate(const Json& given, const ValidationContext& ctx, const std::string& path) const;

  /// Every declared parameter with its default (null where there is none): what an Options struct's
  /// default constructor reads, so that a default is written once, here.
  Json defaults() const;
  /// The Ceres-style check behind `Options::is_valid`: whether `values` satisfies every declared type,
  /// range and choice. When it does not, `error` (if given) receives the first violation, e.g.
  /// "at /rank: expected an integer ≥ 1, found 0". For schemas without nested plugin references
  /// (those need a registry: `validate`).
  bool is_valid(const Json& values, std::string* error) const;

  Json to_json() const;
  static Schema from_json(const Json& j);

 private:
  ParamSpec& add(ParamSpec spec);
  std::vector<ParamSpec> params_;
  std::vector<std::pair<std::string, std::string>> renamed_;  ///< (old name, new name)
  std::vector<std::pair<std::string, std::string>> retired_;  ///< (old name, advice)
  std::vector<Constraint> constraints_;
};

/// Typed read access to a validated parameter object.
class Params {
 public:
  Params() = default;
  explicit Params(Json values, std::string path = "") : values_(std::move(values)), path_(std::move(path)) {}

  std::int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
  bool boolean(const std::string& name) const;
  std::string string(const std::string& name) const;
  std::vector<double> numbers(const std::string& name) const;
  bool has(const std::string& name) const;  ///< present and not null
  const Json& raw(const std::string& name) const;
  /// The whole object (a factory that hands it on counts as reading every parameter).
  const Json& json() const;
  /// The parameters of the object that nothing has read yet (through this object or a copy of it),
  /// besides `name` and `label`: the conformance check that every declared parameter is used.
  std::vector<std::string> unread() const;
  /// JSON path of this object in the experiment (for error messages), e.g. "/estimators/0".
  const std::string& path() const { return path_; }
  std::string path_of(const std::string& name) const { return path_ + "/" + name; }

 private:
  Json values_ = Json::object();
  std::string path_;
  /// Which parameters were read, shared by the copies of one object.
  struct Reads {
    std::set<std::string> names;
    bool whole = false;
  };
  std::shared_ptr<Reads> reads_ = std::make_shared<Reads>();
};

}  // namespace rankone
