#include "models.hpp"

#include <algorithm>
#include <map>
#include <cmath>

#include "rankone/core/errors.hpp"
#include "rankone/core/predictions.hpp"
#include "rankone/experiment/experiment.hpp"
#include "rankone/plugin/registry.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/saved_model.hpp"

namespace rankone::cli {

namespace {

/// `m` with rows appended up to `rows` (left, w) and `cols` (right) for rows and columns the model
/// was not trained on: zero, except in a factor column that is the same in every trained row (the
/// constant 1 that carries a bias folded into the factors, as `offset: "biases"` does), which
/// keeps its value. So an unseen user of a biased completion model gets μ + b_item, and features
/// beyond the model's dimension contribute nothing.
Estimate padded(Estimate m, Index rows, Index cols) {
  auto grow = [](Matrix& factor, Index n) {
    if (n <= factor.rows()) return;
    Matrix bigger = Matrix::Zero(n, factor.cols());
    bigger.topRows(factor.rows()) = factor;
    for (Index a = 0; a < factor.cols() && factor.rows() > 1; ++a)
      if ((factor.col(a).array() == factor(0, a)).all()) bigger.col(a).tail(n - factor.rows()).setConstant(factor(0, a));
    factor = std::move(bigger);
  };
  grow(m.left, rows);
  grow(m.right, m.symmetrize ? rows : cols);
  if (m.has_first_order() && rows > m.w.size()) {
    Vector w = Vector::Zero(rows);
    w.head(m.w.size()) = m.w;
    m.w = std::move(w);
  }
  return m;
}

/// Records scored at a time: the whole data set when it has at most this many (the in-run test set
/// is scored as one batch too, so the numbers agree bit for bit), else blocks of it.
constexpr Index kScoringBlock = Index{1} << 20;

}  // namespace

void export_model(const std::filesystem::path& results, const std::string& trial, const std::filesystem::path& output) {
  const ResultsStore store(results, ResultsStore::Access::read_only);
  const auto trials = store.trials(/*with_points=*/false);
  const auto found = std::find_if(trials.begin(), trials.end(), [&](const TrialRecord& t) { return t.key == trial; });
  if (found == trials.end())
    throw InputError(store.path().string() + ": no trial " + trial + " (the trial column of rankone export names them)");
  const std::optional<SavedModel> model = store.model(trial);
  if (!model)
    throw InputError(store.path().string() + ": trial " + trial + " (" + found->status +
                     ") stored no model: it failed, its estimate was not finite, or it was stored by a rankone "
                     "older than saved models (run it again)");
  model->write_folder(output);
}

void predict(const std::filesystem::path& model_folder, const std::string& data, const std::vector<std::string>& source_options,
             std::ostream& out, std::ostream& notes) {
  const SavedModel model = SavedModel::read_folder(model_folder);
  Json config = model.data_config();
  if (!config.is_object() || !config.contains("name"))
    throw InputError((model_folder / "model.json").string() + ": at /data: expected the source configuration");
  if (!config.contains("file"))
    throw InputError((model_folder / "model.json").string() + ": the model was trained on source '" +
                     config["name"].get<std::string>() + "', which reads no file: there is nothing to predict from");
  config["file"] = data;
  // Every record of DATA is scored: the training run's held-out files and observations are not read.
  for (const char* training_only : {"test_file", "test_labels", "observations"}) config.erase(training_only);
  std::map<std::string, std::string> given{{"file", "the data to predict (DATA)"}};  // a key set here → what set it
  for (const std::string& option : source_options) {
    const auto eq = option.find('=');
    const std::string what = "source option '" + option + "'";
    if (eq == std::string::npos || eq == 0) throw UsageError(what + ": expected key=value");
    set_dotted(config, option.substr(0, eq), override_value(option.substr(eq + 1), what), what);
    given[option.substr(0, std::min(option.find('.'), eq))] = what;
  }

  Registry registry;
  registry.load_default();
  // Validated as an experiment's data would be, each error blamed on what set the value: an
  // option of the command line, or the model's saved configuration.
  const std::string saved = (model_folder / "model.json").string() + " (its data configuration)";
  const auto blame = [&](const std::string& path) {  // "/data/KEY/..." → what set KEY
    std::string key;
    if (path.rfind("/data/", 0) == 0) {
      const std::size_t end = path.find('/', 6);
      key = path.substr(6, end == std::string::npos ? std::string::npos : end - 6);
    }
    const auto option = given.find(key);
    return option != given.end() ? option->second : saved;
  };
  const ValidationContext context(registry, blame);
  config = validate_plugin_ref(config, Kind::data_source, context, "/data");
  std::unique_ptr<DataSource> source;
  try {
    source = registry.create<DataSource>(config, Kind::data_source, "/data");
    source->score_with(model.preparation());
    source->open(0);
  } catch (const ConfigError& e) {  // "at /data/KEY: …" from the source itself: blamed the same way
    const std::string what = e.what();
    throw ConfigError(what.rfind("at /", 0) == 0 ? blame(what.substr(3, what.find(':') - 3)) + ": " + what : what);
  } catch (const Json::exception& e) {  // a value of the wrong type in the saved configuration or preparation
    throw InputError((model_folder / "model.json").string() + ": malformed data configuration or preparation: " + e.what());
  }
  for (const std::string& n : source->notes()) notes << "rankone predict: note: " << n << "\n";
  const ProblemShape shape = source->shape();
  const Estimate estimate = padded(model.estimate(), shape.d1, shape.d2);
  const SensingOperator& op = source->sensing_operator();
  const Index block = std::clamp<Index>(source->size().value_or(kScoringBlock), 1, kScoringBlock);
  Index scored = 0;
  for (Batch batch = source->next(block); batch.instances() > 0; batch = source->next(block)) {
    const Vector scores = op.forward(batch, estimate);
    // A finite model can still overflow on a record (values near 1e308): never an inf line with exit 0.
    for (Index i = 0; i < scores.size(); ++i)
      if (!std::isfinite(scores[i]))
        throw InputError((model_folder / "model.json").string() + ": its score of record " +
                         std::to_string(scored + i * batch.instances() / scores.size() + 1) + " of " + data + " is " +
                         std::to_string(scores[i]) + ": the model's values overflow on it");
    write_predictions(out, batch, scores);
    scored += batch.instances();
  }
}

}  // namespace rankone::cli
