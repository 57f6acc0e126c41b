// rankone._rankone: the Python package's bridge to the core. Plugins are found as the CLI finds them
// (the build's plugin folder, RANKONE_PLUGIN_PATH); a fit is the CLI's trial (runner/run_trial) on
// the caller's arrays, so its model and predictions are those `rankone fit` gives on the same records.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>

#include "array_source.hpp"
#include "row_stream.hpp"
#include "rankone/conformance/conformance.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/experiment/experiment.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/plugin/registry.hpp"
#include "rankone/runner/runner.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/saved_model.hpp"

namespace py = pybind11;

namespace rankone::python {
namespace {

/// Loaded once per process; never unloaded (plugins' code must outlive every object they made).
const Registry& registry() {
  static const Registry* r = [] {
    auto* loaded = new Registry;
    loaded->load_default();
    return loaded;
  }();
  return *r;
}

/// Records scored in one batch: the same blocks as `rankone predict`, so scores agree bit for bit.
constexpr std::int64_t kScoringBlock = std::int64_t{1} << 20;

/// A fitted (or loaded) model: the saved model and how its fit ended.
struct Fitted {
  SavedModel model;
  std::string status, message;
  int iterations = 0;
  std::string diagnostics = "{}";
  double core_seconds = 0.0;  ///< wall time of the trial in the core (what the Python layer adds is the rest)

