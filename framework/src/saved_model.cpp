#include "rankone/store/saved_model.hpp"

#include <cmath>
#include <cstring>
#include <fstream>
#include <regex>
#include <stdexcept>

#include "rankone/core/atomic_file.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/store/npy.hpp"

namespace rankone {

namespace {

const char* kRoleModel = "model";
const char* kRolePreparation = "preparation";

Json describe(const NamedArray& a, const char* role) {
  return Json{{"dtype", a.integral ? "int64" : "float64"}, {"shape", a.shape}, {"role", role}};
}

std::string operator_name(const Json& data) {
  const auto op = data.find("operator");
  if (op == data.end()) return "";
  if (op->is_string()) return op->get<std::string>();
  return op->is_object() ? op->value("name", "") : "";
}

/// What a score is, in the model's own terms (model.json says it to whoever reads the folder).
std::string prediction_formula(const std::string& op, const LowRankModel& m) {
  std::string M = m.symmetrize ? "M = (left right' + right left')/2" : "M = left right'";
  if (m.zero_diagonal) M += " with its diagonal set to 0";
  const std::string w = m.has_first_order() ? " + a'w" : "";
  if (op == "entry") return "score of entry (i, j) = bias + M[i, j], " + M;
  if (op == "single_label")
    return "scores of instance a = bias + √cols · a'M (one per label: the operator's label gain √d2)" + w + ", " + M;
  if (op == "symmetric_rank_one") return "score of instance a = bias + a'M a" + w + ", " + M;
  return "score = bias + a'M b" + w + " (operator " + op + "), " + M;
}

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw InputError(where + ": " + what); }

}  // namespace

SavedModel SavedModel::of(const Estimate& e, const DataSource& source, const Json& data_config,
                          const std::string& estimator, const std::string& trial_key) {
  SavedModel s;
  const std::string op = operator_name(data_config);
  s.header = Json{{"format", kFormat},
                  {"version", kVersion},
                  {"trial", trial_key},
                  {"estimator", estimator},
                  {"data", data_config},
                  {"operator", op},
                  {"link", to_string(source.link())},
                  {"model", Json{{"rows", e.rows()},
                                 {"cols", e.cols()},
                                 {"rank", e.rank()},
                                 {"symmetrize", e.symmetrize},
                                 {"zero_diagonal", e.zero_diagonal},
                                 {"first_order", e.has_first_order()},
                                 {"bias", e.bias}}},
                  {"prediction", prediction_formula(op, e)}};
  Json arrays = Json::object();
  s.arrays["left"] = NamedArray::of(e.left);
  s.arrays["right"] = NamedArray::of(e.right);
  if (e.has_first_order()) s.arrays["w"] = NamedArray::of(e.w);
  for (const auto& [name, a] : s.arrays) arrays[name] = describe(a, kRoleModel);
  DataPreparation prep = source.preparation();
  for (auto& [name, a] : prep.arrays) {
    if (s.arrays.count(name)) throw std::logic_error("preparation array '" + name + "' has the name of a model array");
    arrays[name] = describe(a, kRolePreparation);
    s.arrays[name] = std::move(a);
  }
  s.header["preparation"] = std::move(prep.header);
  s.header["arrays"] = std::move(arrays);
  return s;
}

Estimate SavedModel::estimate() const {
  const Json& m = header.at("model");
  Estimate e;
  e.left = arrays.at("left").matrix();
  e.right = arrays.at("right").matrix();
  if (arrays.count("w")) e.w = arrays.at("w").vector();
  e.symmetrize = m.at("symmetrize").get<bool>();
  e.zero_diagonal = m.at("zero_diagonal").get<bool>();
  e.bias = m.at("bias").get<double>();
  return e;
}

DataPreparation SavedModel::preparation() const {
  DataPreparation p;
  p.header = header.value("preparation", Json::object());
  for (const auto& [name, info] : header.at("arrays").items())
    if (info.value("role", "") == kRolePreparation) p.arrays[name] = arrays.at(name);
  return p;
}

