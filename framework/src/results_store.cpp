// SQLite results store and long-format export.
#include "rankone/store/results_store.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <array>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

#include <boost/version.hpp>

#include "rankone/core/errors.hpp"

namespace rankone {

namespace {

std::string now_utc() {
  const auto t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::ostringstream os;
  os << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
  return os.str();
}

/// "disk full (…)" when the last error of `db` was a write that found no room, else "".
std::string out_of_space(sqlite3* db) {
  const int code = sqlite3_errcode(db);
  const int system = sqlite3_system_errno(db);
  if (code == SQLITE_FULL || (code == SQLITE_IOERR && (system == ENOSPC || system == EFBIG || system == EDQUOT)))
    return "disk full (" + std::string(std::strerror(system ? system : ENOSPC)) + ")";
  return "";
}

/// A string as an SQL literal.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) fail("cannot read it");
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement& bind(int i, const std::string& s) { sqlite3_bind_text(stmt_, i, s.c_str(), -1, SQLITE_TRANSIENT); return *this; }
  Statement& bind(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); return *this; }
  Statement& bind(int i, double v) { sqlite3_bind_double(stmt_, i, v); return *this; }
  Statement& bind_blob(int i, const std::string& bytes) {
    sqlite3_bind_blob64(stmt_, i, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
    return *this;
  }
  /// Steps once; true when a row is available.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(rc == SQLITE_FULL ? "disk full" : rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB ? "the store is damaged" : "");
  }
  void reset() { sqlite3_reset(stmt_); sqlite3_clear_bindings(stmt_); }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(stmt_, col);
    return p ? reinterpret_cast<const char*>(p) : "";
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(stmt_, col); }
  double real(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string blob(int col) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
  }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  /// Every error names the store's file.
  [[noreturn]] void fail(const std::string& what) const {
    const char* file = sqlite3_db_filename(db_, "main");
    const std::string full = out_of_space(db_);
    throw std::runtime_error("results store " + std::string(file && *file ? file : "(unknown file)") + ": " +
                             (!full.empty() ? full + ": " : what.empty() ? "" : what + ": ") + sqlite3_errmsg(db_));
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// The store's layout. Version 1 had no code identities and no diagnostics; version 2 adds both;
/// version 3 the models table (each trial's final model: saved_model.hpp). PRAGMA user_version
/// holds the number; an older store is migrated in place.
constexpr int kSchemaVersion = 3;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY, started TEXT, ended TEXT, status TEXT, experiment TEXT, experiment_file TEXT,
  command TEXT, git_commit TEXT, compiler TEXT, flags TEXT, libraries TEXT, host TEXT);
CREATE TABLE IF NOT EXISTS trials(
  id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, run_id INTEGER, cell INTEGER, coordinates TEXT,
  repetition INTEGER, estimator TEXT, label TEXT, data_seed TEXT, estimator_seed TEXT, status TEXT,
  message TEXT, iterations INTEGER, samples INTEGER, seconds REAL, config TEXT, finished TEXT,
  code_id INTEGER, diagnostics TEXT);
CREATE TABLE IF NOT EXISTS points(
  trial_id INTEGER NOT NULL, iteration INTEGER, samples INTEGER, seconds REAL, metric TEXT, value REAL);
CREATE INDEX IF NOT EXISTS points_by_trial ON points(trial_id);
CREATE TABLE IF NOT EXISTS code_identities(id INTEGER PRIMARY KEY, identity TEXT UNIQUE NOT NULL);
CREATE TABLE IF NOT EXISTS models(trial_id INTEGER PRIMARY KEY, header TEXT NOT NULL, arrays BLOB NOT NULL);
)sql";

constexpr const char* kMigrateFrom1 = R"sql(
ALTER TABLE trials ADD COLUMN code_id INTEGER;
ALTER TABLE trials ADD COLUMN diagnostics TEXT;
CREATE TABLE IF NOT EXISTS code_identities(id INTEGER PRIMARY KEY, identity TEXT UNIQUE NOT NULL);
)sql";

}  // namespace

std::filesystem::path ResultsStore::database_path(const std::filesystem::path& folder) { return folder / "results.sqlite"; }
bool ResultsStore::exists(const std::filesystem::path& folder) { return std::filesystem::exists(database_path(folder)); }
int ResultsStore::current_schema_version() { return kSchemaVersion; }