  std::unique_ptr<SensingOperator> sensing_operator() const {
    return registry().create<SensingOperator>(model.data_config().at("operator"), Kind::sensing_operator, "/data/operator");
  }
};

using Doubles = py::array_t<double, py::array::c_style>;
using Int32s = py::array_t<std::int32_t, py::array::c_style>;

std::unique_ptr<SensingOperator> make_operator(const Json& op) {
  const Json resolved = validate_plugin_ref(op, Kind::sensing_operator, ValidationContext(registry(), nullptr), "/data/operator");
  return registry().create<SensingOperator>(resolved, Kind::sensing_operator, "/data/operator");
}

/// The data configuration a model fitted on arrays keeps: the file source that reads the same
/// records (libsvm feature rows, or zero-based rating triplets), so `rankone predict` scores files with it.
Json array_data(const Json& op, const Json& description) {
  Json data = description;
  data["file"] = "<arrays given to rankone.sklearn>";
  data["operator"] = op;
  return validate_plugin_ref(data, Kind::data_source, ValidationContext(registry(), nullptr), "/data");
}

Fitted run(const std::string& estimator_json, const Json& data, std::uint64_t seed, std::unique_ptr<DataSource> source) {
  TrialSpec spec;
  spec.estimator = validate_plugin_ref(Json::parse(estimator_json), Kind::estimator, ValidationContext(registry(), nullptr),
                                       "/estimators/0");
  spec.label = spec.estimator.at("name").get<std::string>();
  spec.estimator["label"] = spec.label;
  spec.data = data;
  spec.metrics = Json::array();
  const TrialSeeds seeds = trial_seeds(seed, Json::object(), 0, spec.label);  // as the one trial of `rankone fit` seed=…
  spec.data_seed = seeds.data;
  spec.estimator_seed = seeds.estimator;
  spec.key = "python";
  TrialRecord rec;
  double seconds = 0.0;
  {
    py::gil_scoped_release unlocked;
    const auto started = std::chrono::steady_clock::now();
    rec = run_trial(spec, registry(), std::move(source));
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  }
  if (!rec.model)
    throw std::runtime_error(spec.label + " ended " + rec.status + " without a finite model" +
                             (rec.message.empty() ? "" : ": " + rec.message));
  return Fitted{std::move(*rec.model), rec.status, rec.message, rec.iterations, rec.diagnostics.dump(), seconds};
}

FeatureArrays features(const Doubles& values, const py::object& indices, const py::object& indptr, std::int64_t n,
                       std::int64_t d) {
  FeatureArrays x;
  x.n = n;
  x.d = d;
  x.values = values.data();
  if (indices.is_none()) {
    if (values.ndim() != 2 || values.shape(0) != n || values.shape(1) != d)
      throw ConfigError("expected a C-contiguous float64 array of shape (n_samples, n_features)");
    return x;
  }
  const auto idx = py::cast<py::array>(indices), ptr = py::cast<py::array>(indptr);
  x.wide_indices = idx.dtype().itemsize() == 8;
  if (idx.dtype().kind() != 'i' || ptr.dtype().kind() != 'i' || idx.dtype().itemsize() != ptr.dtype().itemsize() ||
      (idx.dtype().itemsize() != 4 && idx.dtype().itemsize() != 8) || !(idx.flags() & py::array::c_style) ||
      !(ptr.flags() & py::array::c_style) || ptr.size() != n + 1 || idx.size() != values.size())
    throw ConfigError("expected CSR arrays: int32 or int64 indices and indptr (n_samples + 1 offsets), float64 data");
  x.indices = idx.data();
  x.indptr = ptr.data();
  return x;
}

Fitted fit_features(const std::string& estimator_json, std::uint64_t seed, const Doubles& values, const py::object& indices,
                    const py::object& indptr, std::int64_t n, std::int64_t d, const Doubles& y) {
  if (y.size() != n) throw ConfigError("expected y of n_samples values");
  const std::string name = Json::parse(estimator_json).at("name").get<std::string>();
  const Json op = model_operator(registry(), name);
  const FeatureArrays x = features(values, indices, indptr, n, d);
  const Json data = array_data(op, {{"name", "libsvm"}, {"design", x.dense() ? "dense" : "sparse"}, {"test_fraction", 0.0}});
  auto source = std::make_unique<ArraySource>(x, y.data(), make_operator(op));
  return run(estimator_json, data, seed, std::move(source));
}

Fitted fit_entries(const std::string& estimator_json, std::uint64_t seed, const Int32s& rows, const Int32s& cols,
                   std::int64_t d1, std::int64_t d2, const Doubles& y) {
  const std::int64_t n = y.size();
  if (rows.size() != n || cols.size() != n) throw ConfigError("expected as many rows and columns as values");
  const std::string name = Json::parse(estimator_json).at("name").get<std::string>();
  const Json op = model_operator(registry(), name);
  const Json data = array_data(op, {{"name", "ratings"}, {"ids", "zero_based"}, {"users", d1}, {"items", d2}, {"test_fraction", 0.0}});
  EntryArrays e{n, d1, d2, rows.data(), cols.data()};
  auto source = std::make_unique<ArraySource>(e, y.data(), make_operator(op));
  return run(estimator_json, data, seed, std::move(source));
}

Fitted fit_labels(const std::string& estimator_json, std::uint64_t seed, const Doubles& values, const py::object& indices,
                  const py::object& indptr, std::int64_t n, std::int64_t d, const Doubles& labels) {
  if (labels.ndim() != 2 || labels.shape(0) != n) throw ConfigError("expected labels of shape (n_samples, n_labels)");
  const Index classes = labels.shape(1);
  const std::string name = Json::parse(estimator_json).at("name").get<std::string>();
  const Json op = model_operator(registry(), name);
  const FeatureArrays x = features(values, indices, indptr, n, d);
  const Json data = array_data(op, {{"name", "libsvm"}, {"design", x.dense() ? "dense" : "sparse"}, {"test_fraction", 0.0},
                                    {"classes", classes}, {"label_view", "full"}});
  auto source = std::make_unique<ArraySource>(x, labels.data(), classes,
                                              make_operator(op));
  return run(estimator_json, data, seed, std::move(source));
}

/// Scores of records [0, n) in blocks of kScoringBlock, as `rankone predict` scores a file: n
/// values, or n × labels (row-major) when each record has a score per label (label-major in a batch).
template <class MakeBatch>
py::array_t<double> scores(const Fitted& f, std::int64_t n, Index labels, Index rows, Index cols, const MakeBatch& make_batch) {
  py::array_t<double> out = labels > 0 ? py::array_t<double>({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(labels)})
                                        : py::array_t<double>(n);
  double* o = out.mutable_data();
  {
    py::gil_scoped_release unlocked;
    const auto op = f.sensing_operator();
    const Estimate estimate = f.model.estimate();
    if (estimate.left.rows() < rows || (!estimate.symmetrize && estimate.right.rows() < cols))
      throw ConfigError("the data has " + std::to_string(rows) + " features; the model was fitted on " +
                        std::to_string(estimate.left.rows()));
    const std::int64_t block = std::clamp<std::int64_t>(n, 1, kScoringBlock);
    for (std::int64_t first = 0; first < n; first += block) {
      const std::int64_t count = std::min(block, n - first);
      const Vector s = op->forward(make_batch(first, count, *op), estimate);
      if (labels == 0) std::copy(s.data(), s.data() + count, o + first);
      for (Index j = 0; j < labels; ++j)
        for (std::int64_t i = 0; i < count; ++i) o[(first + i) * labels + j] = s(i + count * j);
    }
  }
  return out;
}

py::array_t<double> predict_features(const Fitted& f, const Doubles& values, const py::object& indices, const py::object& indptr,
                                     std::int64_t n, std::int64_t d) {
  const FeatureArrays x = features(values, indices, indptr, n, d);
  const Json& data = f.model.data_config();
  const Index classes = data.value("classes", Json()).is_number_integer() ? data["classes"].get<Index>() : 0;
  return scores(f, n, classes, d, classes > 0 ? classes : d, [&](std::int64_t first, std::int64_t count, const SensingOperator& op) {
    Batch b;
    b.left = feature_rows(x, first, count);
    if (classes > 0) b.right = DesignSide::make_all(classes);  // every label's score, label-major
    else if (!op.symmetric()) b.right = b.left;
    b.y = Vector::Zero(count * std::max<Index>(classes, 1));  // no responses: only the measurement count
    return b;
  });
}

py::array_t<double> predict_entries(const Fitted& f, const Int32s& rows, const Int32s& cols) {
  const std::int64_t n = rows.size();
  if (cols.size() != n) throw ConfigError("expected as many rows as columns");
  const Estimate shape = f.model.estimate();
  for (std::int64_t i = 0; i < n; ++i)
    if (rows.data()[i] < 0 || rows.data()[i] >= shape.left.rows() || cols.data()[i] < 0 || cols.data()[i] >= shape.right.rows())
      throw ConfigError("entry " + std::to_string(i) + " (" + std::to_string(rows.data()[i]) + ", " + std::to_string(cols.data()[i]) +
                        ") is outside the fitted " + std::to_string(shape.left.rows()) + " × " + std::to_string(shape.right.rows()) +
                        " matrix");
  return scores(f, n, 0, 0, 0, [&](std::int64_t first, std::int64_t count, const SensingOperator&) {
    Batch b;
    b.left = DesignSide::make_index(shape.left.rows(), Eigen::Map<const IndexVector>(rows.data() + first, count));
    b.right = DesignSide::make_index(shape.right.rows(), Eigen::Map<const IndexVector>(cols.data() + first, count));
    b.y = Vector::Zero(count);
    return b;
  });
}

/// partial_fit's stream: the estimator `estimator_json` on rows of `d` features, seeded as a fit is.
std::unique_ptr<RowStream> open_stream(const std::string& estimator_json, std::uint64_t seed, std::int64_t d, bool sparse) {
  const Json reference = validate_plugin_ref(Json::parse(estimator_json), Kind::estimator, ValidationContext(registry(), nullptr),
                                             "/estimators/0");
  const std::string name = reference.at("name").get<std::string>();
  const Json op = model_operator(registry(), name);
  const Json data = array_data(op, {{"name", "libsvm"}, {"design", sparse ? "sparse" : "dense"}, {"test_fraction", 0.0}});
  const TrialSeeds seeds = trial_seeds(seed, Json::object(), 0, name);
  return std::make_unique<RowStream>(registry().create<Estimator>(reference, Kind::estimator, "/estimators/0"),
                                     make_operator(op), d, seeds.estimator, data, name);
}

py::tuple give_rows(RowStream& stream, const Doubles& values, const py::object& indices, const py::object& indptr,
                    std::int64_t n, std::int64_t d, const Doubles& y) {
  if (y.size() != n) throw ConfigError("expected y of n_samples values");
  const FeatureArrays x = features(values, indices, indptr, n, d);
  RowStream::State state;
  {
    py::gil_scoped_release unlocked;
    state = stream.give(x, y.data());
  }
  py::object model = py::none();
  if (state.model) model = py::cast(Fitted{std::move(*state.model), state.status, state.message, state.iterations, "{}", 0.0});
  return py::make_tuple(model, state.status, state.message, state.iterations, state.rows_waited_for);
}

std::string plugins_json() {
  Json out = Json::array();
  for (const Registration* r : registry().all()) {
    Json j = {{"kind", to_string(r->kind)}, {"name", r->name},         {"version", r->version},
              {"summary", r->summary},      {"citation", r->citation}, {"doc_page", r->doc_page},
              {"library", r->library},      {"parameters", r->schema.to_json()}};
    if (r->kind == Kind::estimator) {
      j["operator"] = model_operator(registry(), r->name);
      j["one_pass"] = r->one_pass;
    }
    out.push_back(std::move(j));
  }
  return out.dump();
}

std::string validate(const std::string& kind, const std::string& ref) {
  return validate_plugin_ref(Json::parse(ref), kind_from_string(kind), ValidationContext(registry(), nullptr), "").dump();
}

py::dict arrays_of(const Fitted& f) {
  py::dict out;
  for (const auto& [name, a] : f.model.arrays) {
    const std::vector<py::ssize_t> shape(a.shape.begin(), a.shape.end());
    if (a.integral) {
      py::array_t<std::int64_t> copy(shape);
      std::copy(a.integers.begin(), a.integers.end(), copy.mutable_data());
      out[py::str(name)] = copy;
    } else {
      py::array_t<double> copy(shape);
      std::copy(a.reals.begin(), a.reals.end(), copy.mutable_data());
      out[py::str(name)] = copy;
    }
  }
  return out;
}

/// A results folder as `rankone.load` reads it, through the store's reader (never its SQL):
/// trials (JSON, without points and models), runs (provenance), damage, and the points as columns.
py::dict read_store(const std::string& folder) {
  std::vector<TrialRecord> trials;
  std::vector<RunRecord> runs;
  std::vector<std::string> damage;
  {
    py::gil_scoped_release unlocked;
    const ResultsStore store(folder, ResultsStore::Access::read_only);
    trials = store.trials(/*with_points=*/true);
    runs = store.runs();
    damage = store.damage();
  }
  Json trial_rows = Json::array(), run_rows = Json::array();
  std::size_t points = 0;
  for (const auto& t : trials) points += t.points.size();
  py::array_t<std::int64_t> iteration(points), samples(points);
  py::array_t<double> seconds(points), value(points);
  py::list trial_of, metric;
  std::size_t i = 0;
  for (auto& t : trials) {
    for (const auto& p : t.points) {
      iteration.mutable_data()[i] = p.iteration;
      samples.mutable_data()[i] = p.samples;
      seconds.mutable_data()[i] = p.seconds;
      value.mutable_data()[i] = p.value;
      trial_of.append(t.key);
      metric.append(p.metric);
      ++i;
    }
    t.points.clear();
    t.model.reset();
    trial_rows.push_back(trial_to_json(t));
  }
  for (const auto& r : runs)
    run_rows.push_back({{"run", r.id}, {"started", r.started}, {"ended", r.ended}, {"status", r.status},
                        {"experiment_file", r.experiment_file}, {"command", r.command}, {"git_commit", r.git_commit},
                        {"compiler", r.compiler}, {"flags", r.flags}, {"host", r.host}, {"libraries", r.libraries},
                        {"trials", r.trials}});
  py::dict out;
  out["trials"] = trial_rows.dump();
  out["runs"] = run_rows.dump();
  out["damage"] = damage;
  py::dict columns;
  columns["trial"] = trial_of;
  columns["iteration"] = iteration;
  columns["samples"] = samples;
  columns["seconds"] = seconds;
  columns["metric"] = metric;
  columns["value"] = value;
  out["points"] = columns;
  return out;
}

}  // namespace
}  // namespace rankone::python

