#include "fit.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "rankone/conformance/conformance.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

std::string source_for(const std::string& file, const std::string& op) {
  std::string name = lower(std::filesystem::path(file).filename().string());
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  if (op == "entry")
    return ends_with(name, ".png") || ends_with(name, ".jpg") || ends_with(name, ".jpeg") ? "image" : "ratings";
  if (ends_with(name, ".csv")) return "csv";
  if (ends_with(name, ".idx") || ends_with(name, "-ubyte")) return "idx";
  return "libsvm";
}

Json fit_experiment(const Registry& registry, const std::string& estimator, const std::string& train,
                    const std::optional<std::string>& test) {
  const Json op = model_operator(registry, estimator);
  const std::string op_name = op.at("name").get<std::string>();
  Json data = {{"name", source_for(train, op_name)}, {"file", std::filesystem::absolute(train).lexically_normal().string()}};
  if (test) data["test_file"] = std::filesystem::absolute(*test).lexically_normal().string();
  data["operator"] = op;

  const Json metrics = op_name == "single_label"
                           ? Json::array({"auc", "hamming_loss", Json{{"name", "precision_at_k"}, {"k", 1}}, "seconds"})
                           : Json::array({"test_rmse", "seconds"});
  std::string command = "rankone fit " + estimator + " " + train + (test ? " --test " + *test : "");
  return Json{{"name", "fit_" + estimator},
              {"description", "One " + estimator + " fit composed by `" + command + "`."},
              {"repetitions", 1},
              {"data", data},
              {"estimators", Json::array({Json{{"name", estimator}}})},
              {"metrics", metrics}};
}

std::string fit_override(const std::string& key_value) {
  const auto eq = key_value.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("rankone fit: unexpected argument '" + key_value + "' (settings look like key=value: rank=3, seed=7, "
                     "data.standardize=scale)");
  static const std::set<std::string> top = {"name", "description", "seed", "repetitions", "plugin_paths", "data",
                                            "estimators", "metrics", "record_every", "limits", "stop"};
  const std::string head = key_value.substr(0, std::min(key_value.find('.'), eq));
  return top.count(head) ? key_value : "estimators.0." + key_value;
}

}  // namespace rankone::cli
