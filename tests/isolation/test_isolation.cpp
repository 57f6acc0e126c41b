// Trial isolation and code identity, end to end through the rankone command: plugins that crash,
// abort, exit, hang, throw or allocate without bound cost only their own trial; a plugin rebuilt
// with changed code makes its stored trials stale; stores of other schema versions.
#include <catch2/catch.hpp>

#include <signal.h>

#include <filesystem>
#include <map>
#include <set>

#include "rankone/runner/code_identity.hpp"
#include "rankone/store/results_store.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

namespace {

const fs::path kPlugins = RANKONE_ISOLATION_PLUGIN_DIR;

/// A study of a healthy estimator beside one hostile estimator per misbehaviour.
std::string hostile_study() {
  std::string estimators = R"({"name": "spectral", "label": "healthy", "rank": 1, "batch_size": 500})";
  for (const char* b : {"none", "segfault", "abort", "exit", "hang", "throw_int", "unresolved_symbol", "huge_allocation",
                        "runaway_allocation"})
    estimators += std::string(R"(, {"name": "hostile", "label": ")") + b + R"(", "behaviour": ")" + b + "\"}";
  return R"({"name": "hostile", "seed": 2, "repetitions": 2,
    "plugin_paths": [")" + (kPlugins / "libisolation_hostile.so").string() + R"("],
    "limits": {"trial_seconds": 3, "trial_memory_mb": 400},
    "data": {"name": "synthetic", "d": 10, "rank": 1},
    "estimators": [)" + estimators + R"(],
    "metrics": ["samples"]})";
}

/// What each misbehaviour must be recorded as: a part of the trial's message.
const std::map<std::string, std::string> kExpectedCause = {
    {"segfault", "killed by SIGSEGV"},
    {"abort", "killed by SIGABRT"},
    {"exit", "exited with code 0 before the trial finished"},
    {"hang", "exceeded the wall-time limit of 3 s"},
    {"throw_int", "not std::exception"},
    {"unresolved_symbol", "undefined symbol: rankone_test_symbol_that_does_not_exist"},
    {"huge_allocation", "out of memory"},
    {"runaway_allocation", "exceeded the memory limit of 400 MiB"},
};

std::string sql(const fs::path& db, const std::string& query) {
  return test::run_command("sqlite3 '" + db.string() + "' \"" + query + "\" 2>&1").text;
}

/// Checks a finished hostile study: every healthy trial stored with its points, every hostile
/// one failed with its cause, the store intact.
void check_hostile_study(const fs::path& out, const test::CommandOutput& result) {
  INFO(result.text);
  CHECK(result.code == 1);
  CHECK_THAT(result.text, Catch::Contains("20 run now, 0 already complete, 16 failed or diverged"));
  std::map<std::string, int> seen;
  for (const auto& t : ResultsStore(out).trials(true)) {
    INFO(t.label << ": " << t.status << ": " << t.message);
    ++seen[t.label];
    CHECK(t.diagnostics.contains("peak_memory_mb"));
    CHECK(t.diagnostics.contains("estimated_memory_mb"));  // killed trials too: from their parameters
    if (t.label == "healthy" || t.label == "none") {
      CHECK(t.status == "converged");
      CHECK_FALSE(t.points.empty());
      continue;
    }
    CHECK(t.status == "failed");
    CHECK_THAT(t.message, Catch::Contains(kExpectedCause.at(t.label)));
    // A trial whose process died has its cause recorded; one that threw keeps its points so far.
    const bool died = !(t.label == "throw_int" || t.label == "huge_allocation");
    CHECK(t.diagnostics.contains("cause") == died);
  }
  CHECK(seen.size() == 10);
  for (const auto& [label, n] : seen) CHECK(n == 2);
  // The trials whose process died keep what it printed last.
  for (const auto& t : ResultsStore(out).trials(false))
    if (t.label == "segfault") CHECK(t.diagnostics["stderr_tail"].dump().find("hostile: about to segfault") != std::string::npos);
  const fs::path db = ResultsStore::database_path(out);
  CHECK(sql(db, "PRAGMA integrity_check") == "ok\n");
  CHECK(sql(db, "SELECT status FROM runs") == "completed with failures\n");
}

}  // namespace

