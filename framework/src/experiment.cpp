// Experiment composition, validation and planning.
#include "rankone/experiment/experiment.hpp"
#include "rankone/runner/stopping_rules.hpp"
#include "rankone/runner/code_identity.hpp"
#include "rankone/runner/memory_budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "rankone/core/errors.hpp"
#include "rankone/core/rng.hpp"

namespace rankone {

namespace fs = std::filesystem;

std::string ComposedExperiment::origin_of(const std::string& pointer) const {
  std::string p = pointer;
  while (true) {
    auto it = origins.find(p);
    if (it != origins.end()) return it->second;
    const auto slash = p.rfind('/');
    if (slash == std::string::npos || p.empty()) break;
    p = p.substr(0, slash);
  }
  return file.string();
}

namespace {

/// Line and column (1-based) of a byte offset in a text.
std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t byte) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') { ++line; column = 1; } else { ++column; }
  }
  return {line, column};
}

/// Experiment files are configurations: anything near these sizes is a mistake or an attack.
constexpr int kMaxNesting = 256;
constexpr std::uintmax_t kMaxExperimentBytes = 16u << 20;

/// Parses JSON, refusing a key repeated in one object (the parser would keep the last silently).
Json parse_without_duplicates(const std::string& text, const std::string& where) {
  std::vector<std::set<std::string>> keys;   // per open object
  std::vector<std::string> path;             // JSON pointer parts of the open containers
  std::vector<std::size_t> array_positions;  // next index per open array
  std::vector<bool> is_object;
  std::string duplicate;
  auto pointer = [&](const std::string& last) {
    std::string p;
    for (const auto& part : path) p += "/" + part;
    return p + "/" + last;
  };
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (depth > kMaxNesting)
      throw ConfigError(where + ": nested deeper than " + std::to_string(kMaxNesting) +
                        " levels (an experiment is a configuration; this looks like a generated or broken file)");
    using E = Json::parse_event_t;
    auto enter_value = [&] {  // a value inside an array takes the next index
      if (!is_object.empty() && !is_object.back()) path.push_back(std::to_string(array_positions.back()++));
    };
    auto leave_value = [&] {
      if (!path.empty()) path.pop_back();
    };
    switch (event) {
      case E::object_start:
        enter_value();
        keys.emplace_back();
        is_object.push_back(true);
        break;
      case E::array_start:
        enter_value();
        array_positions.push_back(0);
        is_object.push_back(false);
        break;
      case E::key: {
        const std::string key = parsed.get<std::string>();
        if (!keys.back().insert(key).second && duplicate.empty()) duplicate = pointer(key);
        path.push_back(key);
        break;
      }
      case E::object_end:
        keys.pop_back();
        is_object.pop_back();
        leave_value();
        break;
      case E::array_end:
        array_positions.pop_back();
        is_object.pop_back();
        leave_value();
        break;
      case E::value:
        if (!is_object.empty() && !is_object.back()) ++array_positions.back();
        else leave_value();
        break;
    }
    return true;
  };
  Json doc = Json::parse(text, callback, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  if (!duplicate.empty())
    throw ConfigError(where + ": at " + duplicate + ": duplicate key '" + duplicate.substr(duplicate.rfind('/') + 1) +
                      "' (a key may appear once in an object; JSON readers would keep only the last)");
  return doc;
}

}  // namespace

