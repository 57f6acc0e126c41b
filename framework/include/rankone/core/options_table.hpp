#pragma once
/// \file Options declared once: a table binds each field of a plugin's Options struct to its
/// declared parameter (type, default, range, doc, and the schema's cross-field constraints), so that
/// the schema, the struct's constructors, `to_json` and `is_valid` all read one declaration.
///
/// \code
///   struct MyOptions : DeclaredOptions<MyOptions> {
///     Index rank;
///     std::optional<Index> init_batch_size;  ///< unset: one batch
///     static const OptionsTable<MyOptions>& table();
///     MyOptions() { read_defaults(); }
///     explicit MyOptions(const Params& p) { read(p); }
///   };
///   const OptionsTable<MyOptions>& MyOptions::table() {
///     static const OptionsTable<MyOptions> t = [] {
///       OptionsTable<MyOptions> t;
///       t.bind(&MyOptions::rank, t.schema().integer("rank", 2, "rank k").at_least(1));
///       t.bind(&MyOptions::init_batch_size,
///              t.schema().integer("init_batch_size", std::nullopt, "rows of the start").at_least(1).make_nullable());
///       return t;
///     }();
///     return t;
///   }
/// \endcode
#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "rankone/core/errors.hpp"
#include "rankone/core/params.hpp"

namespace rankone {

template <class Options>
class OptionsTable {
 public:
  /// Where the parameters are declared (Schema's fluent calls, its constraints); `bind` ties one to a field.
  Schema& schema() { return schema_; }
  const Schema& schema() const { return schema_; }

  /// Binds the declared parameter `spec` (just returned by a `schema()` call) to `member`: integers
  /// (int, Index), double, bool, std::string, or std::optional of one of those (null: unset).
  /// The member may be one of a base struct of Options (settings shared by several estimators).
  template <class T, class Of>
  OptionsTable& bind(T Of::*member, const ParamSpec& spec) {
    return bind(member, spec.name);
  }
  /// Binds the parameter `name`, declared already (by a shared helper such as declare_threads).
  template <class T, class Of>
  OptionsTable& bind(T Of::*member, const std::string& name) {
    static_assert(std::is_base_of_v<Of, Options>, "a member of Options or of a base of it");
    if (schema_.find(name) == nullptr) throw std::logic_error("OptionsTable: '" + name + "' is not declared");
    fields_.push_back(Field{name, [member, name](Options& o, const Params& p) { o.*member = read<T>(p, name); },
                            [member, name](const Options& o, Json& j) { j[name] = write(o.*member); }});
    return *this;
  }
  /// Binds a choice parameter to an enum field through its (name, value) pairs.
  template <class E, class Of>
  OptionsTable& bind_choice(E Of::*member, const ParamSpec& spec, std::vector<std::pair<std::string, E>> values) {
    static_assert(std::is_base_of_v<Of, Options>, "a member of Options or of a base of it");
    const std::string name = spec.name;
    fields_.push_back(Field{name,
                            [member, name, values](Options& o, const Params& p) {
                              const std::string chosen = p.string(name);
                              for (const auto& [text, value] : values)
                                if (text == chosen) o.*member = value;
                            },
                            [member, name, values](const Options& o, Json& j) {
                              for (const auto& [text, value] : values)
                                if (value == o.*member) j[name] = text;
                            }});
    return *this;
  }

  /// Fills every bound field from validated parameters.
  void read(Options& options, const Params& params) const {
    for (const auto& f : fields_) f.read(options, params);
  }
  /// The bound fields as parameters, keyed as in the schema.
  Json write(const Options& options) const {
    Json j = Json::object();
    for (const auto& f : fields_) f.write(options, j);
    return j;
  }

 private:
  struct Field {
    std::string name;
    std::function<void(Options&, const Params&)> read;
    std::function<void(const Options&, Json&)> write;
  };

  template <class T>
  static T read(const Params& p, const std::string& name) {
    if constexpr (std::is_same_v<T, bool>) {
      return p.boolean(name);
    } else if constexpr (std::is_integral_v<T>) {
      // A field narrower than the parameter refuses what it cannot hold (never a silent wrap).
      const std::int64_t value = p.integer(name);
      if (!std::in_range<T>(value))
        throw ConfigError("at " + p.path_of(name) + ": expected an integer in [" + std::to_string(std::numeric_limits<T>::min()) +
                          ", " + std::to_string(std::numeric_limits<T>::max()) + "] (what this setting holds), found " +
                          std::to_string(value));
      return static_cast<T>(value);
    } else if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(p.number(name));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return p.string(name);
    } else {  // std::optional<U>
      using U = typename T::value_type;
      return p.has(name) ? T(read<U>(p, name)) : T();
    }
  }
  template <class T>
  static Json write(const T& value) {
    if constexpr (std::is_arithmetic_v<T> || std::is_same_v<T, std::string>) {
      return Json(value);
    } else {  // std::optional<U>
      return value ? write(*value) : Json(nullptr);
    }
  }

  Schema schema_;
  std::vector<Field> fields_;
};

/// What every Options struct on a table shares (CRTP): `Derived::table()` is its one declaration.
template <class Derived>
struct DeclaredOptions {
  /// The declared parameters, the one place their defaults, ranges and constraints are written.
  static Schema schema() { return Derived::table().schema(); }
  /// The options as parameters, keyed as in the schema.
  Json to_json() const { return Derived::table().write(static_cast<const Derived&>(*this)); }
  /// Ceres' IsValid: false, with the first violation in `error` (if given), when a value is outside
  /// its declared range or a cross-field constraint of the schema is violated.
  bool is_valid(std::string* error = nullptr) const { return schema().is_valid(to_json(), error); }

 protected:
  /// Fills the fields from validated parameters (the derived constructors call it).
  void read(const Params& params) { Derived::table().read(static_cast<Derived&>(*this), params); }
  /// Fills the fields from the schema's defaults.
  void read_defaults() { read(Params(schema().defaults())); }
};

}  // namespace rankone