TEST_CASE("hostile plugins cost only their own trial, on 2 jobs", "[isolation]") {
  test::ScratchDir s("hostile_jobs");
  const auto file = s.write("hostile.json", hostile_study());
  const fs::path out = s.path() / "out";
  const auto result = test::rankone_cli("run " + file.string() + " --out " + out.string() + " --jobs 2");
  check_hostile_study(out, result);
}

TEST_CASE("hostile plugins cost only their own trial under mpirun -np 3", "[isolation][mpi]") {
  test::ScratchDir s("hostile_mpi");
  const auto file = s.write("hostile.json", hostile_study());
  const fs::path out = s.path() / "out";
  const auto result = test::run_command("timeout 300 mpirun --allow-run-as-root --oversubscribe -np 3 " + test::rankone_binary() +
                                        " run " + file.string() + " --out " + out.string() + " 2>&1");
  check_hostile_study(out, result);
  CHECK(result.text.find("results: ") == result.text.rfind("results: "));  // one study, not three
}

TEST_CASE("the command-line limits override the experiment's", "[isolation]") {
  test::ScratchDir s("limits");
  const auto file = s.write("hang.json", R"({"name": "hang", "repetitions": 1,
    "plugin_paths": [")" + (kPlugins / "libisolation_hostile.so").string() + R"("],
    "limits": {"trial_seconds": 100},
    "data": {"name": "synthetic", "d": 10, "rank": 1},
    "estimators": [{"name": "hostile", "behaviour": "hang"}], "metrics": ["samples"]})");
  const auto result = test::rankone_cli("run " + file.string() + " --out " + (s.path() / "out").string() + " --trial-seconds 0.5");
  CHECK(result.code == 1);
  CHECK_THAT(result.text, Catch::Contains("exceeded the wall-time limit of 0.5 s"));
  CHECK(test::rankone_cli("run " + file.string() + " --trial-seconds -1").code == 2);
  // --in-process cannot honour a limit: it refuses the study instead of hanging in it (exit 2).
  const auto threads = test::rankone_cli("run " + file.string() + " --out " + (s.path() / "threads").string() +
                                         " --in-process --trial-seconds 0.5");
  CHECK(threads.code == 2);
  CHECK_THAT(threads.text, Catch::Contains("it cannot honour --trial-seconds, " + file.string() + "'s limits.trial_seconds"));
  // A nanosecond used to be accepted and the trial stored as if no limit applied.
  const auto tiny = test::rankone_cli("run " + file.string() + " --trial-seconds 1e-9");
  CHECK(tiny.code == 2);
  CHECK_THAT(tiny.text, Catch::Contains("--trial-seconds: expected a number of seconds ≥ 0.001"));
  CHECK(test::rankone_cli("run " + file.string() + " --trial-memory 1.5").code == 2);
  CHECK(test::rankone_cli("run " + file.string() + " limits.trial_memory_mb=0").code == 2);
  CHECK(test::rankone_cli("run " + file.string() + " limits.wall=3").code == 2);
}