Json read_json_file(const fs::path& file) {
  std::error_code ec;
  if (fs::exists(file, ec) && !fs::is_regular_file(file, ec))
    throw ConfigError(file.string() + ": not a regular file (an experiment is a JSON file)");
  const auto size = fs::file_size(file, ec);
  if (!ec && size > kMaxExperimentBytes)
    throw ConfigError(file.string() + ": " + std::to_string(size) + " bytes, more than the " +
                      std::to_string(kMaxExperimentBytes >> 20) + " MiB an experiment file may have");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file.string() + ": cannot open experiment file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  try {
    return parse_without_duplicates(text, file.string());
  } catch (const Json::parse_error& e) {
    const auto [line, column] = line_and_column(text, e.byte > 0 ? e.byte - 1 : 0);
    std::string msg = e.what();
    const auto pos = msg.find("syntax error");
    throw ConfigError(file.string() + ":" + std::to_string(line) + ":" + std::to_string(column) +
                      ": invalid JSON: " + (pos == std::string::npos ? msg : msg.substr(pos)));
  } catch (const Json::out_of_range& e) {  // a number literal beyond double, such as 1e999
    std::string msg = e.what();
    const auto quote = msg.find('\'');
    const std::string literal = quote == std::string::npos ? "" : msg.substr(quote + 1, msg.rfind('\'') - quote - 1);
    const auto at = literal.empty() ? std::string::npos : text.find(literal);
    const auto [line, column] = line_and_column(text, at == std::string::npos ? 0 : at);
    throw ConfigError(file.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": number " + literal +
                      " is out of range (expected a finite number; JSON has no infinities or NaN)");
  }
}

namespace {

// Records every leaf pointer of `j` (and every object/array node) as coming from `origin`.
void record_origins(const Json& j, const std::string& pointer, const std::string& origin,
                    std::map<std::string, std::string>& origins) {
  origins[pointer] = origin;
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) record_origins(it.value(), pointer + "/" + it.key(), origin, origins);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i) record_origins(j[i], pointer + "/" + std::to_string(i), origin, origins);
  }
}

// Objects merge key by key; anything else in `top` replaces what `base` had.
void deep_merge(Json& base, const Json& top) {
  if (base.is_object() && top.is_object()) {
    for (auto it = top.begin(); it != top.end(); ++it) {
      if (base.contains(it.key())) deep_merge(base[it.key()], it.value());
      else base[it.key()] = it.value();
    }
  } else {
    base = top;
  }
}

void compose_file(const fs::path& file, Json& doc, std::map<std::string, std::string>& origins,
                  std::vector<fs::path>& chain) {
  // A pipe (/dev/stdin, a FIFO) has no canonical path: its absolute name identifies it.
  std::error_code unresolved;
  fs::path canonical = fs::weakly_canonical(file, unresolved);
  if (unresolved) canonical = fs::absolute(file);
  for (const auto& f : chain)
    if (f == canonical) throw ConfigError(file.string() + ": circular 'extends'");
  chain.push_back(canonical);
  Json own = read_json_file(file);
  if (!own.is_object()) throw ConfigError(file.string() + ": at /: expected an object, found " + std::string(own.type_name()));
  if (own.contains("extends")) {
    Json ext = own["extends"];
    if (ext.is_string()) ext = Json::array({ext});
    if (!ext.is_array()) throw ConfigError(file.string() + ": at /extends: expected a file name or a list of them, found " + ext.dump());
    for (std::size_t i = 0; i < ext.size(); ++i) {
      if (!ext[i].is_string()) throw ConfigError(file.string() + ": at /extends/" + std::to_string(i) + ": expected a file name, found " + ext[i].dump());
      const fs::path base = file.parent_path() / ext[i].get<std::string>();
      if (!fs::exists(base)) throw ConfigError(file.string() + ": at /extends: file not found: " + base.string());
      compose_file(base, doc, origins, chain);
    }
    own.erase("extends");
  }
  Json merged = doc.is_null() ? Json::object() : doc;
  deep_merge(merged, own);
  doc = std::move(merged);
  record_origins(own, "", file.string(), origins);
  chain.pop_back();
}

