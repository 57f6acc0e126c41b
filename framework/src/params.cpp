// Declared parameters: construction, validation with defaults, and JSON (de)serialisation.
#include "rankone/core/params.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "rankone/core/errors.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone {

std::string to_string(ParamType t) {
  switch (t) {
    case ParamType::integer: return "integer";
    case ParamType::number: return "number";
    case ParamType::boolean: return "boolean";
    case ParamType::string: return "string";
    case ParamType::choice: return "choice";
    case ParamType::number_list: return "number_list";
    case ParamType::plugin: return "plugin";
    case ParamType::object: return "object";
  }
  return "unknown";
}

static ParamType param_type_from_string(const std::string& s) {
  for (ParamType t : {ParamType::integer, ParamType::number, ParamType::boolean, ParamType::string,
                      ParamType::choice, ParamType::number_list, ParamType::plugin, ParamType::object})
    if (to_string(t) == s) return t;
  throw ConfigError("unknown parameter type '" + s + "'");
}

static std::string format_number(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

static std::string bounds_text(const ParamSpec& spec) {
  std::string text;
  if (spec.minimum) text += std::string(spec.exclusive_minimum ? " > " : " ≥ ") + format_number(*spec.minimum);
  if (spec.maximum)
    text += std::string(spec.minimum ? " and" : "") + (spec.exclusive_maximum ? " < " : " ≤ ") + format_number(*spec.maximum);
  return text;
}

std::string ParamSpec::expectation() const {
  std::string what;
  switch (type) {
    case ParamType::integer: what = "an integer"; break;
    case ParamType::number: what = "a number"; break;
    case ParamType::boolean: what = "true or false"; break;
    case ParamType::string: what = "a string"; break;
    case ParamType::choice: {
      what = "one of ";
      for (std::size_t i = 0; i < choices.size(); ++i) what += (i ? ", \"" : "\"") + choices[i] + "\"";
      break;
    }
    case ParamType::number_list: what = "an array of numbers"; break;
    case ParamType::plugin: what = with_article(plugin_kind) + " (a name, or an object with \"name\")"; break;
    case ParamType::object: what = "an object"; break;
  }
  what += bounds_text(*this);
  if (type == ParamType::number_list && (minimum || maximum)) what += " (each element)";
  return what;
}

Json ParamSpec::to_json() const {
  Json j = {{"name", name}, {"type", to_string(type)}, {"doc", doc}};
  if (required) j["required"] = true;
  if (nullable) j["nullable"] = true;
  if (!default_value.is_null()) j["default"] = default_value;
  if (minimum) j[exclusive_minimum ? "exclusive_minimum" : "minimum"] = *minimum;
  if (maximum) j[exclusive_maximum ? "exclusive_maximum" : "maximum"] = *maximum;
  if (!choices.empty()) j["choices"] = choices;
  if (!plugin_kind.empty()) j["kind"] = plugin_kind;
  if (default_when_given) j["default_when_given"] = {{default_when_given->first, default_when_given->second}};
  if (!nested_defaults_doc.empty()) j["sets_defaults_of_referenced"] = nested_defaults_doc;
  return j;
}

std::string ParamSpec::default_text() const {
  if (required) return "required";
  std::string text = default_value.is_null() ? "optional" : "default " + default_value.dump();
  if (default_when_given)
    text += " (" + default_when_given->second.dump() + " when " + default_when_given->first + " is given)";
  if (!nested_defaults_doc.empty()) text += "; " + nested_defaults_doc;
  return text;
}

ParamSpec& Schema::add(ParamSpec spec) {
  if (find(spec.name)) throw std::logic_error("parameter '" + spec.name + "' declared twice");
  if (spec.name == "name" || spec.name == "label")
    throw std::logic_error("'" + spec.name + "' is reserved in plugin references");
  params_.push_back(std::move(spec));
  return params_.back();
}

namespace {

ParamSpec make_spec(std::string name, ParamType type, std::string doc) {
  ParamSpec s;
  s.name = std::move(name);
  s.type = type;
  s.doc = std::move(doc);
  return s;
}

}  // namespace

ParamSpec& Schema::integer(std::string name, std::optional<std::int64_t> def, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::integer, std::move(doc));
  if (def) s.default_value = *def; else s.required = true;
  return add(std::move(s));
}