Json SavedModel::to_json() const {
  Json values = Json::object();
  for (const auto& [name, a] : arrays) values[name] = a.integral ? Json(a.integers) : Json(a.reals);
  return Json{{"header", header}, {"values", std::move(values)}};
}

SavedModel SavedModel::from_json(const Json& j) {
  SavedModel s;
  s.header = j.at("header");
  for (const auto& [name, info] : s.header.at("arrays").items()) {
    NamedArray a;
    a.shape = info.at("shape").get<std::vector<std::int64_t>>();
    a.integral = info.at("dtype") == "int64";
    if (a.integral) a.integers = j.at("values").at(name).get<std::vector<std::int64_t>>();
    else a.reals = j.at("values").at(name).get<std::vector<double>>();
    s.arrays[name] = std::move(a);
  }
  return s;
}

std::string SavedModel::pack() const {
  std::string blob;
  for (const auto& [name, a] : arrays) {
    const char* data = a.integral ? reinterpret_cast<const char*>(a.integers.data()) : reinterpret_cast<const char*>(a.reals.data());
    blob.append(data, static_cast<std::size_t>(a.elements()) * 8);
  }
  return blob;
}

SavedModel SavedModel::unpack(const Json& header, const std::string& blob) {
  SavedModel s;
  s.header = header;
  std::size_t at = 0;
  for (const auto& [name, info] : header.at("arrays").items()) {  // sorted by name, as pack wrote them
    NamedArray a;
    a.shape = info.at("shape").get<std::vector<std::int64_t>>();
    a.integral = info.at("dtype") == "int64";
    const auto bytes = static_cast<std::size_t>(a.elements()) * 8;
    if (at + bytes > blob.size())
      throw InputError("stored model of trial " + header.value("trial", std::string("?")) + ": its arrays are " +
                       std::to_string(blob.size()) + " bytes, shorter than its header says (damaged)");
    if (a.integral) {
      a.integers.resize(bytes / 8);
      std::memcpy(a.integers.data(), blob.data() + at, bytes);
    } else {
      a.reals.resize(bytes / 8);
      std::memcpy(a.reals.data(), blob.data() + at, bytes);
    }
    at += bytes;
    s.arrays[name] = std::move(a);
  }
  return s;
}

void SavedModel::write_folder(const std::filesystem::path& folder) const {
  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  if (ec) throw InputError("cannot create the model folder " + folder.string() + ": " + ec.message());
  Json out = header;
  for (const auto& [name, a] : arrays) {
    write_npy(folder / (name + ".npy"), a);
    out["arrays"][name]["file"] = name + ".npy";
  }
  AtomicFile file(folder / "model.json");
  file.stream() << out.dump(2) << '\n';
  file.commit();
}

SavedModel SavedModel::read_folder(const std::filesystem::path& folder) {
  try {
    return read_checked(folder);
  } catch (const Json::exception& e) {  // a field of the wrong type: the file is malformed
    throw InputError((folder / "model.json").string() + ": malformed: " + e.what());
  }
}