/// The parts of "a.b.c"; empty parts are kept ("seed." has two), so that callers can refuse them.
std::vector<std::string> split_dotted(const std::string& dotted) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = dotted.find('.', start);
    parts.push_back(dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

bool is_index(const std::string& s) {
  return !s.empty() && s.size() < 10 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string dotted_to_pointer(const std::string& dotted) {
  std::string p;
  for (const auto& part : split_dotted(dotted)) p += "/" + part;
  return p;
}

void set_dotted(Json& doc, const std::string& dotted, const Json& value, const std::string& what) {
  const auto parts = split_dotted(dotted);
  if (parts.empty() || std::any_of(parts.begin(), parts.end(), [](const std::string& s) { return s.empty(); }))
    throw ConfigError(what + ": '" + dotted + "' is not a key path (expected names and indices joined by '.')");
  Json* node = &doc;
  std::string pointer;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    pointer += "/" + part;
    const bool last = i + 1 == parts.size();
    if (node->is_array()) {
      if (!is_index(part) || std::stoul(part) >= node->size())
        throw ConfigError(what + ": at " + pointer + ": expected an index below " + std::to_string(node->size()) +
                          " (the array has " + std::to_string(node->size()) + " elements), found '" + part + "'");
      node = &(*node)[std::stoul(part)];
    } else {
      if (node->is_string() && !last) *node = Json{{"name", *node}};  // "gaussian" → {"name": "gaussian"}
      if (!node->is_object() && !node->is_null())
        throw ConfigError(what + ": at " + pointer + ": cannot set a key inside a " + std::string(node->type_name()));
      node = &(*node)[part];
    }
    if (last) *node = value;
  }
}

Json override_value(const std::string& text, const std::string& what) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error&) {
    return text;  // a bare word is a string
  } catch (const Json::out_of_range&) {
    throw ConfigError(what + ": number " + text + " is out of range (expected a finite number)");
  }
}

ComposedExperiment compose_experiment(const fs::path& file, const std::vector<std::string>& overrides) {
  ComposedExperiment exp;
  exp.file = file;
  if (!fs::exists(file)) throw ConfigError(file.string() + ": experiment file not found");
  std::vector<fs::path> chain;
  Json doc;
  compose_file(file, doc, exp.origins, chain);
  for (const auto& o : overrides) {
    const auto eq = o.find('=');
    if (eq == std::string::npos || eq == 0)
      throw ConfigError("command line override '" + o + "': expected key.path=value");
    const std::string key = o.substr(0, eq);
    const std::string text = o.substr(eq + 1);
    const std::string what = "command line override '" + o + "'";
    const Json value = override_value(text, what);
    set_dotted(doc, key, value, what);
    record_origins(value, dotted_to_pointer(key), what, exp.origins);
  }
  exp.document = std::move(doc);
  return exp;
}

std::vector<fs::path> experiment_plugin_paths(const ComposedExperiment& experiment) {
  std::vector<fs::path> out;
  const Json& doc = experiment.document;
  if (!doc.contains("plugin_paths")) return out;
  const Json& paths = doc["plugin_paths"];
  const std::string origin = experiment.origin_of("/plugin_paths");
  if (!paths.is_array()) throw ConfigError(origin + ": at /plugin_paths: expected an array of paths, found " + paths.dump());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (!paths[i].is_string())
      throw ConfigError(origin + ": at /plugin_paths/" + std::to_string(i) + ": expected a path, found " + paths[i].dump());
    fs::path p = paths[i].get<std::string>();
    if (p.is_relative()) p = fs::path(experiment.origin_of("/plugin_paths/" + std::to_string(i))).parent_path() / p;
    out.push_back(p);
  }
  return out;
}

void load_experiment_plugins(Registry& registry, const ComposedExperiment& experiment) {
  const auto paths = experiment_plugin_paths(experiment);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string pointer = "/plugin_paths/" + std::to_string(i);
    registry.load_path(paths[i], experiment.origin_of(pointer) + ": at " + pointer);
  }
}