TEST_CASE("a plugin's child, its writes on the reply descriptor and a hang with no limit set cost one trial each",
          "[isolation]") {
  test::ScratchDir s("supervisor");
  std::string estimators = R"({"name": "spectral", "label": "healthy", "rank": 1, "batch_size": 500})";
  for (const char* b : {"fork_and_crash", "write_to_pipes", "flood_pipes", "hang"})
    estimators += std::string(R"(, {"name": "hostile", "label": ")") + b + R"(", "behaviour": ")" + b + "\"}";
  const auto file = s.write("supervisor.json", R"({"name": "supervisor", "seed": 3, "repetitions": 1,
    "plugin_paths": [")" + (kPlugins / "libisolation_hostile.so").string() + R"("],
    "data": {"name": "synthetic", "d": 10, "rank": 1},
    "estimators": [)" + estimators + R"(], "metrics": ["samples"]})");
  const fs::path out = s.path() / "out";
  // No wall-time limit: only the stall watchdog (here 2 s instead of its default) ends the hang.
  const auto result = test::run_command("timeout 120 " + test::rankone_binary() + " run " + file.string() + " --out " +
                                        out.string() + " --jobs 2 --trial-stall 2 2>&1");
  INFO(result.text);
  CHECK(result.code == 1);
  CHECK_THAT(result.text, Catch::Contains("5 run now, 0 already complete, 4 failed or diverged"));
  const std::map<std::string, std::string> cause = {
      {"fork_and_crash", "killed by SIGSEGV"},
      {"write_to_pipes", "wrote to its reply descriptor what is not a reply"},
      {"flood_pipes", "wrote to its reply descriptor what is not a reply ('xxxx"},
      {"hang", "made no progress for 2 s"},
  };
  for (const auto& t : ResultsStore(out).trials(false)) {
    INFO(t.label << ": " << t.status << ": " << t.message);
    if (t.label == "healthy") {
      CHECK(t.status == "converged");
      continue;
    }
    CHECK(t.status == "failed");
    CHECK_THAT(t.message, Catch::Contains(cause.at(t.label)));
    if (t.label == "fork_and_crash") {  // the child ended with its trial's process group
      const std::string tail = t.diagnostics["stderr_tail"].dump();
      const auto at = tail.find("hostile: child ");
      REQUIRE(at != std::string::npos);
      const int child = std::stoi(tail.substr(at + 15));
      CHECK(::kill(child, 0) != 0);
    }
  }
  CHECK(sql(ResultsStore::database_path(out), "PRAGMA integrity_check") == "ok\n");
}

TEST_CASE("the stall limit is validated, lifted with none or null, and refused by --in-process", "[isolation]") {
  test::ScratchDir s("stall");
  const auto file = s.write("e.json", R"({"name": "stall", "repetitions": 1,
    "data": {"name": "synthetic", "d": 10, "rank": 1},
    "estimators": [{"name": "spectral", "rank": 1, "batch_size": 100}], "metrics": ["samples"]})");
  const std::string out = " --out " + (s.path() / "out").string();
  CHECK(test::rankone_cli("run " + file.string() + out + " --trial-stall none").code == 0);
  CHECK(test::rankone_cli("run " + file.string() + out + " --rerun-all limits.trial_stall_seconds=null").code == 0);
  const auto bad = test::rankone_cli("run " + file.string() + out + " --trial-stall 0");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.text, Catch::Contains("--trial-stall: expected a number of seconds ≥ 1, or none, found '0'"));
  const auto bad_json = test::rankone_cli("run " + file.string() + out + " limits.trial_stall_seconds=\"long\"");
  CHECK(bad_json.code == 2);
  CHECK_THAT(bad_json.text, Catch::Contains("at /limits/trial_stall_seconds"));
  const auto threads = test::rankone_cli("run " + file.string() + out + " --in-process --trial-stall 30");
  CHECK(threads.code == 2);
  CHECK_THAT(threads.text, Catch::Contains("it cannot honour --trial-stall"));
  // The default is not a limit the user set: --in-process runs (without the watchdog).
  CHECK(test::rankone_cli("run " + file.string() + out + " --in-process --rerun-all").code == 0);
}