ParamSpec& Schema::number(std::string name, std::optional<double> def, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::number, std::move(doc));
  if (def) s.default_value = *def; else s.required = true;
  return add(std::move(s));
}

ParamSpec& Schema::boolean(std::string name, bool def, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::boolean, std::move(doc));
  s.default_value = def;
  return add(std::move(s));
}

ParamSpec& Schema::string(std::string name, std::optional<std::string> def, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::string, std::move(doc));
  if (def) s.default_value = *def; else s.required = true;
  return add(std::move(s));
}

ParamSpec& Schema::choice(std::string name, std::string def, std::vector<std::string> choices, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::choice, std::move(doc));
  s.default_value = std::move(def);
  s.choices = std::move(choices);
  return add(std::move(s));
}

ParamSpec& Schema::number_list(std::string name, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::number_list, std::move(doc));
  s.nullable = true;
  return add(std::move(s));
}

ParamSpec& Schema::plugin(std::string name, std::string kind, std::optional<std::string> def, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::plugin, std::move(doc));
  s.plugin_kind = std::move(kind);
  if (def) s.default_value = *def; else s.required = true;
  return add(std::move(s));
}

ParamSpec& Schema::object(std::string name, std::string doc) {
  ParamSpec s = make_spec(std::move(name), ParamType::object, std::move(doc));
  s.nullable = true;
  return add(std::move(s));
}

const ParamSpec* Schema::find(const std::string& name) const {
  for (const auto& p : params_)
    if (p.name == name) return &p;
  return nullptr;
}

namespace {

bool in_range(const ParamSpec& spec, double v) {
  if (!std::isfinite(v)) return false;
  if (spec.minimum && (spec.exclusive_minimum ? v <= *spec.minimum : v < *spec.minimum)) return false;
  if (spec.maximum && (spec.exclusive_maximum ? v >= *spec.maximum : v > *spec.maximum)) return false;
  return true;
}

bool is_integral(const Json& v) {
  if (v.is_number_integer()) return true;
  if (v.is_number_float()) {
    const double d = v.get<double>();
    return std::isfinite(d) && d == std::floor(d) && std::abs(d) < 9.0e15;
  }
  return false;
}

}  // namespace

namespace {

/// `ref` with the defaults `spec` sets for the plugin it references (those the plugin declares and
/// `ref` leaves out); `ref` unchanged when there are none or it is malformed (validation says so).
Json with_nested_defaults(const ParamSpec& spec, const Json& ref, const Json& given, const ValidationContext& ctx) {
  if (!spec.nested_defaults || !(ref.is_string() || (ref.is_object() && ref.contains("name") && ref["name"].is_string())))
    return ref;
  Json out = ref.is_string() ? Json{{"name", ref}} : ref;
  const std::string name = out["name"].get<std::string>();
  if (!ctx.registry().contains(name)) return ref;
  const Registration* referenced = &ctx.registry().get(name);
  if (referenced->kind != kind_from_string(spec.plugin_kind)) return ref;
  const Json defaults = spec.nested_defaults(given);
  for (auto it = defaults.begin(); it != defaults.end(); ++it)
    if (referenced->schema.find(it.key()) && !out.contains(it.key())) out[it.key()] = it.value();
  return out;
}

}  // namespace