namespace {

const std::set<std::string> kTopLevelKeys = {"name", "description", "seed", "repetitions", "plugin_paths", "data",
                                             "estimators", "metrics", "sweep", "record_every", "success", "limits",
                                             "stop"};

struct SweepAxis {
  std::vector<std::string> paths;  // one path, or several moving together
  std::vector<std::vector<Json>> values;  // values[path][position]
  std::size_t size() const { return values.empty() ? 0 : values[0].size(); }
};

std::vector<SweepAxis> read_sweep(const ComposedExperiment& exp, const ValidationContext& ctx) {
  std::vector<SweepAxis> axes;
  const Json& doc = exp.document;
  if (!doc.contains("sweep")) return axes;
  const Json& sweep = doc["sweep"];
  if (!sweep.is_object()) ctx.fail("/sweep", "an object with \"grid\" and/or \"zip\"", sweep);
  for (auto it = sweep.begin(); it != sweep.end(); ++it)
    if (it.key() != "grid" && it.key() != "zip")
      ctx.fail_message("/sweep/" + it.key(), "unknown key '" + it.key() + "'; expected \"grid\" or \"zip\"");
  auto check_values = [&](const Json& v, const std::string& pointer) {
    if (!v.is_array() || v.empty()) ctx.fail(pointer, "a non-empty array of values", v);
  };
  // Only the data, the estimators and the metrics differ between cells; the seed, the repetitions
  // and the rest apply to the whole study, so an axis on them would change nothing.
  auto check_path = [&](const std::string& path, const std::string& pointer) {
    const std::string head = path.substr(0, path.find('.'));
    if (head != "data" && head != "estimators" && head != "metrics")
      ctx.fail_message(pointer, "sweep axis '" + path + "' changes nothing between cells (\"" + head +
                                    "\" applies to the whole study); sweep data.*, estimators.N.* or metrics.N.*");
  };
  if (sweep.contains("grid")) {
    const Json& grid = sweep["grid"];
    if (!grid.is_object()) ctx.fail("/sweep/grid", "an object mapping key paths to arrays of values", grid);
    for (auto it = grid.begin(); it != grid.end(); ++it) {
      check_values(it.value(), "/sweep/grid/" + it.key());
      check_path(it.key(), "/sweep/grid/" + it.key());
      axes.push_back(SweepAxis{{it.key()}, {it.value().get<std::vector<Json>>()}});
    }
  }
  if (sweep.contains("zip")) {
    const Json& zip = sweep["zip"];
    if (!zip.is_array()) ctx.fail("/sweep/zip", "an array of groups (objects of equally long arrays)", zip);
    for (std::size_t g = 0; g < zip.size(); ++g) {
      const std::string gp = "/sweep/zip/" + std::to_string(g);
      if (!zip[g].is_object() || zip[g].empty()) ctx.fail(gp, "an object mapping key paths to arrays of values", zip[g]);
      SweepAxis axis;
      for (auto it = zip[g].begin(); it != zip[g].end(); ++it) {
        check_values(it.value(), gp + "/" + it.key());
        check_path(it.key(), gp + "/" + it.key());
        if (!axis.values.empty() && it.value().size() != axis.size())
          ctx.fail(gp + "/" + it.key(), "an array of " + std::to_string(axis.size()) + " values (zipped axes move together)", it.value());
        axis.paths.push_back(it.key());
        axis.values.push_back(it.value().get<std::vector<Json>>());
      }
      axes.push_back(std::move(axis));
    }
  }
  return axes;
}

std::string content_key(const Json& content) {
  const std::string text = content.dump();
  char buf[40];
  std::snprintf(buf, sizeof buf, "%016llx%016llx", static_cast<unsigned long long>(derive_seed(0x243F6A8885A308D3ull, text)),
                static_cast<unsigned long long>(derive_seed(0x13198A2E03707344ull, text)));
  return buf;
}

}  // namespace