SavedModel SavedModel::read_checked(const std::filesystem::path& folder) {
  const std::filesystem::path path = folder / "model.json";
  std::ifstream in(path);
  if (!in) bad(path.string(), "cannot be opened (a model folder holds model.json; write one with rankone model)");
  Json header = Json::parse(in, nullptr, false);
  if (header.is_discarded() || !header.is_object()) bad(path.string(), "not JSON");
  if (header.value("format", "") != kFormat) bad(path.string(), "at /format: expected \"" + std::string(kFormat) + "\"");
  if (!header.contains("version") || !header["version"].is_number_integer() || header["version"] != kVersion)
    bad(path.string(), "at /version: model format version " + header.value("version", Json()).dump() +
                           ", but this rankone reads version " + std::to_string(kVersion));
  for (const char* key : {"data", "model", "arrays"})
    if (!header.contains(key) || !header[key].is_object()) bad(path.string(), std::string("at /") + key + ": expected an object");
  for (const char* key : {"left", "right"})
    if (!header["arrays"].contains(key)) bad(path.string(), std::string("at /arrays: expected an array named ") + key);
  SavedModel s;
  s.header = header;
  const std::regex plain_name("[A-Za-z0-9_]+");
  for (const auto& [name, info] : header["arrays"].items()) {
    if (!std::regex_match(name, plain_name)) bad(path.string(), "at /arrays: '" + name + "' is not a plain name (letters, digits, '_')");
    const std::filesystem::path file = folder / info.value("file", name + ".npy");
    NamedArray a = read_npy(file);
    const std::string dtype = a.integral ? "int64" : "float64";
    if (info.value("dtype", dtype) != dtype)
      bad(file.string(), "holds " + dtype + "; model.json says " + info.value("dtype", std::string()));
    if (info.contains("shape") && info["shape"] != Json(a.shape))
      bad(file.string(), "has shape " + Json(a.shape).dump() + "; model.json says " + info["shape"].dump());
    s.header["arrays"][name]["shape"] = a.shape;
    s.header["arrays"][name]["dtype"] = dtype;
    s.header["arrays"][name].erase("file");
    s.arrays[name] = std::move(a);
  }
  const Json& m = header["model"];
  const NamedArray &left = s.arrays["left"], &right = s.arrays["right"];
  if (left.integral || right.integral || left.shape.size() != 2 || right.shape.size() != 2 || left.shape[1] != right.shape[1])
    bad(path.string(), "left and right must be float64 matrices with the same number of columns (the rank)");
  if (s.arrays.count("w") && (s.arrays["w"].integral || s.arrays["w"].elements() != left.shape[0]))
    bad(path.string(), "w must be a float64 vector of " + std::to_string(left.shape[0]) + " elements (the rows of left)");
  for (const char* key : {"symmetrize", "zero_diagonal"})
    if (!m.contains(key) || !m[key].is_boolean()) bad(path.string(), std::string("at /model/") + key + ": expected true or false");
  if (!m.contains("bias") || !m["bias"].is_number()) bad(path.string(), "at /model/bias: expected a number");
  // The header's sizes against the arrays: a model is scored on exactly the shape it was trained on.
  const auto expect = [&](const char* key, std::int64_t actual, const std::string& what) {
    if (m.contains(key) && m[key] != Json(actual))
      bad(path.string(), std::string("at /model/") + key + ": " + m[key].dump() + ", but " + what + " has " +
                             std::to_string(actual));
  };
  const std::int64_t rows = left.shape[0], cols = right.shape[0];
  expect("rows", rows, "left.npy");
  expect("cols", cols, "right.npy");
  expect("rank", left.shape[1], "left.npy (columns)");
  if (m.value("symmetrize", false) && rows != cols)
    bad(path.string(), "a symmetrised model needs left and right of the same rows (" + std::to_string(rows) + ", " +
                           std::to_string(cols) + ")");
  if (m.value("first_order", false) && !s.arrays.count("w"))
    bad(path.string(), "at /model/first_order: true, but there is no array w");
  for (const auto& [name, a] : s.arrays)
    for (const double v : a.reals)
      if (!std::isfinite(v)) bad(path.string(), "array " + name + " holds a non-finite value");
  if (!std::isfinite(m["bias"].get<double>())) bad(path.string(), "at /model/bias: not finite");
  const Json& prep = header.value("preparation", Json::object());
  if (!prep.is_object()) bad(path.string(), "at /preparation: expected an object");
  const auto prepared = [&](const char* key, std::int64_t actual, const std::string& what) {
    if (prep.contains(key) && prep[key] != Json(actual))
      bad(path.string(), std::string("at /preparation/") + key + ": " + prep[key].dump() + ", but the model's " + what +
                             " is " + std::to_string(actual));
  };
  prepared("dimension", rows, "feature dimension (rows of left)");
  prepared("rows", rows, "row count (rows of left)");
  prepared("cols", cols, "column count (rows of right)");
  prepared("classes", cols, "label count (rows of right)");
  return s;
}

}  // namespace rankone