PYBIND11_MODULE(_rankone, m) {
  using namespace rankone;
  using namespace rankone::python;
  m.doc() = "RankOne's core, for the rankone package (docs/python.md)";
  // Bad input (a parameter, a shape) is the caller's ValueError, as scikit-learn expects.
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });
  py::class_<Fitted>(m, "Fitted")
      .def_readonly("status", &Fitted::status)
      .def_readonly("message", &Fitted::message)
      .def_readonly("iterations", &Fitted::iterations)
      .def_readonly("diagnostics", &Fitted::diagnostics)
      .def_readonly("core_seconds", &Fitted::core_seconds)
      .def_property_readonly("header", [](const Fitted& f) { return f.model.header.dump(); })
      .def("arrays", &arrays_of)
      .def("save", [](const Fitted& f, const std::string& folder) { f.model.write_folder(folder); })
      .def("to_json", [](const Fitted& f) {
        return Json{{"model", f.model.to_json()}, {"status", f.status}, {"message", f.message}, {"iterations", f.iterations},
                    {"diagnostics", Json::parse(f.diagnostics)}}.dump();
      })
      .def("predict_features", &predict_features)
      .def("predict_entries", &predict_entries);
  py::class_<RowStream>(m, "Stream")
      .def(py::init(&open_stream))
      .def("give", &give_rows);
  m.def("from_json", [](const std::string& text) {
    const Json j = Json::parse(text);
    return Fitted{SavedModel::from_json(j.at("model")), j.at("status"), j.at("message"), j.at("iterations"), j.at("diagnostics").dump()};
  });
  m.def("load_model", [](const std::string& folder) { return Fitted{SavedModel::read_folder(folder), "loaded", "", 0, "{}"}; });
  m.def("plugins", &plugins_json);
  m.def("validate", &validate);
  m.def("fit_features", &fit_features);
  m.def("fit_entries", &fit_entries);
  m.def("fit_labels", &fit_labels);
  m.def("read_store", &read_store);
}