namespace {

/// The number of cells, after checking that the study's trials can be planned within the memory
/// budget (counted without overflow: a sweep of a thousand axes must not wrap around).
std::size_t check_study_size(const std::vector<SweepAxis>& axes, std::int64_t repetitions, const Json& doc,
                             const StudyBudget& budget, const ValidationContext& ctx) {
  const std::size_t estimators = doc["estimators"].size();
  long double cells = 1, trials = 0;
  for (const auto& a : axes) cells *= static_cast<long double>(a.size());
  trials = cells * static_cast<long double>(repetitions) * static_cast<long double>(estimators);
  // A planned trial holds copies of its source, estimator and metrics and its code identity: a few
  // kilobytes, and about six bytes of parsed JSON per byte of their text.
  std::size_t largest_estimator = 0;
  for (const auto& e : doc["estimators"]) largest_estimator = std::max(largest_estimator, e.dump().size());
  const long double bytes_per_trial =
      8192 + 6.0L * static_cast<long double>(doc["data"].dump().size() + doc["metrics"].dump().size() + largest_estimator);
  const long double needed = trials * bytes_per_trial;
  if (needed > static_cast<long double>(budget.memory_bytes)) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the study has %.4Lg trials (%.4Lg cells × %lld repetitions × %zu estimators); planning them needs "
                  "about %.3Lg GiB, more than the memory budget of %.3g GiB (%s)",
                  trials, cells, static_cast<long long>(repetitions), estimators, needed / (1ull << 30),
                  static_cast<double>(budget.memory_bytes) / (1ull << 30), budget.source.c_str());
    ctx.fail_message(axes.empty() ? "/repetitions" : "/sweep", text);
  }
  return static_cast<std::size_t>(cells);
}

}  // namespace

TrialSeeds trial_seeds(std::uint64_t experiment_seed, const Json& data_coordinates, int repetition, const std::string& label) {
  TrialSeeds s;
  s.data = derive_seed(experiment_seed, "data|" + data_coordinates.dump() + "|rep=" + std::to_string(repetition));
  s.estimator = derive_seed(s.data, "estimator|" + label);
  return s;
}

StudyBudget StudyBudget::machine() {
  StudyBudget b;
  b.memory_bytes = static_cast<std::uint64_t>(::sysconf(_SC_PHYS_PAGES)) * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  b.source = "the machine's physical memory";
  b.machine_memory = MemoryBudget{static_cast<double>(b.memory_bytes), b.source};
  return b;
}