TEST_CASE("test-plugin survives plugins that crash, abort, exit, hang or miss a symbol, naming the check", "[isolation]") {
  const std::string lib = (kPlugins / "libisolation_hostile.so").string();
  const auto result = test::run_command("timeout 300 " + test::rankone_binary() + " test-plugin " + lib + " --check-seconds 3 2>/dev/null");
  INFO(result.text);
  CHECK(result.code == 1);
  // Every plugin is reached; each crash is the failure of the check it happened in, with its cause.
  const std::string start = ": runs start and step on its example data with finite estimates (the check's process ";
  CHECK_THAT(result.text, Catch::Contains("FAIL hostile" + start + "was killed by SIGSEGV"));
  CHECK_THAT(result.text, Catch::Contains("FAIL hostile_abort" + start + "was killed by SIGABRT"));
  CHECK_THAT(result.text, Catch::Contains("FAIL hostile_exit" + start + "exited with code 0 before the check finished"));
  CHECK_THAT(result.text, Catch::Contains("FAIL hostile_hang" + start + "was stopped: the check took more than its time limit of 3 s"));
  CHECK_THAT(result.text, Catch::Contains("FAIL hostile_unresolved_symbol" + start + "exited with code 127"));
  CHECK_THAT(result.text, Catch::Contains("undefined symbol: rankone_test_symbol_that_does_not_exist"));
  CHECK_THAT(result.text, Catch::Contains("FAIL hostile_constructor: constructs from its example (the check's process was killed by SIGSEGV"));
  CHECK_THAT(result.text, Catch::Contains("last output: hostile: about to segfault"));
  CHECK_THAT(result.text, Catch::Contains("PASS hostile_hang: schema round-trips through JSON"));  // before the crash
  CHECK_THAT(result.text, Catch::Contains("hostile_hang: its remaining checks were not run"));
  CHECK_THAT(result.text, Catch::Contains(lib + ": 6 plugins, "));
  CHECK_THAT(result.text, Catch::Contains(", 6 cut short (a crash, an exit or the time limit ended the checking process)"));
  // Not a plugin library: exit 2, as before.
  test::ScratchDir s("test_plugin");
  const auto text = test::rankone_cli("test-plugin " + s.write("notes.so", "not a library").string());
  CHECK(text.code == 2);
  CHECK(test::rankone_cli("test-plugin " + lib + " --check-seconds 0").code == 2);
}

TEST_CASE("a plugin rebuilt with changed code makes its trials stale", "[isolation][identity]") {
  test::ScratchDir s("stale");
  const fs::path lib = s.path() / "libdrift.so";
  fs::copy_file(kPlugins / "libisolation_drift_1.so", lib);
  const auto file = s.write("drift.json", R"({"name": "drift", "seed": 1, "repetitions": 2,
    "plugin_paths": ["libdrift.so"],
    "data": {"name": "synthetic", "d": 10, "rank": 1},
    "estimators": ["drift", {"name": "spectral", "rank": 1, "batch_size": 200}],
    "metrics": ["samples"]})");
  const std::string out = (s.path() / "out").string();
  const auto samples_of_drift = [&] {
    std::set<Index> samples;
    for (const auto& t : ResultsStore(out).trials(false))
      if (t.label == "drift") samples.insert(t.samples);
    return samples;
  };
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + out).code == 0);
  CHECK(samples_of_drift() == std::set<Index>{1});
  CHECK_THAT(test::rankone_cli("plan " + file.string() + " --out " + out).text, Catch::Contains("4 done, 0 stale, 0 to run"));

  const std::string old_fp = file_fingerprint(lib);
  fs::copy_file(kPlugins / "libisolation_drift_2.so", lib, fs::copy_options::overwrite_existing);
  const std::string new_fp = file_fingerprint(lib);
  REQUIRE(old_fp != new_fp);
  const auto plan = test::rankone_cli("plan " + file.string() + " --out " + out);
  INFO(plan.text);
  CHECK_THAT(plan.text, Catch::Contains("2 done, 2 stale, 0 to run"));  // spectral does not use the library
  CHECK_THAT(plan.text, Catch::Contains("stale: plugin 'drift' in " + fs::canonical(lib).string() + " changed: fingerprint " +
                                        old_fp + " then, " + new_fp + " now"));

  const auto rerun = test::rankone_cli("run " + file.string() + " --out " + out);
  INFO(rerun.text);
  CHECK(rerun.code == 0);
  CHECK_THAT(rerun.text, Catch::Contains("2 run now, 2 already complete"));
  CHECK_THAT(rerun.text, Catch::Contains("stale: 2 stored trials were run again because their code changed"));
  CHECK(samples_of_drift() == std::set<Index>{2});  // replaced, not kept beside
  CHECK(ResultsStore(out).trials(false).size() == 4);

  fs::copy_file(kPlugins / "libisolation_drift_1.so", lib, fs::copy_options::overwrite_existing);
  const auto kept = test::rankone_cli("run " + file.string() + " --out " + out + " --keep-stale");
  CHECK_THAT(kept.text, Catch::Contains("0 run now, 4 already complete"));
  CHECK_THAT(kept.text, Catch::Contains("stale: 2 stored trials were kept although their code changed"));
  CHECK(samples_of_drift() == std::set<Index>{2});
  const auto all = test::rankone_cli("run " + file.string() + " --out " + out + " --rerun-all");
  CHECK_THAT(all.text, Catch::Contains("4 run now, 0 already complete"));
  CHECK(samples_of_drift() == std::set<Index>{1});
  CHECK(test::rankone_cli("run " + file.string() + " --out " + out + " --rerun-all --keep-stale").code == 2);
}