Json Schema::validate(const Json& given, const ValidationContext& ctx, const std::string& path) const {
  if (!given.is_object()) ctx.fail(path.empty() ? "/" : path, "an object of parameters", given);
  Json out = Json::object();
  for (auto it = given.begin(); it != given.end(); ++it) {
    if (it.key() == "name" || it.key() == "label") continue;
    if (!find(it.key())) {
      for (const auto& [old_name, new_name] : renamed_)
        if (it.key() == old_name)
          ctx.fail_message(path + "/" + it.key(), "'" + old_name + "' is now called '" + new_name + "' (write \"" + new_name +
                                                      "\": " + it.value().dump() + "; one name per concept across plugins)");
      for (const auto& [old_name, advice] : retired_)
        if (it.key() == old_name) ctx.fail_message(path + "/" + it.key(), "'" + old_name + "' was retired: " + advice);
      std::string known;
      std::string closest;
      std::size_t best = std::string::npos;
      for (const auto& p : params_) {
        known += (known.empty() ? "" : ", ") + p.name;
        const std::size_t dist = edit_distance(it.key(), p.name);
        if (dist < best) { best = dist; closest = p.name; }
      }
      std::string msg = "unknown parameter '" + it.key() + "'";
      if (!closest.empty() && best <= std::max<std::size_t>(2, it.key().size() / 3)) msg += " (did you mean '" + closest + "'?)";
      msg += "; expected one of: " + (known.empty() ? std::string("(none)") : known);
      ctx.fail_message(path + "/" + it.key(), msg);
    }
  }
  for (const auto& spec : params_) {
    const std::string p = path + "/" + spec.name;
    const bool present = given.contains(spec.name) && !given.at(spec.name).is_null();
    if (!present) {
      if (spec.required) ctx.fail_message(p, "missing required parameter '" + spec.name + "' (" + spec.expectation() + ")");
      out[spec.name] = spec.default_value;  // null for nullable parameters without default
      if (spec.default_when_given && given.contains(spec.default_when_given->first) &&
          !given.at(spec.default_when_given->first).is_null())
        out[spec.name] = spec.default_when_given->second;
      if (spec.type == ParamType::plugin && !spec.default_value.is_null())
        out[spec.name] = validate_plugin_ref(with_nested_defaults(spec, spec.default_value, given, ctx),
                                             kind_from_string(spec.plugin_kind), ctx, p);
      continue;
    }
    const Json& v = given.at(spec.name);
    switch (spec.type) {
      case ParamType::integer: {
        if (!is_integral(v)) ctx.fail(p, spec.expectation(), v);
        // Exact integers stay exact: an unsigned value past INT64_MAX is refused, never wrapped.
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
          ctx.fail(p, spec.expectation() + " (at most 9223372036854775807)", v);
        const std::int64_t n = v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(v.get<double>());
        if (!in_range(spec, static_cast<double>(n))) ctx.fail(p, spec.expectation(), v);
        out[spec.name] = n;
        break;
      }
      case ParamType::number:
        if (!v.is_number() || !in_range(spec, v.get<double>())) ctx.fail(p, spec.expectation(), v);
        out[spec.name] = v;
        break;
      case ParamType::boolean:
        if (!v.is_boolean()) ctx.fail(p, spec.expectation(), v);
        out[spec.name] = v;
        break;
      case ParamType::string:
        if (!v.is_string()) ctx.fail(p, spec.expectation(), v);
        out[spec.name] = v;
        break;
      case ParamType::choice: {
        if (!v.is_string()) ctx.fail(p, spec.expectation(), v);
        bool ok = false;
        for (const auto& c : spec.choices) ok = ok || c == v.get<std::string>();
        if (!ok) ctx.fail(p, spec.expectation(), v);
        out[spec.name] = v;
        break;
      }
      case ParamType::number_list:
        if (!v.is_array()) ctx.fail(p, spec.expectation(), v);
        for (std::size_t i = 0; i < v.size(); ++i)
          if (!v[i].is_number() || !in_range(spec, v[i].get<double>()))
            ctx.fail(p + "/" + std::to_string(i), "a number" + bounds_text(spec), v[i]);
        out[spec.name] = v;
        break;
      case ParamType::plugin:
        out[spec.name] = validate_plugin_ref(with_nested_defaults(spec, v, given, ctx), kind_from_string(spec.plugin_kind), ctx, p);
        break;
      case ParamType::object:
        if (!v.is_object()) ctx.fail(p, spec.expectation(), v);
        out[spec.name] = v;
        break;
    }
  }
  const Params values(out, path);
  for (const auto& c : constraints_) {
    if (c.holds(values)) continue;
    std::string names, found;
    for (std::size_t i = 0; i < c.fields.size(); ++i) {
      names += (i == 0 ? "" : i + 1 == c.fields.size() ? " and " : ", ") + path + "/" + c.fields[i];
      found += (i == 0 ? "" : ", ") + c.fields[i] + " = " + out.value(c.fields[i], Json()).dump();
    }
    ctx.fail_message(path + "/" + c.fields.front(), "violated constraint on " + names + ": " + c.message + " (" + found + ")");
  }
  return out;
}

Json Schema::defaults() const {
  Json out = Json::object();
  for (const auto& spec : params_) out[spec.name] = spec.default_value;
  return out;
}