Plan plan_experiment(const ComposedExperiment& exp, const Registry& registry, const StudyBudget& budget) {
  const Json& doc = exp.document;
  ValidationContext ctx(registry, [&exp](const std::string& p) { return exp.origin_of(p); });
  if (!doc.is_object()) ctx.fail("/", "an experiment object", doc);
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    if (!kTopLevelKeys.count(it.key())) {
      std::string known;
      for (const auto& k : kTopLevelKeys) known += (known.empty() ? "" : ", ") + k;
      ctx.fail_message("/" + it.key(), "unknown key '" + it.key() + "'; expected one of: " + known);
    }
  }
  auto get_int = [&](const char* key, std::int64_t def, std::int64_t min, std::int64_t max) {
    if (!doc.contains(key)) return def;
    const Json& v = doc[key];
    const bool beyond_int64 = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
    if (!v.is_number_integer() || beyond_int64 || v.get<std::int64_t>() < min || v.get<std::int64_t>() > max)
      ctx.fail(std::string("/") + key, "an integer from " + std::to_string(min) + " to " + std::to_string(max), v);
    return v.get<std::int64_t>();
  };
  constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
  const std::uint64_t seed = static_cast<std::uint64_t>(get_int("seed", 1, 0, INT64_MAX));
  const int repetitions = static_cast<int>(get_int("repetitions", 1, 1, kIntMax));
  const int record_every = static_cast<int>(get_int("record_every", 1, 1, kIntMax));
  for (const char* key : {"name", "description"})
    if (doc.contains(key) && !doc[key].is_string()) ctx.fail(std::string("/") + key, "a string", doc[key]);
  if (!doc.contains("data")) ctx.fail_message("/data", "missing required key 'data' (a source, e.g. {\"name\": \"synthetic\", ...})");
  if (!doc.contains("estimators")) ctx.fail_message("/estimators", "missing required key 'estimators' (an array of estimators)");
  if (!doc["estimators"].is_array() || doc["estimators"].empty())
    ctx.fail("/estimators", "a non-empty array of estimators", doc["estimators"]);
  if (!doc.contains("metrics")) ctx.fail_message("/metrics", "missing required key 'metrics' (an array of metrics)");
  if (!doc["metrics"].is_array() || doc["metrics"].empty()) ctx.fail("/metrics", "a non-empty array of metrics", doc["metrics"]);
  if (doc.contains("success")) {
    const Json& s = doc["success"];
    if (!s.is_object() || !s.contains("metric") || !s["metric"].is_string() || !s.contains("below") || !s["below"].is_number())
      ctx.fail("/success", "an object {\"metric\": name, \"below\": number}", s);
  }

  const Json stop = doc.contains("stop") ? StoppingRules::validate(doc["stop"], ctx) : Json();

  const auto axes = read_sweep(exp, ctx);
  Plan plan;
  if (doc.contains("limits")) {
    const Json& l = doc["limits"];
    if (!l.is_object())
      ctx.fail("/limits", "an object {\"trial_seconds\": s, \"trial_memory_mb\": m, \"trial_stall_seconds\": s}", l);
    for (auto it = l.begin(); it != l.end(); ++it) {
      if (it.key() == "trial_seconds") {
        if (!it->is_number() || !(it->get<double>() >= TrialLimits::kMinSeconds))
          ctx.fail("/limits/trial_seconds", "a number of seconds ≥ 0.001 (the smallest limit a trial can be held to)", *it);
        plan.limits.seconds = it->get<double>();
      } else if (it.key() == "trial_memory_mb") {
        if (!it->is_number_integer() || it->get<std::int64_t>() < 1) ctx.fail("/limits/trial_memory_mb", "an integer ≥ 1 (MiB)", *it);
        plan.limits.memory_mb = it->get<std::int64_t>();
      } else if (it.key() == "trial_stall_seconds") {
        if (!it->is_null() && (!it->is_number() || !(it->get<double>() >= TrialLimits::kMinStallSeconds)))
          ctx.fail("/limits/trial_stall_seconds", "a number of seconds ≥ 1, or null (no stall limit)", *it);
        plan.limits.stall_seconds = it->is_null() ? std::nullopt : std::optional<double>(it->get<double>());
      } else {
        ctx.fail_message("/limits/" + it.key(), "unknown key '" + it.key() +
                                                    "'; expected \"trial_seconds\", \"trial_memory_mb\" or \"trial_stall_seconds\"");
      }
    }
  }
  for (const auto& a : axes)
    for (const auto& p : a.paths) plan.axes.push_back(p);


  // Enumerate cells: the last axis moves fastest.
  std::vector<std::size_t> position(axes.size(), 0);
  const std::size_t cell_count = check_study_size(axes, repetitions, doc, budget, ctx);
  MemoryBudget trial_budget = budget.machine_memory;
  auto tighten = [&trial_budget](const std::optional<MemoryBudget>& b) {
    if (b && b->bytes > 0 && b->bytes < trial_budget.bytes) trial_budget = *b;
  };
  tighten(budget.max_memory);
  if (budget.trial_limit) tighten(budget.trial_limit);
  else if (plan.limits.memory_mb)
    tighten(MemoryBudget{static_cast<double>(*plan.limits.memory_mb) * 1024 * 1024,
                         exp.origin_of("/limits/trial_memory_mb") + " at /limits/trial_memory_mb"});
  else if (budget.default_limit)
    tighten(budget.default_limit(cell_count * static_cast<std::size_t>(repetitions) * doc["estimators"].size()));

  for (std::size_t cell = 0; cell < cell_count; ++cell) {
    std::size_t rest = cell;
    for (std::size_t a = axes.size(); a-- > 0;) {
      position[a] = rest % axes[a].size();
      rest /= axes[a].size();
    }
    Json cell_doc = doc;
    Json coords = Json::object();
    for (std::size_t a = 0; a < axes.size(); ++a) {
      for (std::size_t p = 0; p < axes[a].paths.size(); ++p) {
        const Json& value = axes[a].values[p][position[a]];
        set_dotted(cell_doc, axes[a].paths[p], value, exp.origin_of("/sweep") + ": sweep axis '" + axes[a].paths[p] + "'");
        coords[axes[a].paths[p]] = value;
      }
    }
    // Validate the cell: its values come from the files, the overrides, or the sweep.
    auto origin = [&exp, &axes](const std::string& pointer) {
      for (const auto& a : axes)
        for (const auto& p : a.paths)
          if (pointer.rfind(dotted_to_pointer(p), 0) == 0) return exp.origin_of("/sweep") + " (sweep axis '" + p + "')";
      return exp.origin_of(pointer);
    };
    ValidationContext cell_ctx(registry, origin);
    const Json data = validate_plugin_ref(cell_doc["data"], Kind::data_source, cell_ctx, "/data");
    Json estimators = Json::array();
    std::set<std::string> labels;
    for (std::size_t e = 0; e < cell_doc["estimators"].size(); ++e) {
      const std::string path = "/estimators/" + std::to_string(e);
      Json est = validate_plugin_ref(cell_doc["estimators"][e], Kind::estimator, cell_ctx, path);
      const std::string label = est.value("label", est["name"].get<std::string>());
      if (!labels.insert(label).second)
        cell_ctx.fail_message(path, "two estimators are labelled '" + label + "'; give each a distinct \"label\"");
      est["label"] = label;
      estimators.push_back(std::move(est));
    }
    Json metrics = Json::array();
    for (std::size_t m = 0; m < cell_doc["metrics"].size(); ++m)
      metrics.push_back(validate_plugin_ref(cell_doc["metrics"][m], Kind::metric, cell_ctx, "/metrics/" + std::to_string(m)));

    if (cell == 0) {
      plan.resolved = doc;
      plan.resolved["data"] = data;
      plan.resolved["estimators"] = estimators;
      plan.resolved["metrics"] = metrics;
      if (!axes.empty()) {  // show the base document's values, unless only the sweep completes it
        try {
          ValidationContext base_ctx(registry, [&exp](const std::string& p) { return exp.origin_of(p); });
          plan.resolved["data"] = validate_plugin_ref(doc["data"], Kind::data_source, base_ctx, "/data");
          for (std::size_t e = 0; e < doc["estimators"].size(); ++e) {
            Json est = validate_plugin_ref(doc["estimators"][e], Kind::estimator, base_ctx, "/estimators/" + std::to_string(e));
            est["label"] = est.value("label", est["name"].get<std::string>());
            plan.resolved["estimators"][e] = est;
          }
        } catch (const ConfigError&) {
        }
      }
      plan.resolved["seed"] = seed;
      plan.resolved["repetitions"] = repetitions;
      plan.resolved["record_every"] = record_every;
      if (!stop.is_null()) plan.resolved["stop"] = stop;
    }
    plan.cells.push_back(coords);

    // The data stream depends only on the data coordinates, so estimator sweeps stay paired.
    Json data_coords = Json::object();
    for (auto it = coords.begin(); it != coords.end(); ++it)
      if (it.key().rfind("data", 0) == 0) data_coords[it.key()] = it.value();

    for (int rep = 0; rep < repetitions; ++rep) {
      for (std::size_t e = 0; e < estimators.size(); ++e) {
        TrialSpec t;
        t.cell = cell;
        t.coordinates = coords;
        t.repetition = rep;
        t.estimator_index = e;
        t.label = estimators[e]["label"].get<std::string>();
        t.data = data;
        t.estimator = estimators[e];
        t.metrics = metrics;
        t.record_every = record_every;
        t.stop = stop;
        const TrialSeeds seeds = trial_seeds(seed, data_coords, rep, t.label);
        t.data_seed = seeds.data;
        t.estimator_seed = seeds.estimator;
        Json identity = {{"coordinates", coords},          {"repetition", rep},
                         {"data", t.data},                 {"estimator", t.estimator},
                         {"metrics", t.metrics},           {"record_every", record_every},
                         {"data_seed", t.data_seed},       {"estimator_seed", t.estimator_seed}};
        // Only a study with rules has them in its keys: the trials stored before `stop` existed stay done.
        if (!stop.is_null()) identity["stop"] = stop;
        t.key = content_key(identity);
        t.code = code_identity(t, registry);
        t.memory_budget = trial_budget;
        // Repetitions differ only in their seeds: one check per cell and estimator.
        if (rep == 0) {
          const Registration& fits = registry.get(t.estimator["name"].get<std::string>(), Kind::estimator);
          if (fits.needs_finite_data &&
              registry.footprint(t.data, Kind::data_source, FootprintContext{registry, {}}).data.endless)
            cell_ctx.fail_message("/estimators/" + std::to_string(e),
                                  (axes.empty() ? std::string() : "in sweep cell " + coords.dump() + ": ") + "estimator '" +
                                      fits.name + "' fits one fixed training set, and the data source is endless: give "
                                      "the source a size (synthetic: \"size\")");
          const TrialFootprint footprint = trial_footprint(t, registry);
          const std::string over = over_budget(footprint, trial_budget);
          if (!over.empty()) {
            const std::string& path = footprint.largest().path;
            cell_ctx.fail_message(path.empty() ? "/estimators/" + std::to_string(e) : path,
                                  (axes.empty() ? std::string() : "in sweep cell " + coords.dump() + ": ") + over);
          }
        }
        plan.trials.push_back(std::move(t));
      }
    }
  }
  return plan;
}