TEST_CASE("a store of schema version 1 is migrated; a newer one is refused with both versions", "[isolation][store]") {
  test::ScratchDir s("schema");
  const auto file = s.write("small.json", R"({"name": "small", "seed": 1, "repetitions": 1,
    "data": {"name": "synthetic", "d": 10, "rank": 1},
    "estimators": [{"name": "spectral", "rank": 1, "batch_size": 200}], "metrics": ["samples"]})");
  const fs::path out = s.path() / "out";
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + out.string()).code == 0);
  const fs::path db = ResultsStore::database_path(out);
  CHECK(sql(db, "PRAGMA user_version") == std::to_string(ResultsStore::current_schema_version()) + "\n");

  // Version 1: the same tables without code identities or diagnostics, and no version number.
  fs::path v1 = s.path() / "v1";
  fs::create_directories(v1);
  sql(ResultsStore::database_path(v1),
      "CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT, ended TEXT, status TEXT, experiment TEXT, experiment_file TEXT,"
      " command TEXT, git_commit TEXT, compiler TEXT, flags TEXT, libraries TEXT, host TEXT);"
      "CREATE TABLE trials(id INTEGER PRIMARY KEY, key TEXT UNIQUE NOT NULL, run_id INTEGER, cell INTEGER, coordinates TEXT,"
      " repetition INTEGER, estimator TEXT, label TEXT, data_seed TEXT, estimator_seed TEXT, status TEXT, message TEXT,"
      " iterations INTEGER, samples INTEGER, seconds REAL, config TEXT, finished TEXT);"
      "CREATE TABLE points(trial_id INTEGER NOT NULL, iteration INTEGER, samples INTEGER, seconds REAL, metric TEXT, value REAL);");
  sql(ResultsStore::database_path(v1), "ATTACH '" + db.string() + "' AS new; INSERT INTO runs SELECT * FROM new.runs;"
      " INSERT INTO trials SELECT id, key, run_id, cell, coordinates, repetition, estimator, label, data_seed, estimator_seed,"
      " status, message, iterations, samples, seconds, config, finished FROM new.trials; INSERT INTO points SELECT * FROM new.points;");
  const auto plan = test::rankone_cli("plan " + file.string() + " --out " + v1.string());
  CHECK_THAT(plan.text, Catch::Contains("stale: stored before code identities were recorded"));
  CHECK(sql(ResultsStore::database_path(v1), "PRAGMA user_version") ==
        std::to_string(ResultsStore::current_schema_version()) + "\n");
  CHECK(test::rankone_cli("export " + v1.string()).code == 0);

  sql(db, "PRAGMA user_version = 99");
  const auto newer = test::rankone_cli("summarize " + out.string());
  CHECK(newer.code == 2);
  CHECK_THAT(newer.text, Catch::Contains(db.string() + ": results store of schema version 99, but this rankone reads version " +
                                             std::to_string(ResultsStore::current_schema_version())));
}