bool Schema::is_valid(const Json& values, std::string* error) const {
  const Registry no_plugins;
  try {
    validate(values, ValidationContext(no_plugins, nullptr), "");
    return true;
  } catch (const ConfigError& e) {
    if (error) *error = e.what();
    return false;
  }
}

Schema& Schema::constraint(std::vector<std::string> fields, std::string message,
                           std::function<bool(const Params&)> holds) {
  constraints_.push_back(Constraint{std::move(fields), std::move(message), std::move(holds)});
  return *this;
}

Schema& Schema::only_with(const std::string& name, const std::string& choice, const std::string& value) {
  return only_with(name, choice, std::vector<std::string>{value});
}

Schema& Schema::only_with(const std::string& name, const std::string& choice, const std::vector<std::string>& values) {
  std::string names;
  for (std::size_t i = 0; i < values.size(); ++i) names += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i];
  return constraint({name, choice}, name + " is read by " + choice + " " + names + " only",
                    [name, choice, values](const Params& p) {
                      return !p.has(name) || std::find(values.begin(), values.end(), p.string(choice)) != values.end();
                    });
}

Schema& Schema::retired(std::string old_name, std::string advice) {
  retired_.emplace_back(std::move(old_name), std::move(advice));
  return *this;
}

Schema& Schema::renamed(std::string old_name, std::string new_name) {
  renamed_.emplace_back(std::move(old_name), std::move(new_name));
  return *this;
}

Json Schema::to_json() const {
  Json j = Json::array();
  for (const auto& p : params_) j.push_back(p.to_json());
  return j;
}

Schema Schema::from_json(const Json& j) {
  Schema s;
  for (const auto& e : j) {
    ParamSpec p;
    p.name = e.at("name").get<std::string>();
    p.type = param_type_from_string(e.at("type").get<std::string>());
    p.doc = e.value("doc", "");
    p.required = e.value("required", false);
    p.nullable = e.value("nullable", false);
    if (e.contains("default")) p.default_value = e.at("default");
    if (e.contains("minimum")) p.minimum = e.at("minimum").get<double>();
    if (e.contains("exclusive_minimum")) { p.minimum = e.at("exclusive_minimum").get<double>(); p.exclusive_minimum = true; }
    if (e.contains("maximum")) p.maximum = e.at("maximum").get<double>();
    if (e.contains("exclusive_maximum")) { p.maximum = e.at("exclusive_maximum").get<double>(); p.exclusive_maximum = true; }
    if (e.contains("choices")) p.choices = e.at("choices").get<std::vector<std::string>>();
    p.plugin_kind = e.value("kind", "");
    if (e.contains("default_when_given") && e.at("default_when_given").is_object() && !e.at("default_when_given").empty()) {
      const auto it = e.at("default_when_given").begin();
      p.default_when_given = std::make_pair(it.key(), it.value());
    }
    p.nested_defaults_doc = e.value("sets_defaults_of_referenced", "");  // the rule itself stays with its plugin
    s.add(std::move(p));
  }
  return s;
}

// ---- Params ----

const Json& Params::raw(const std::string& name) const {
  if (!values_.contains(name)) throw std::logic_error("parameter '" + name + "' was not declared (at " + path_ + ")");
  reads_->names.insert(name);
  return values_.at(name);
}

bool Params::has(const std::string& name) const {
  reads_->names.insert(name);
  return values_.contains(name) && !values_.at(name).is_null();
}

const Json& Params::json() const {
  reads_->whole = true;
  return values_;
}

std::vector<std::string> Params::unread() const {
  std::vector<std::string> names;
  if (reads_->whole || !values_.is_object()) return names;
  for (auto it = values_.begin(); it != values_.end(); ++it)
    if (it.key() != "name" && it.key() != "label" && !reads_->names.count(it.key())) names.push_back(it.key());
  return names;
}

std::int64_t Params::integer(const std::string& name) const { return raw(name).get<std::int64_t>(); }
double Params::number(const std::string& name) const { return raw(name).get<double>(); }
bool Params::boolean(const std::string& name) const { return raw(name).get<bool>(); }
std::string Params::string(const std::string& name) const { return raw(name).get<std::string>(); }
std::vector<double> Params::numbers(const std::string& name) const {
  const Json& v = raw(name);
  return v.is_null() ? std::vector<double>{} : v.get<std::vector<double>>();
}

}  // namespace rankone