Json trial_spec_to_json(const TrialSpec& t) {
  return Json{{"cell", t.cell}, {"coordinates", t.coordinates}, {"repetition", t.repetition},
              {"estimator_index", t.estimator_index}, {"label", t.label}, {"data", t.data}, {"estimator", t.estimator},
              {"metrics", t.metrics}, {"record_every", t.record_every}, {"stop", t.stop}, {"data_seed", t.data_seed},
              {"estimator_seed", t.estimator_seed}, {"key", t.key}, {"code", t.code},
              {"memory_budget", {{"bytes", t.memory_budget.bytes}, {"source", t.memory_budget.source}}}};
}

TrialSpec trial_spec_from_json(const Json& j) {
  TrialSpec t;
  t.cell = j.at("cell").get<std::size_t>();
  t.coordinates = j.at("coordinates");
  t.repetition = j.at("repetition").get<int>();
  t.estimator_index = j.at("estimator_index").get<std::size_t>();
  t.label = j.at("label").get<std::string>();
  t.data = j.at("data");
  t.estimator = j.at("estimator");
  t.metrics = j.at("metrics");
  t.record_every = j.at("record_every").get<int>();
  t.stop = j.value("stop", Json());
  t.data_seed = j.at("data_seed").get<std::uint64_t>();
  t.estimator_seed = j.at("estimator_seed").get<std::uint64_t>();
  t.key = j.at("key").get<std::string>();
  t.code = j.at("code");
  t.memory_budget = MemoryBudget{j.at("memory_budget").at("bytes").get<double>(), j.at("memory_budget").at("source").get<std::string>()};
  return t;
}

}  // namespace rankone
