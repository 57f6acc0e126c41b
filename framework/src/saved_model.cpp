#include "rankone/store/saved_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "rankone/core/atomic_file.hpp"
#include "rankone/core/checksum.hpp"
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

/// model.json's own checksum is its top-level "checksum" line, taken over the file's bytes with
/// that checksum's digits read as zeros (so any reader can check it: blank them, hash, compare).
constexpr const char* kSealKey = "\n  \"checksum\": \"";  // two spaces: the top level of dump(2)
const std::string kUnsealed = std::string("xxh3-128:") + std::string(32, '0');

/// Where the digits of model.json's own checksum are in `text`, or npos.
std::size_t seal_digits(const std::string& text) {
  const std::size_t key = text.find(kSealKey);
  if (key == std::string::npos) return key;
  const std::size_t at = key + std::char_traits<char>::length(kSealKey);
  return text.compare(at, 9, "xxh3-128:") == 0 && at + kChecksumLength < text.size() && text[at + kChecksumLength] == '"'
             ? at + 9
             : std::string::npos;
}

/// A plain array name (letters, digits, '_'): it names a file in the folder.
bool plain_name(const std::string& name) {
  return !name.empty() && name.size() <= 200 &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

/// model.json holds the header and the sources' configurations, never array data.
constexpr std::uintmax_t kMaxHeaderBytes = std::uintmax_t{64} << 20;
constexpr int kMaxNesting = 256;

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

std::string SavedModel::sealed(std::string text) {
  std::size_t at = seal_digits(text);
  if (at == std::string::npos) throw std::logic_error("model.json text without its top-level checksum line");
  text.replace(at - 9, kChecksumLength, kUnsealed);
  text.replace(at - 9, kChecksumLength, checksum_of(text));
  return text;
}

void SavedModel::check_finite(const std::string& where) const {
  for (const auto& [name, a] : arrays)
    for (std::size_t i = 0; i < a.reals.size(); ++i)
      if (!std::isfinite(a.reals[i]))
        bad(where, "array " + name + " holds a non-finite value (" + std::to_string(a.reals[i]) + " at element " +
                       std::to_string(i) + "): a model is finite");
  const Json& m = header.value("model", Json::object());
  if (m.contains("bias") && m["bias"].is_number() && !std::isfinite(m["bias"].get<double>()))
    bad(where, "at /model/bias: not finite");
}

void SavedModel::write_folder(const std::filesystem::path& folder) const {
  check_finite("the model of trial " + header.value("trial", std::string("?")));
  AtomicFolder out(folder, "model.json");
  Json written = header;
  written["version"] = kVersion;  // a stored header may be older: the folder is written as this version
  for (const auto& [name, a] : arrays) {
    const std::string file = name + ".npy";
    write_npy(out.path() / file, a);
    written["arrays"][name]["file"] = file;
    written["arrays"][name]["checksum"] = checksum_of_file(out.path() / file);
  }
  written["checksum"] = kUnsealed;
  AtomicFile json(out.path() / "model.json");
  json.stream() << sealed(written.dump(2) + "\n");
  json.commit();
  out.commit();
}

SavedModel SavedModel::read_folder(const std::filesystem::path& folder) {
  try {
    return read_checked(folder);
  } catch (const Json::exception& e) {  // a field of the wrong type that no check below named
    std::string what = e.what();
    if (const auto end = what.find("] "); what.rfind("[json.exception", 0) == 0 && end != std::string::npos) what.erase(0, end + 2);
    throw InputError((folder / "model.json").string() + ": malformed: " + what);
  }
}

SavedModel SavedModel::read_checked(const std::filesystem::path& folder) {
  std::error_code ec;
  const auto folder_status = std::filesystem::status(folder, ec);
  if (!std::filesystem::exists(folder_status)) bad(folder.string(), "no such model folder (write one with rankone model)");
  if (!std::filesystem::is_directory(folder_status))
    bad(folder.string(), "not a folder: a model is a folder holding model.json and its arrays (written by rankone model)");
  const std::filesystem::path path = folder / "model.json";
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) bad(path.string(), "no such file: a model folder holds model.json (write one with rankone model)");
  if (!std::filesystem::is_regular_file(status)) bad(path.string(), "not a regular file");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxHeaderBytes)
    bad(path.string(), ec ? "cannot be read: " + ec.message()
                          : std::to_string(size) + " bytes; a model's header is at most " + std::to_string(kMaxHeaderBytes) +
                                " (its arrays are .npy files)");
  std::string text(size, '\0');
  std::ifstream in(path, std::ios::binary);
  if (!in || !in.read(text.data(), static_cast<std::streamsize>(size))) bad(path.string(), "cannot be read");
  // Bounded nesting: a copy or a dump of a deeper value would recurse as deep as it is.
  const auto bounded = [&](int depth, Json::parse_event_t, Json&) {
    if (depth > kMaxNesting) bad(path.string(), "nested deeper than " + std::to_string(kMaxNesting) + " levels (rankone model writes a handful)");
    return true;
  };
  Json header = Json::parse(text, bounded, false);
  if (header.is_discarded() || !header.is_object()) bad(path.string(), "not JSON (a JSON object, as rankone model writes it)");
  if (header.value("format", Json()) != kFormat) bad(path.string(), "at /format: expected \"" + std::string(kFormat) + "\"");
  if (!header.contains("version") || !header["version"].is_number_integer() || header["version"] != kVersion)
    bad(path.string(), "at /version: model format version " + header.value("version", Json()).dump() +
                           ", but this rankone reads version " + std::to_string(kVersion) +
                           (header.value("version", Json()) == 1 ? " (version 1 carried no checksums: export the model again with rankone model)" : ""));
  // The file is as rankone wrote it: its own checksum, then each array's.
  const Json recorded = header.value("checksum", Json());
  const std::size_t digits = seal_digits(text);
  if (!recorded.is_string() || digits == std::string::npos || text.compare(digits - 9, kChecksumLength, recorded.get<std::string>()) != 0)
    bad(path.string(), "at /checksum: expected the file's own checksum (\"xxh3-128:\" and 32 hex digits, on a line of its own)");
  if (sealed(text) != text)
    bad(path.string(), "checksum mismatch: the file is not as rankone model wrote it (damaged, or edited: a model is changed by "
                       "exporting it again)");
  for (const char* key : {"data", "model", "arrays"})
    if (!header.contains(key) || !header[key].is_object()) bad(path.string(), std::string("at /") + key + ": expected an object");
  for (const char* key : {"left", "right"})
    if (!header["arrays"].contains(key)) bad(path.string(), std::string("at /arrays: expected an array named ") + key);
  SavedModel s;
  s.header = header;
  s.header.erase("checksum");
  for (const auto& [name, info] : header["arrays"].items()) {
    const std::string at = "at /arrays/" + name.substr(0, 200);
    if (!plain_name(name)) bad(path.string(), at + ": '" + name.substr(0, 200) + "' is not a plain name (letters, digits, '_')");
    if (!info.is_object()) bad(path.string(), at + ": expected an object");
    for (const char* key : {"file", "dtype", "role", "checksum"})
      if (!info.contains(key) || !info[key].is_string()) bad(path.string(), at + "/" + key + ": expected a string");
    if (!info.contains("shape") || !info["shape"].is_array()) bad(path.string(), at + "/shape: expected an array of extents");
    const std::string file_name = info["file"];
    if (file_name != name + ".npy") bad(path.string(), at + "/file: expected \"" + name + ".npy\"");
    const std::filesystem::path file = folder / file_name;
    if (!std::filesystem::is_regular_file(file, ec))
      bad(file.string(), std::filesystem::exists(file, ec) ? "not a regular file" : "no such file (model.json lists it)");
    // Checked before it is parsed: a damaged file is named as damaged, whatever it now holds.
    if (checksum_of_file(file) != info["checksum"].get<std::string>())
      bad(file.string(), "checksum mismatch: its data is not what model.json records (" + info["checksum"].get<std::string>() +
                             "): the file is damaged, or was changed after rankone model wrote it");
    NamedArray a = read_npy(file);
    const std::string dtype = a.integral ? "int64" : "float64";
    if (info["dtype"] != dtype) bad(file.string(), "holds " + dtype + "; model.json says " + info["dtype"].get<std::string>());
    if (info["shape"] != Json(a.shape))
      bad(file.string(), "has shape " + Json(a.shape).dump() + "; model.json says " + info["shape"].dump());
    s.header["arrays"][name].erase("file");
    s.header["arrays"][name].erase("checksum");
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
  s.check_finite(path.string());
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