ResultsStore::ResultsStore(const std::filesystem::path& folder, Access access)
    : path_(database_path(folder)), access_(access) {
  std::error_code ec;
  if (access == Access::read_only) {
    if (!std::filesystem::exists(path_, ec))
      throw InputError(folder.string() + ": no results database here (expected " + path_.string() + ")");
  } else {
    std::filesystem::create_directories(folder, ec);
    if (ec) throw InputError("cannot create output folder " + folder.string() + ": " + ec.message());
  }
  // A store cut to nothing (a copy that failed, a full disk) is not an empty study: never reuse it.
  if (std::filesystem::exists(path_, ec) && std::filesystem::is_regular_file(path_, ec) && std::filesystem::file_size(path_, ec) == 0)
    throw InputError(path_.string() + ": the file is empty (0 bytes), not a RankOne results store; remove it to start afresh");
  open_connection(access == Access::read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  try {
    if (access == Access::read_write) {
      exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
      upgrade_schema();
      keep_reserve();
    } else {
      check_readable();
    }
  } catch (const InputError&) {
    sqlite3_close(db_);
    throw;
  } catch (const std::exception& e) {
    sqlite3_close(db_);
    throw InputError(path_.string() + " is not a RankOne results store: " + e.what());
  }
}

void ResultsStore::open_connection(int flags) {
  if (sqlite3_open_v2(path_.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw InputError("cannot open results store " + path_.string() + ": " + msg);
  }
  sqlite3_busy_timeout(db_, 10000);
}

void ResultsStore::check_readable() {
  int version = 0;
  try {
    version = schema_version();
  } catch (const std::exception&) {
    // A store in WAL mode in a folder this user cannot write: read it as the immutable file it is.
    sqlite3_close(db_);
    const std::string uri = "file:" + path_.string() + "?immutable=1";
    if (sqlite3_open_v2(uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK)
      throw InputError("cannot open results store " + path_.string() + ": " + sqlite3_errmsg(db_));
    version = schema_version();
  }
  if (version == 0) throw InputError(path_.string() + " is not a RankOne results store (it has no trials table)");
  if (version > kSchemaVersion)
    throw InputError(path_.string() + ": results store of schema version " + std::to_string(version) +
                     ", but this rankone reads version " + std::to_string(kSchemaVersion) + " and earlier; use a newer rankone");
  if (version < kSchemaVersion) {  // readable only once migrated, which needs write access once
    sqlite3_close(db_);
    db_ = nullptr;
    ResultsStore migrate(path_.parent_path(), Access::read_write);
    open_connection(SQLITE_OPEN_READONLY);
  }
  // Damage below the rows (pages, indices) is reported, and every row that can be read still is.
  Statement check(db_, "PRAGMA quick_check(5)");
  while (check.step())
    if (check.text(0) != "ok") damaged_.push_back("integrity check: " + check.text(0));
}

int ResultsStore::schema_version() const {
  Statement v(db_, "PRAGMA user_version");
  v.step();
  const int version = static_cast<int>(v.integer(0));
  if (version > 0) return version;
  Statement t(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'trials'");
  t.step();
  return t.integer(0) > 0 ? 1 : 0;  // version 1 stores predate the version number
}

void ResultsStore::upgrade_schema() {
  exec("BEGIN IMMEDIATE");
  try {
    const int version = schema_version();
    if (version > kSchemaVersion)
      throw InputError(path_.string() + ": results store of schema version " + std::to_string(version) +
                       ", but this rankone reads version " + std::to_string(kSchemaVersion) +
                       " and earlier; use a newer rankone");
    if (version == 1) exec(kMigrateFrom1);
    if (version < kSchemaVersion) {
      exec(kSchema);
      exec("PRAGMA user_version = " + std::to_string(kSchemaVersion));
    }
    exec("COMMIT");
  } catch (...) {
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

ResultsStore::~ResultsStore() { sqlite3_close(db_); }

void ResultsStore::keep_reserve() {
  // Kept beside the store, like its WAL: topped up to kReserveBytes, as far as the disk allows (a
  // part of it still records a run's end). A disk too full for any of it stops the run at its first
  // write anyway, and says so.
  const std::filesystem::path reserve = path_.string() + ".reserve";
  std::error_code ec;
  const std::uintmax_t held = std::filesystem::exists(reserve, ec) ? std::filesystem::file_size(reserve, ec) : 0;
  if (!ec && held >= kReserveBytes) {
    reserve_ = reserve;
    return;
  }
  std::FILE* f = std::fopen(reserve.c_str(), "ab");
  if (f == nullptr) return;
  const std::string zeros(kReserveBytes - (ec ? 0 : held), '\0');
  std::fwrite(zeros.data(), 1, zeros.size(), f);
  std::fclose(f);
  if (std::filesystem::file_size(reserve, ec) > 0 && !ec) reserve_ = reserve;
}

void ResultsStore::exec(const std::string& sql) const {
  char* err = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    const std::string full = out_of_space(db_);
    throw std::runtime_error("results store " + path_.string() + ": " + (full.empty() ? "" : full + ": ") + msg);
  }
}

std::int64_t ResultsStore::begin_run(const RunInfo& info) {
  Statement s(db_, "INSERT INTO runs(started, status, experiment, experiment_file, command, git_commit, compiler, flags, "
                   "libraries, host) VALUES(?,?,?,?,?,?,?,?,?,?)");
  s.bind(1, now_utc()).bind(2, std::string("running")).bind(3, info.experiment.dump()).bind(4, info.experiment_file);
  s.bind(5, info.command).bind(6, BuildInfo::git_commit()).bind(7, BuildInfo::compiler()).bind(8, BuildInfo::flags());
  s.bind(9, BuildInfo::libraries().dump()).bind(10, BuildInfo::host());
  s.step();
  return sqlite3_last_insert_rowid(db_);
}

void ResultsStore::end_run(std::int64_t run_id, const std::string& status) {
  auto write = [&] {
    Statement s(db_, "UPDATE runs SET ended = ?, status = ? WHERE id = ?");
    s.bind(1, now_utc()).bind(2, status).bind(3, run_id);
    s.step();
  };
  try {
    write();
  } catch (const std::exception&) {
    std::error_code ec;
    if (reserve_.empty() || !std::filesystem::remove(reserve_, ec)) throw;
    reserve_.clear();
    write();         // the reserve's room: a full disk still records how the run ended
    keep_reserve();  // and what the write left is the next run's reserve
  }
}

std::map<std::string, Json> ResultsStore::completed() const {
  std::map<std::string, Json> done;
  Statement s(db_, "SELECT trials.key, code_identities.identity FROM trials "
                   "LEFT JOIN code_identities ON code_identities.id = trials.code_id");
  while (s.step()) done[s.text(0)] = s.is_null(1) ? Json::object() : Json::parse(s.text(1));
  return done;
}

std::int64_t ResultsStore::code_id(const Json& identity) {
  const std::string text = identity.dump();
  Statement ins(db_, "INSERT INTO code_identities(identity) VALUES(?) ON CONFLICT(identity) DO NOTHING");
  ins.bind(1, text).step();
  Statement sel(db_, "SELECT id FROM code_identities WHERE identity = ?");
  sel.bind(1, text);
  if (!sel.step()) throw std::runtime_error("results store (" + path_.string() + "): code identity not stored");
  return sel.integer(0);
}

bool ResultsStore::write_trial(std::int64_t run_id, const TrialRecord& t, WriteMode mode) {
  exec("BEGIN IMMEDIATE");
  try {
    if (mode == WriteMode::replace) {
      exec("DELETE FROM points WHERE trial_id IN (SELECT id FROM trials WHERE key = " + quoted(t.key) + ")");
      exec("DELETE FROM models WHERE trial_id IN (SELECT id FROM trials WHERE key = " + quoted(t.key) + ")");
      exec("DELETE FROM trials WHERE key = " + quoted(t.key));
    }
    const std::int64_t code = code_id(t.code);
    Statement ins(db_, "INSERT INTO trials(key, run_id, cell, coordinates, repetition, estimator, label, data_seed, "
                       "estimator_seed, status, message, iterations, samples, seconds, config, finished, code_id, "
                       "diagnostics) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT(key) DO NOTHING");
    ins.bind(1, t.key).bind(2, run_id).bind(3, static_cast<std::int64_t>(t.cell)).bind(4, t.coordinates.dump());
    ins.bind(5, static_cast<std::int64_t>(t.repetition)).bind(6, t.estimator).bind(7, t.label);
    ins.bind(8, std::to_string(t.data_seed)).bind(9, std::to_string(t.estimator_seed)).bind(10, t.status);
    ins.bind(11, t.message).bind(12, static_cast<std::int64_t>(t.iterations)).bind(13, static_cast<std::int64_t>(t.samples));
    ins.bind(14, t.seconds).bind(15, t.config.dump()).bind(16, now_utc()).bind(17, code).bind(18, t.diagnostics.dump());
    ins.step();
    if (sqlite3_changes(db_) == 0) {  // a concurrent run into this folder stored it first
      exec("ROLLBACK");
      return false;
    }
    const std::int64_t trial_id = sqlite3_last_insert_rowid(db_);
    Statement pt(db_, "INSERT INTO points(trial_id, iteration, samples, seconds, metric, value) VALUES(?,?,?,?,?,?)");
    for (const auto& p : t.points) {
      pt.reset();
      pt.bind(1, trial_id).bind(2, static_cast<std::int64_t>(p.iteration)).bind(3, static_cast<std::int64_t>(p.samples));
      pt.bind(4, p.seconds).bind(5, p.metric).bind(6, p.value);
      pt.step();
    }
    if (t.model) {
      Statement m(db_, "INSERT INTO models(trial_id, header, arrays) VALUES(?,?,?)");
      m.bind(1, trial_id).bind(2, t.model->header.dump()).bind_blob(3, t.model->pack());
      m.step();
    }
    exec("COMMIT");
  } catch (...) {
    // SQLite has already rolled back after some errors (a full disk); keep the first error.
    if (!sqlite3_get_autocommit(db_)) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return true;
}

namespace {

/// Stored cell numbers index the plan of the run that wrote them; a folder resumed with a changed
/// sweep holds two plans whose numbers collide. Renumbering by distinct coordinates (ordered by
/// their first stored cell) keeps different configurations apart in every reader.
void number_cells_by_coordinates(std::vector<TrialRecord>& trials) {
  std::map<std::string, std::pair<std::size_t, std::string>> first_cell;  // coordinates → (stored cell, text)
  for (const auto& t : trials) {
    const std::string text = t.coordinates.dump();
    auto [it, fresh] = first_cell.try_emplace(text, t.cell, text);
    if (!fresh) it->second.first = std::min(it->second.first, t.cell);
  }
  std::vector<std::pair<std::size_t, std::string>> order;
  for (const auto& [text, first] : first_cell) order.push_back(first);
  std::sort(order.begin(), order.end());
  std::map<std::string, std::size_t> number;
  for (std::size_t i = 0; i < order.size(); ++i) number[order[i].second] = i;
  for (auto& t : trials) t.cell = number.at(t.coordinates.dump());
  std::stable_sort(trials.begin(), trials.end(), [](const TrialRecord& a, const TrialRecord& b) { return a.cell < b.cell; });
}

}  // namespace

std::vector<TrialRecord> ResultsStore::trials(bool with_points) const {
  std::vector<TrialRecord> out;
  std::vector<std::int64_t> ids;
  {
    Statement s(db_, "SELECT id FROM trials ORDER BY cell, repetition, label");
    while (s.step()) ids.push_back(s.integer(0));
  }
  // Row by row, so that one damaged row is reported by its trial and hides nothing else.
  Statement row(db_, "SELECT trials.id, key, cell, coordinates, repetition, estimator, label, data_seed, "
                            "estimator_seed, status, message, iterations, samples, seconds, config, diagnostics, "
                            "code_identities.identity FROM trials LEFT JOIN code_identities "
                            "ON code_identities.id = trials.code_id WHERE trials.id = ?");
  Statement points(db_, "SELECT iteration, samples, seconds, metric, value FROM points WHERE trial_id = ? ORDER BY rowid");
  for (const std::int64_t id : ids) {
    TrialRecord t;
    try {
      row.reset();
      row.bind(1, id);
      if (!row.step()) continue;
      t.key = row.text(1);
      t.cell = static_cast<std::size_t>(row.integer(2));
      t.coordinates = Json::parse(row.text(3));
      t.repetition = static_cast<int>(row.integer(4));
      t.estimator = row.text(5);
      t.label = row.text(6);
      t.data_seed = std::stoull(row.text(7));
      t.estimator_seed = std::stoull(row.text(8));
      t.status = row.text(9);
      t.message = row.text(10);
      t.iterations = static_cast<int>(row.integer(11));
      t.samples = row.integer(12);
      t.seconds = row.real(13);
      t.config = Json::parse(row.text(14));
      if (!row.is_null(15)) t.diagnostics = Json::parse(row.text(15));
      if (!row.is_null(16)) t.code = Json::parse(row.text(16));
      if (!t.coordinates.is_object()) throw std::runtime_error("coordinates are not an object");
      if (with_points) {
        points.reset();
        points.bind(1, id);
        while (points.step())
          t.points.push_back(Point{static_cast<int>(points.integer(0)), points.integer(1), points.real(2), points.text(3),
                                   points.real(4)});
      }
    } catch (const std::exception& e) {
      damaged_.push_back("trial " + std::to_string(id) + (t.key.empty() ? "" : " (key " + t.key + ")") +
                         ": damaged row skipped: " + e.what());
      continue;
    }
    out.push_back(std::move(t));
  }
  number_cells_by_coordinates(out);
  return out;
}

std::optional<SavedModel> ResultsStore::model(const std::string& key) const {
  Statement s(db_, "SELECT models.header, models.arrays FROM models JOIN trials ON trials.id = models.trial_id "
                   "WHERE trials.key = ?");
  s.bind(1, key);
  if (!s.step()) return std::nullopt;
  const Json header = Json::parse(s.text(0), nullptr, false);
  if (header.is_discarded() || !header.is_object() || !header.contains("arrays"))
    throw InputError(path_.string() + ": the stored model of trial " + key + " cannot be read (damaged row)");
  return SavedModel::unpack(header, s.blob(1));
}

Json ResultsStore::latest_experiment() const {
  Statement s(db_, "SELECT experiment FROM runs ORDER BY id DESC LIMIT 1");
  if (!s.step()) return Json::object();
  Json experiment = Json::parse(s.text(0), nullptr, false);
  if (experiment.is_discarded() || !experiment.is_object()) {
    damaged_.push_back("the latest run's experiment cannot be read (damaged row): its success threshold is not used");
    return Json::object();
  }
  return experiment;
}

std::vector<RunRecord> ResultsStore::runs() const {
  std::vector<RunRecord> out;
  Statement s(db_, "SELECT id, started, ended, status, experiment_file, command, git_commit, compiler, flags, libraries, "
                   "host, (SELECT count(*) FROM trials WHERE trials.run_id = runs.id) FROM runs ORDER BY id");
  while (s.step()) {
    RunRecord r;
    r.id = s.integer(0);
    r.started = s.text(1);
    r.ended = s.text(2);
    r.status = s.text(3);
    r.experiment_file = s.text(4);
    r.command = s.text(5);
    r.git_commit = s.text(6);
    r.compiler = s.text(7);
    r.flags = s.text(8);
    r.libraries = Json::parse(s.text(9), nullptr, false);
    if (r.libraries.is_discarded() || !r.libraries.is_object()) {
      if (!s.is_null(9)) damaged_.push_back("run " + std::to_string(r.id) + ": its library versions cannot be read");
      r.libraries = Json::object();
    }
    r.host = s.text(10);
    r.trials = static_cast<std::size_t>(s.integer(11));
    out.push_back(std::move(r));
  }
  return out;
}

Json trial_to_json(const TrialRecord& t) {
  Json points = Json::array();
  for (const auto& p : t.points) points.push_back(Json::array({p.iteration, p.samples, p.seconds, p.metric, p.value}));
  return Json{{"key", t.key}, {"cell", t.cell}, {"coordinates", t.coordinates}, {"repetition", t.repetition},
              {"estimator", t.estimator}, {"label", t.label}, {"data_seed", t.data_seed},
              {"estimator_seed", t.estimator_seed}, {"status", t.status}, {"message", t.message},
              {"iterations", t.iterations}, {"samples", t.samples}, {"seconds", t.seconds}, {"config", t.config},
              {"diagnostics", t.diagnostics}, {"code", t.code}, {"points", std::move(points)},
              {"model", t.model ? t.model->to_json() : Json(nullptr)}};
}

TrialRecord trial_from_json(const Json& j) {
  TrialRecord t;
  t.key = j.at("key").get<std::string>();
  t.cell = j.at("cell").get<std::size_t>();
  t.coordinates = j.at("coordinates");
  t.repetition = j.at("repetition").get<int>();
  t.estimator = j.at("estimator").get<std::string>();
  t.label = j.at("label").get<std::string>();
  t.data_seed = j.at("data_seed").get<std::uint64_t>();
  t.estimator_seed = j.at("estimator_seed").get<std::uint64_t>();
  t.status = j.at("status").get<std::string>();
  t.message = j.at("message").get<std::string>();
  t.iterations = j.at("iterations").get<int>();
  t.samples = j.at("samples").get<Index>();
  t.seconds = j.at("seconds").get<double>();
  t.config = j.at("config");
  t.diagnostics = j.value("diagnostics", Json::object());
  t.code = j.value("code", Json::object());
  for (const auto& p : j.at("points"))
    t.points.push_back(Point{p[0].get<int>(), p[1].get<Index>(), p[2].get<double>(), p[3].get<std::string>(), p[4].get<double>()});
  if (j.contains("model") && !j["model"].is_null()) t.model = SavedModel::from_json(j["model"]);
  return t;
}

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string json_scalar_text(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

void export_results(const ResultsStore& store, const std::string& format, std::ostream& out) {
  if (format != "csv" && format != "json") throw UsageError("unknown export format '" + format + "' (expected csv or json)");
  const auto trials = store.trials(true);
  std::vector<std::string> coords;
  for (const auto& t : trials)
    for (auto it = t.coordinates.begin(); it != t.coordinates.end(); ++it)
      if (std::find(coords.begin(), coords.end(), it.key()) == coords.end()) coords.push_back(it.key());
  out << std::setprecision(17);
  if (format == "csv") {
    out << "trial,estimator,label,repetition";
    for (const auto& c : coords) out << "," << csv_field(c);
    out << ",status,iteration,samples,seconds,metric,value\n";
    for (const auto& t : trials) {
      std::ostringstream prefix;
      prefix << std::setprecision(17) << t.key << "," << csv_field(t.estimator) << "," << csv_field(t.label) << "," << t.repetition;
      for (const auto& c : coords) prefix << "," << (t.coordinates.contains(c) ? csv_field(json_scalar_text(t.coordinates[c])) : "");
      prefix << "," << t.status;
      for (const auto& p : t.points)
        out << prefix.str() << "," << p.iteration << "," << p.samples << "," << p.seconds << "," << csv_field(p.metric) << ","
            << p.value << "\n";
    }
  } else {
    Json rows = Json::array();
    for (const auto& t : trials)
      for (const auto& p : t.points) {
        Json row = {{"trial", t.key}, {"estimator", t.estimator}, {"label", t.label}, {"repetition", t.repetition},
                    {"status", t.status}, {"iteration", p.iteration}, {"samples", p.samples}, {"seconds", p.seconds},
                    {"metric", p.metric}, {"value", p.value}};
        for (const auto& c : coords) row[c] = t.coordinates.contains(c) ? t.coordinates[c] : Json();
        rows.push_back(std::move(row));
      }
    out << rows.dump(1) << "\n";
  }
}

std::string BuildInfo::git_commit() {
  const std::string cmd = std::string("git -C '") + RANKONE_SOURCE_DIR + "' rev-parse HEAD 2>/dev/null";
  std::array<char, 128> buf{};
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    while (fgets(buf.data(), buf.size(), p)) out += buf.data();
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out.empty() ? "unknown" : out;
}

std::string BuildInfo::compiler() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("gcc ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string BuildInfo::flags() { return std::string(RANKONE_BUILD_TYPE) + ": " + RANKONE_CXX_FLAGS; }

Json BuildInfo::libraries() {
  return Json{{"rankone", RANKONE_VERSION},
              {"eigen", std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
                            std::to_string(EIGEN_MINOR_VERSION)},
              {"boost", BOOST_LIB_VERSION},
              {"nlohmann_json", std::to_string(NLOHMANN_JSON_VERSION_MAJOR) + "." + std::to_string(NLOHMANN_JSON_VERSION_MINOR) +
                                    "." + std::to_string(NLOHMANN_JSON_VERSION_PATCH)},
              {"sqlite", sqlite3_libversion()}};
}

std::string BuildInfo::host() {
  char name[256] = {0};
  gethostname(name, sizeof name - 1);
  return name;
}

}  // namespace rankone
