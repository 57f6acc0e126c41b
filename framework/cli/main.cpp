// rankone: the command-line interface. Exit codes: 0 success, 1 runtime failure (including a
// study with failed or diverged trials), 2 bad input (usage, experiment file, plugin, data),
// 128 + N when signal N stopped a run.
#include <unistd.h>

#include <csignal>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "rankone/core/atomic_file.hpp"
#include "rankone/experiment/experiment.hpp"
#include "rankone/plugin/plugin_api.hpp"
#include "rankone/plugin/registry.hpp"
#include "rankone/report/report.hpp"
#include "rankone/runner/runner.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/selection.hpp"
#include "rankone/store/summary.hpp"

#include "baseline_libm.hpp"
#include "isolation.hpp"
#include "signals.hpp"
#include "fit.hpp"
#include "models.hpp"
#include "new_plugin.hpp"
#include "test_plugin.hpp"
#include "rankone/runner/code_identity.hpp"
#include "rankone/runner/memory_budget.hpp"
#ifdef RANKONE_WITH_MPI
#include "mpi_executor.hpp"
#endif

namespace fs = std::filesystem;
using namespace rankone;

namespace {

constexpr const char* kUsage = R"(usage: rankone <command> [arguments]
       rankone <command> --help     (that command's usage)
       rankone --version

commands:
  run FILE [key.path=value ...] [--out DIR] [--jobs N] [--quiet] [--report]
         [--trial-seconds S] [--trial-memory MB] [--trial-stall S|none] [--max-memory MB]
         [--keep-stale | --rerun-all] [--in-process]
                      run an experiment; results go to DIR (default results/<name>)
                      and completed trials already there are skipped; --report also
                      writes DIR/report.html; --quiet prints only errors and failed
                      trials; under mpirun, rank 0 owns DIR.
                      Every trial runs in a process of its own: one that crashes,
                      hangs or passes a limit (--trial-seconds, --trial-memory, or the
                      experiment's "limits") is recorded failed with the cause, and the
                      study goes on. A trial that finishes no iteration for 600 s is
                      stopped as stalled (--trial-stall S sets that time, none lifts it). Trials stored by code that has changed since (stale)
                      run again and replace the stored ones; --keep-stale keeps them,
                      --rerun-all runs every trial again. --in-process runs trials on
                      threads of this process, without isolation (for debugging); it
                      refuses trial limits, which it could not honour.
                      Before anything runs, each trial's memory is estimated from its
                      parameters; one that cannot fit its limit (or --max-memory) is
                      refused, naming the JSON path, the estimate and the limit.
  fit ESTIMATOR TRAIN [--test TEST] [key=value ...] [--out DIR] [--quiet]
                      fit one model on a data file and, with TEST, score it: one supervised
                      trial whose source follows the file (libsvm; csv for .csv, idx for .idx,
                      ratings triplets for a completion estimator) and whose operator and
                      metrics follow the estimator. key=value sets an estimator parameter
                      (rank=3) or an experiment key path (seed=7, data.standardize=scale).
                      DIR (default results/fit_ESTIMATOR) keeps the results store, the
                      experiment as experiment.json (rankone run repeats it), the model
                      (DIR/model) and with TEST the predictions (DIR/predictions.txt)
  plan FILE [key.path=value ...] [--out DIR] [--max-memory MB]
                      list the trials, the memory each is estimated to need, and which
                      are done, stale (with the library whose code changed) or to run in DIR
  validate FILE [key.path=value ...] [--max-memory MB]
                      check the experiment and print it resolved (extends, overrides, defaults)
  plugins [--json]    list the registered plugins
  describe NAME [--json]
                      print a plugin's documentation and parameter schema
  summarize DIR [--metric M --below X] [--only M1,M2] [--format table|csv|json] [--all-columns]
                      per cell × estimator × metric: final mean, sd, 95 % CI, median;
                      success rate and samples/seconds to reach X for metric M
                      (default: the experiment's "success" section); --only keeps
                      the rows of the metrics named; columns no row fills are left
                      out unless --all-columns
  select DIR --metric M --tune PATH[,PATH...] --validation PATH=VALUE
         [--average PATH[,PATH...]] [--outer PATH] [--format table|json]
                      model selection: per estimator (and --outer value) the tuned sweep
                      coordinates with the lowest mean validation M (trials whose PATH
                      is VALUE, averaged over --average), and the test M of that choice
                      (the other trials); then the mean and sd over the --outer values
  report DIR [--out FILE] [--metric M --below X] [--plot M,...] [--x iteration,samples,seconds]
             [--band Q] [--x-scale auto|linear|log] [--y-scale auto|linear|log] [--title T]
             [--baseline LABEL] [--static]
                      write DIR/report.html: curves, phase-transition heat maps, per-repetition
                      and to-target plots, ratios to a baseline estimator (default: the first),
                      summary tables and provenance in one self-contained page (gnuplot
                      plots; an interactive Vega explorer unless --static)
  export DIR [--format csv|json] [--output FILE]
                      write the results in DIR as long-format rows (default csv to stdout)
  model DIR [--trial ID | --best METRIC [--highest]] [--output FOLDER]
                      write the final model of trial ID (the trial column of export; not
                      needed when DIR holds one trial; --best: the trial with the lowest
                      final METRIC, or the highest with --highest) as FOLDER/model.json
                      (default DIR/model) and one .npy array per factor, w and data
                      preparation: numpy reads it (docs/models.md)
  predict MODEL DATA [key=value ...] [--output FILE]
                      score every record of the file DATA with the model folder MODEL,
                      read by the model's source (key=value changes its options) and
                      prepared as its training data was; one line per record (a
                      multi-label record: its labels' scores), to stdout or FILE
  new-plugin NAME --kind estimator|sampler|operator|source|metric [--dir D]
                      write D/NAME (default ./NAME): a plugin of that kind from a template,
                      its CMake build against the installed RankOne, a documentation
                      page, a Catch2 test and an experiment running it beside a built-in
  test-plugin LIB [--check-seconds S]
                      the conformance checks on every plugin LIB registers: it describes
                      itself, its schema round-trips, its example constructs, and per
                      kind: moments (sampler), adjoint identities (operator), batches and
                      determinism (source), start/step with finite, reproducible
                      estimates (estimator), finite values (metric); exit 1 on a failure.
                      The checks run in child processes: a check that crashes, aborts,
                      exits or takes more than S seconds (default 300) is that check's
                      failure, with its cause and last output

Plugins are loaded from the build's plugin folder, RANKONE_PLUGIN_PATH (':'-separated folders or
libraries) and an experiment's "plugin_paths".
)";

/// The section of the usage text that describes `command` (its synopsis and description lines),
/// or "" for a command the text does not describe.
std::string command_usage(const std::string& command) {
  std::istringstream text(kUsage);
  std::string line, section;
  bool inside = false;
  while (std::getline(text, line)) {
    const bool starts_command = line.size() > 2 && line.compare(0, 2, "  ") == 0 && line[2] != ' ';
    if (starts_command) inside = line.compare(2, command.size() + 1, command + " ") == 0 || line.substr(2) == command;
    else if (line.empty()) inside = false;
    if (inside) section += line + "\n";
  }
  return section.empty() ? "" : "usage: rankone " + section.substr(2);
}

/// What `rankone --version` prints: the version, the plugin API, and the build (as the store records it).
std::string version_text() {
  const Json versions = BuildInfo::libraries();
  std::string libraries;
  for (auto it = versions.begin(); it != versions.end(); ++it)
    libraries += (libraries.empty() ? "" : ", ") + it.key() + " " + it->get<std::string>();
  return "rankone " + versions["rankone"].get<std::string>() + " (plugin API " + std::to_string(kPluginApiVersion) +
         ")\ncommit: " + BuildInfo::git_commit() + "\ncompiler: " + BuildInfo::compiler() + "\nflags: " + BuildInfo::flags() +
         "\nlibraries: " + libraries + "\n";
}

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::string> options;
  std::set<std::string> flags;
};

Args parse_args(int argc, char** argv, int first, const std::set<std::string>& with_value, const std::set<std::string>& flags) {
  Args a;
  for (int i = first; i < argc; ++i) {
    std::string s = argv[i];
    if (s.rfind("--", 0) == 0) {
      std::string value;
      const auto eq = s.find('=');
      if (eq != std::string::npos) { value = s.substr(eq + 1); s = s.substr(0, eq); }
      if (with_value.count(s)) {
        if (eq == std::string::npos) {
          if (i + 1 >= argc) throw UsageError("option " + s + " needs a value");
          value = argv[++i];
        }
        a.options[s] = value;
      } else if (flags.count(s) && eq == std::string::npos) {
        a.flags.insert(s);
      } else {
        throw UsageError("unknown option '" + s + "' (see rankone --help)");
      }
    } else {
      a.positional.push_back(s);
    }
  }
  return a;
}

std::string command_line(int argc, char** argv) {
  std::string s;
  for (int i = 0; i < argc; ++i) {
    if (i) s += ' ';
    s += argv[i];
  }
  return s;
}

int parse_jobs(const Args& a) {
  if (!a.options.count("--jobs")) return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::string& v = a.options.at("--jobs");
  try {
    std::size_t used = 0;
    const int n = std::stoi(v, &used);
    if (used == v.size() && n >= 1) return n;
  } catch (const std::exception&) {
  }
  throw UsageError("--jobs: expected a positive integer, found '" + v + "'");
}

/// The experiment file and its overrides (positional key=value arguments).
ComposedExperiment load_experiment(const Args& a, const std::string& command) {
  if (a.positional.empty()) throw UsageError("rankone " + command + ": missing experiment FILE");
  std::vector<std::string> overrides(a.positional.begin() + 1, a.positional.end());
  for (const auto& o : overrides)
    if (o.find('=') == std::string::npos)
      throw UsageError("rankone " + command + ": unexpected argument '" + o + "' (overrides look like key.path=value)");
  return compose_experiment(a.positional[0], overrides);
}

Registry load_registry(const ComposedExperiment* exp) {
  Registry r;
  r.load_default();
  if (exp) load_experiment_plugins(r, *exp);
  return r;
}

fs::path output_folder(const Args& a, const ComposedExperiment& exp) {
  if (a.options.count("--out")) return a.options.at("--out");
  const std::string name = exp.document.value("name", exp.file.stem().string());
  return fs::path("results") / name;
}

/// What a reader found damaged in a store, on stderr; exit code 1 when anything was.
int damage_report(const ResultsStore& store) {
  if (store.damage().empty()) return 0;
  std::cerr << "rankone: " << store.path().string() << " is damaged; what could be read was:\n";
  for (const auto& line : store.damage()) std::cerr << "  " << line << "\n";
  return 1;
}

#ifdef RANKONE_WITH_MPI
std::unique_ptr<mpi::Session> mpi_session;  // set when started by mpirun with several ranks
#endif

/// The exit code of a command stopped by an error. Under mpirun the whole job ends with it: the
/// other ranks would otherwise wait forever for this one (e.g. rank 0 cannot open the store).
int stop_on_error(int code) {
#ifdef RANKONE_WITH_MPI
  if (mpi_session) {
    std::cerr.flush();
    mpi_session->abort(code);
  }
#endif
  return code;
}

double parse_number(const std::string& option, const std::string& v) {
  try {
    std::size_t used = 0;
    const double x = std::stod(v, &used);
    if (used == v.size()) return x;
  } catch (const std::exception&) {
  }
  throw UsageError(option + ": expected a number, found '" + v + "'");
}

/// A whole number of MiB from 1 to 10^12 given with `option`, or nothing when it is not given.
std::optional<std::int64_t> megabytes_option(const Args& a, const std::string& option) {
  if (!a.options.count(option)) return std::nullopt;
  const std::string& v = a.options.at(option);
  const double mb = parse_number(option, v);
  if (!(mb >= 1) || mb != std::floor(mb) || mb > 1e12)
    throw UsageError(option + ": expected a whole number of MiB from 1 to 10^12, found '" + v + "'");
  return static_cast<std::int64_t>(mb);
}

/// What validate, plan and run may let a study use: `--max-memory MB` bounds the plan and each
/// trial (StudyBudget says how it combines with the trial's limit and the machine).
StudyBudget study_budget(const Args& a) {
  StudyBudget budget = StudyBudget::machine();
  if (const auto mb = megabytes_option(a, "--max-memory")) {
    budget.memory_bytes = std::min<std::uint64_t>(budget.memory_bytes, static_cast<std::uint64_t>(*mb) * 1024 * 1024);
    budget.source = "--max-memory " + a.options.at("--max-memory");
    budget.max_memory = MemoryBudget{static_cast<double>(*mb) * 1024 * 1024, budget.source};
  }
  return budget;
}

/// The per-trial limits: the command line's flags over the experiment's "limits"; memory defaults
/// to the machine's share of each trial that runs at once.
TrialLimits trial_limits(const Args& a, const Plan& plan, int concurrent_trials) {
  TrialLimits limits = plan.limits;
  if (a.options.count("--trial-seconds")) {
    const double s = parse_number("--trial-seconds", a.options.at("--trial-seconds"));
    if (!(s >= TrialLimits::kMinSeconds))
      throw UsageError("--trial-seconds: expected a number of seconds ≥ 0.001 (the smallest limit a trial can be held to), found '" +
                       a.options.at("--trial-seconds") + "'");
    limits.seconds = s;
  }
  if (a.options.count("--trial-stall")) {
    const std::string& given = a.options.at("--trial-stall");
    if (given == "none") {
      limits.stall_seconds.reset();
    } else {
      const double s = parse_number("--trial-stall", given);
      if (!(s >= TrialLimits::kMinStallSeconds))
        throw UsageError("--trial-stall: expected a number of seconds ≥ 1, or none, found '" + given + "'");
      limits.stall_seconds = s;
    }
  }
  if (const auto mb = megabytes_option(a, "--trial-memory")) limits.memory_mb = *mb;
  if (!limits.memory_mb) limits.memory_mb = isolation::default_memory_limit_mb(concurrent_trials);
  // A trial is stopped at --max-memory too: what was refused above it before running is not let
  // through by an estimate that fell short.
  if (const auto mb = megabytes_option(a, "--max-memory")) limits.memory_mb = std::min(*limits.memory_mb, *mb);
  return limits;
}

/// Runs the study `exp` as `rankone run` does (a's options), into `out` (default: output_folder).
/// Prints what happened unless --quiet, which leaves only errors and failed trials (on stderr).
int run_study(const Args& a, const ComposedExperiment& exp, const std::string& cmdline) {
  const Registry registry = load_registry(&exp);
  // Each trial's budget is the limit it will run under, unless --max-memory says otherwise.
  const int jobs_asked = parse_jobs(a);
  StudyBudget budget = study_budget(a);
  if (const auto mb = megabytes_option(a, "--trial-memory"))
    budget.trial_limit = MemoryBudget{static_cast<double>(*mb) * 1024 * 1024, "--trial-memory " + a.options.at("--trial-memory")};
  budget.default_limit = [jobs_asked](std::size_t trials) {
    const int at_once = static_cast<int>(std::min<std::size_t>(jobs_asked, std::max<std::size_t>(trials, 1)));
    return MemoryBudget{static_cast<double>(isolation::default_memory_limit_mb(at_once)) * 1024 * 1024,
                        "the default trial memory limit: 90 % of the machine's memory shared by " + std::to_string(at_once) +
                            (at_once == 1 ? " trial" : " trials") + " at once"};
  };
  const Plan plan = plan_experiment(exp, registry, budget);
  if (a.flags.count("--keep-stale") && a.flags.count("--rerun-all"))
    throw UsageError("--keep-stale and --rerun-all contradict each other; give one");
  const bool in_process = a.flags.count("--in-process") > 0;
  if (in_process) {
    // Threads of this process cannot be stopped or measured one by one: a limit would be ignored.
    std::vector<std::string> limits;
    for (const char* option : {"--trial-seconds", "--trial-memory"})
      if (a.options.count(option)) limits.push_back(option);
    if (a.options.count("--trial-stall") && a.options.at("--trial-stall") != "none") limits.push_back("--trial-stall");
    if (plan.limits.seconds) limits.push_back(a.positional[0] + "'s limits.trial_seconds");
    if (plan.limits.memory_mb) limits.push_back(a.positional[0] + "'s limits.trial_memory_mb");
    if (plan.limits.stall_seconds != TrialLimits{}.stall_seconds) limits.push_back(a.positional[0] + "'s limits.trial_stall_seconds");
    if (!limits.empty()) {
      std::string named;
      for (const auto& l : limits) named += (named.empty() ? "" : ", ") + l;
      throw UsageError("--in-process runs trials on threads of this process, which no limit can stop or measure one "
                       "by one; it cannot honour " + named + ": drop --in-process, or the limits");
    }
  }
  // No more trials at once than the study has (each is a host process, started up front).
  const int jobs = static_cast<int>(std::min<std::size_t>(jobs_asked, std::max<std::size_t>(1, plan.trials.size())));
  isolation::HostConfig hosts;
  hosts.plugin_paths = experiment_plugin_paths(exp);
  TrialExecutor executor;
#ifdef RANKONE_WITH_MPI
  if (mpi_session) {
    hosts.limits = trial_limits(a, plan, 1);
    if (mpi_session->rank() != 0) {  // workers run what rank 0 hands out and print nothing
      signals::ignore_interrupts();  // rank 0 decides when they stop
      mpi::worker(*mpi_session, plan, registry, in_process ? nullptr : &hosts);
      return 0;
    }
    executor = mpi::coordinator(*mpi_session, plan);
  }
#endif
  if (!executor) {
    hosts.limits = trial_limits(a, plan, jobs);
    executor = in_process ? thread_executor(jobs) : isolation::isolated_executor(jobs, hosts);
  }
  RunOptions opts;
  opts.out = output_folder(a, exp);
  opts.jobs = jobs;
  const bool quiet = a.flags.count("--quiet") > 0;
  std::ostream silent(nullptr);  // what --quiet does not print
  std::ostream& info = quiet ? silent : std::cout;
  opts.progress = !quiet && isatty(STDERR_FILENO);
  opts.notes = !quiet;
  opts.command = cmdline;
  opts.keep_stale = a.flags.count("--keep-stale") > 0;
  opts.rerun_all = a.flags.count("--rerun-all") > 0;
  signals::stop_on_interrupt();
  opts.stop_signal = signals::requested_stop;
  RunReport report;
  try {
    report = run_plan(plan, exp, registry, opts, executor);
  } catch (const ConfigError& e) {
    throw ConfigError(exp.file.string() + ": " + e.what());
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {  // e.g. a full disk: say what is safe and how to go on
    std::size_t stored = 0;
    try {
      stored = ResultsStore(opts.out, ResultsStore::Access::read_only).completed().size();
    } catch (const std::exception&) {
    }
    throw std::runtime_error(std::string(e.what()) + "\nthe run stopped; " + std::to_string(stored) + " of " +
                             std::to_string(plan.trials.size()) + " trials are saved in " +
                             ResultsStore::database_path(opts.out).string() + "; once the cause is fixed, resume: " + cmdline);
  }
  if (report.interrupted_by) {
    const std::size_t stored = ResultsStore(opts.out).completed().size();
    const char* name = sigabbrev_np(report.interrupted_by);
    (quiet ? std::cerr : std::cout) << "interrupted by " << (name ? "SIG" + std::string(name) : "signal " + std::to_string(report.interrupted_by))
              << ": " << report.completed << " trials of this run saved, " << stored << " of " << report.total
              << " in " << ResultsStore::database_path(opts.out).string() << "; trials in flight were not saved\n"
              << "resume: " << cmdline << "\n";
    return 128 + report.interrupted_by;
  }
  // The plan's trials as stored (this run's and earlier ones'): failures set the exit code.
  std::set<std::string> keys;
  for (const auto& t : plan.trials) keys.insert(t.key);
  std::vector<TrialRecord> stored;
  for (auto& t : ResultsStore(opts.out, ResultsStore::Access::read_only).trials(false))
    if (keys.count(t.key)) stored.push_back(std::move(t));
  const auto failures = static_cast<std::size_t>(std::count_if(
      stored.begin(), stored.end(), [](const TrialRecord& t) { return t.status == "failed" || t.status == "diverged"; }));
  info << "results: " << ResultsStore::database_path(opts.out).string() << "\n"
            << "trials: " << report.total << " (" << report.completed << " run now, " << report.skipped
            << " already complete, " << failures << " failed or diverged) in " << std::fixed << std::setprecision(1)
            << report.seconds << " s\n";
  if (report.stale_rerun)
    info << "stale: " << report.stale_rerun << " stored trials were run again because their code changed "
              << "(the new results replace them; --keep-stale keeps them)\n";
  if (report.stale_kept)
    info << "stale: " << report.stale_kept << " stored trials were kept although their code changed (--keep-stale); "
              << "rankone plan lists them\n";
  info << "next: rankone export " << opts.out.string() << " --format csv\n";
  // Every non-success of the plan, failures first; stalled trials are results (a fit that did not
  // happen), so they are listed but leave the exit code alone.
  for (const auto& [title, statuses] :
       {std::pair<std::string, std::set<std::string>>{"failed or diverged trials", {"failed", "diverged"}},
        {"stalled trials (ended far from a fit)", {"stalled"}}}) {
    constexpr std::size_t kListed = 20;  // a large study's list is summarize's job
    std::ostream& list = !quiet ? std::cout : statuses.count("failed") ? std::cerr : silent;  // failures are errors
    std::size_t n = 0;
    for (const auto& t : stored) {
      if (!statuses.count(t.status)) continue;
      if (n++ == 0) list << title << ":\n";
      if (n <= kListed)
        list << "  " << t.label << " rep " << t.repetition << " " << t.coordinates.dump() << ": " << t.status << ": "
                  << t.message << "\n";
    }
    if (n > kListed) list << "  … and " << n - kListed << " more (rankone summarize " << opts.out.string() << ")\n";
  }
  if (a.flags.count("--report")) {  // written even when trials failed: the report shows them
    write_report(opts.out, opts.out / "report.html", ReportOptions{});
    info << "report: " << (opts.out / "report.html").string() << "\n";
  }
  return failures ? 1 : 0;
}

int cmd_run(const Args& a, const std::string& cmdline) { return run_study(a, load_experiment(a, "run"), cmdline); }

int cmd_plan(const Args& a) {
  const auto exp = load_experiment(a, "plan");
  const Registry registry = load_registry(&exp);
  const Plan plan = plan_experiment(exp, registry, study_budget(a));
  const fs::path out = output_folder(a, exp);
  std::map<std::string, Json> completed;
  if (ResultsStore::exists(out)) completed = ResultsStore(out, ResultsStore::Access::read_only).completed();
  const std::vector<TrialState> states = trial_states(plan, completed);
  std::size_t n_done = 0, n_stale = 0;
  std::cout << std::left << std::setw(6) << "#" << std::setw(6) << "cell" << std::setw(5) << "rep" << std::setw(24)
            << "estimator" << std::setw(7) << "state" << std::setw(11) << "memory" << "coordinates\n";
  for (std::size_t i = 0; i < plan.trials.size(); ++i) {
    const auto& t = plan.trials[i];
    const auto standing = states[i].standing;
    n_done += standing == TrialState::Standing::done;
    n_stale += standing == TrialState::Standing::stale;
    const char* state = standing == TrialState::Standing::done ? "done" : standing == TrialState::Standing::stale ? "stale" : "todo";
    std::cout << std::setw(6) << i << std::setw(6) << t.cell << std::setw(5) << t.repetition << std::setw(24) << t.label
              << std::setw(7) << state << std::setw(11) << format_bytes(trial_footprint(t, registry).bytes())
              << t.coordinates.dump() << "\n";
    for (const auto& reason : states[i].stale_reasons) std::cout << "        stale: " << reason << "\n";
  }
  std::cout << plan.trials.size() << " trials (" << plan.cells.size() << " cells × "
            << plan.resolved["repetitions"].get<int>() << " repetitions × " << plan.resolved["estimators"].size()
            << " estimators): " << n_done << " done, " << n_stale << " stale, " << plan.trials.size() - n_done - n_stale
            << " to run; output " << out.string() << "\n";
  if (n_stale)
    std::cout << "stale trials were stored by code that has changed since: rankone run reruns them "
                 "(--keep-stale keeps them)\n";
  return 0;
}

int cmd_validate(const Args& a) {
  const auto exp = load_experiment(a, "validate");
  const Registry registry = load_registry(&exp);
  const Plan plan = plan_experiment(exp, registry, study_budget(a));
  std::cout << plan.resolved.dump(2) << "\n";
  std::cerr << exp.file.string() << ": valid (" << plan.trials.size() << " trials)\n";
  return 0;
}

int cmd_plugins(const Args& a) {
  const Registry registry = load_registry(nullptr);
  if (a.flags.count("--json")) {
    Json out = Json::array();
    for (const auto* r : registry.all())
      out.push_back({{"kind", to_string(r->kind)}, {"name", r->name}, {"version", r->version}, {"summary", r->summary},
                     {"citation", r->citation}, {"library", r->library}});
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (Kind k : {Kind::data_source, Kind::sensing_operator, Kind::sampler, Kind::estimator, Kind::initializer, Kind::metric}) {
    const auto regs = registry.of_kind(k);
    if (regs.empty()) continue;
    std::cout << to_string(k) << "s:\n";
    for (const auto* r : regs) std::cout << "  " << std::left << std::setw(26) << r->name << r->summary << "\n";
  }
  std::cout << "(" << registry.all().size() << " plugins from " << registry.libraries().size() << " libraries; "
            << "rankone describe NAME for details)\n";
  return 0;
}

int cmd_describe(const Args& a) {
  if (a.positional.size() != 1) throw UsageError("usage: rankone describe NAME [--json]");
  const Registry registry = load_registry(nullptr);
  const Registration& r = registry.get(a.positional[0]);
  if (a.flags.count("--json")) {
    Json described = {{"kind", to_string(r.kind)}, {"name", r.name}, {"version", r.version}, {"summary", r.summary},
                      {"citation", r.citation}, {"doc_page", r.doc_page}, {"library", r.library},
                      {"parameters", r.schema.to_json()}};
    if (r.kind == Kind::estimator) described["one_pass"] = r.one_pass;
    std::cout << described.dump(2) << "\n";
    return 0;
  }
  std::cout << r.name << " (" << to_string(r.kind) << ", version " << r.version << ")\n  " << r.summary << "\n";
  if (!r.citation.empty()) std::cout << "  citation: " << r.citation << "\n";
  if (!r.doc_page.empty()) std::cout << "  documentation: " << r.doc_page << "\n";
  if (r.one_pass) std::cout << "  one-pass: draws fresh batches and never revisits one (partial_fit in Python)\n";
  std::cout << "  library: " << r.library << "\n\nparameters:\n";
  if (r.schema.params().empty()) std::cout << "  (none)\n";
  for (const auto& p : r.schema.params()) {
    std::cout << "  " << std::left << std::setw(22) << p.name << p.expectation() << "; " << p.default_text() << "\n"
              << "  " << std::setw(22) << "" << p.doc << "\n";
  }
  if (!r.schema.constraints().empty()) std::cout << "\nconstraints:\n";
  for (const auto& c : r.schema.constraints()) {
    std::string fields;
    for (const auto& f : c.fields) fields += (fields.empty() ? "" : ", ") + f;
    std::cout << "  " << fields << ": " << c.message << "\n";
  }
  return 0;
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

/// The rows of the metrics named, in the summary's order; a name no row has is a usage error.
std::vector<SummaryRow> rows_of_metrics(std::vector<SummaryRow> rows, const std::vector<std::string>& metrics) {
  std::set<std::string> recorded;
  for (const auto& row : rows) recorded.insert(row.metric);
  for (const auto& m : metrics)
    if (!recorded.count(m)) {
      std::string known;
      for (const auto& r : recorded) known += (known.empty() ? "" : ", ") + r;
      throw UsageError("--only: no trial recorded the metric '" + m + "' (recorded: " + known + ")");
    }
  std::erase_if(rows, [&](const SummaryRow& row) { return std::find(metrics.begin(), metrics.end(), row.metric) == metrics.end(); });
  return rows;
}

int cmd_new_plugin(const Args& a) {
  if (a.positional.size() != 1 || !a.options.count("--kind"))
    throw UsageError("usage: rankone new-plugin NAME --kind estimator|sampler|operator|source|metric [--dir D]");
  const fs::path dir = a.options.count("--dir") ? fs::path(a.options.at("--dir")) : fs::current_path();
  const fs::path folder = cli::new_plugin(a.positional[0], a.options.at("--kind"), dir);
  std::cout << "wrote " << folder.string() << "/ (" << a.options.at("--kind") << " '" << a.positional[0] << "'); next:\n"
            << cli::new_plugin_next_steps(folder);
  return 0;
}

int cmd_summarize(const Args& a) {
  if (a.positional.size() != 1)
    throw UsageError("usage: rankone summarize DIR [--metric M --below X] [--only M1,M2] [--format table|csv|json] [--all-columns]");
  const fs::path dir = a.positional[0];
  SummaryOptions opts;
  if (a.options.count("--metric")) opts.success_metric = a.options.at("--metric");
  if (a.options.count("--below")) opts.success_below = parse_number("--below", a.options.at("--below"));
  const std::string format = a.options.count("--format") ? a.options.at("--format") : "table";
  if (format != "table" && format != "csv" && format != "json")
    throw UsageError("--format: expected table, csv or json, found '" + format + "'");
  const ResultsStore store(dir, ResultsStore::Access::read_only);
  std::vector<SummaryRow> rows = summarize(store, opts);
  if (a.options.count("--only")) rows = rows_of_metrics(std::move(rows), split_commas(a.options.at("--only")));
  write_summary(rows, format, std::cout, a.flags.count("--all-columns") > 0);
  return damage_report(store);
}

int cmd_report(const Args& a) {
  if (a.positional.size() != 1)
    throw UsageError("usage: rankone report DIR [--out FILE] [--metric M --below X] [--plot M1,M2] [--x iteration,samples,seconds] "
                     "[--band Q] [--x-scale auto|linear|log] [--y-scale auto|linear|log] [--title T] [--baseline LABEL] [--static]");
  const fs::path dir = a.positional[0];
  ReportOptions o;
  if (a.options.count("--metric")) o.success_metric = a.options.at("--metric");
  if (a.options.count("--below")) o.success_below = parse_number("--below", a.options.at("--below"));
  if (a.options.count("--plot")) o.metrics = split_commas(a.options.at("--plot"));
  if (a.options.count("--x")) o.x_axes = split_commas(a.options.at("--x"));
  if (a.options.count("--band")) o.band_quantile = parse_number("--band", a.options.at("--band"));
  if (a.options.count("--x-scale")) o.x_scale = parse_axis_scale(a.options.at("--x-scale"));
  if (a.options.count("--y-scale")) o.y_scale = parse_axis_scale(a.options.at("--y-scale"));
  if (a.options.count("--title")) o.title = a.options.at("--title");
  if (a.options.count("--baseline")) o.baseline = a.options.at("--baseline");
  o.interactive = !a.flags.count("--static");
  const fs::path out = a.options.count("--out") ? fs::path(a.options.at("--out")) : dir / "report.html";
  write_report(dir, out, o);
  std::cout << "report: " << out.string() << "\n";
  return 0;
}

int cmd_select(const Args& a) {
  const std::string usage = "usage: rankone select DIR --metric M --tune PATH[,PATH...] --validation PATH=VALUE "
                            "[--average PATH[,PATH...]] [--outer PATH] [--format table|json]";
  if (a.positional.size() != 1) throw UsageError(usage);
  for (const char* required : {"--metric", "--tune", "--validation"})
    if (!a.options.count(required)) throw UsageError(std::string(required) + " is required\n" + usage);
  const fs::path dir = a.positional[0];
  SelectionOptions o;
  o.metric = a.options.at("--metric");
  o.tune = split_commas(a.options.at("--tune"));
  const std::string& validation = a.options.at("--validation");
  const auto eq = validation.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UsageError("--validation: expected PATH=VALUE (e.g. data.evaluate_on=validation), found '" + validation + "'");
  o.validation_path = validation.substr(0, eq);
  // VALUE as JSON (numbers, null, quoted strings), else as a bare string, like experiment overrides.
  o.validation_value = Json::parse(validation.substr(eq + 1), nullptr, false);
  if (o.validation_value.is_discarded()) o.validation_value = validation.substr(eq + 1);
  if (a.options.count("--average")) o.average = split_commas(a.options.at("--average"));
  if (a.options.count("--outer")) o.outer = a.options.at("--outer");
  const std::string format = a.options.count("--format") ? a.options.at("--format") : "table";
  if (format != "table" && format != "json") throw UsageError("--format: expected table or json, found '" + format + "'");
  const ResultsStore store(dir, ResultsStore::Access::read_only);
  write_selection(select_on_validation(summarize(store, SummaryOptions{}), o), o, format, std::cout);
  return damage_report(store);
}

int cmd_export(const Args& a) {
  if (a.positional.size() != 1) throw UsageError("usage: rankone export DIR [--format csv|json] [--output FILE]");
  const fs::path dir = a.positional[0];
  const std::string format = a.options.count("--format") ? a.options.at("--format") : "csv";
  if (format != "csv" && format != "json") throw UsageError("--format: expected csv or json, found '" + format + "'");
  const ResultsStore store(dir, ResultsStore::Access::read_only);
  if (a.options.count("--output")) {
    AtomicFile out(a.options.at("--output"));
    export_results(store, format, out.stream());
    out.commit();
  } else {
    export_results(store, format, std::cout);
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write the export to standard output");
  }
  return damage_report(store);
}

/// Each metric's final value in a trial: the point of its last iteration.
std::map<std::string, double> final_values(const TrialRecord& t) {
  std::map<std::string, std::pair<int, double>> last;
  for (const auto& p : t.points) {
    auto [it, added] = last.try_emplace(p.metric, p.iteration, p.value);
    if (!added && p.iteration >= it->second.first) it->second = {p.iteration, p.value};
  }
  std::map<std::string, double> out;
  for (const auto& [metric, point] : last) out[metric] = point.second;
  return out;
}

/// The trial whose model `rankone model DIR` writes: --trial's, the folder's only trial, or with
/// --best M the one with the lowest final M (--highest: the highest, for a score such as auc).
std::string chosen_trial(const Args& a, const fs::path& dir) {
  if (a.options.count("--trial")) {
    if (a.options.count("--best")) throw UsageError("rankone model: give --trial or --best, not both");
    return a.options.at("--trial");
  }
  const ResultsStore store(dir, ResultsStore::Access::read_only);
  const std::vector<TrialRecord> trials = store.trials(/*with_points=*/a.options.count("--best") > 0);
  if (trials.empty()) throw InputError(store.path().string() + ": no trial is stored");
  if (!a.options.count("--best")) {
    if (trials.size() == 1) return trials.front().key;
    throw UsageError(store.path().string() + " holds " + std::to_string(trials.size()) +
                     " trials: name one with --trial ID (the trial column of rankone export), or choose by a metric "
                     "with --best METRIC");
  }
  const std::string metric = a.options.at("--best");
  const bool highest = a.flags.count("--highest") > 0;
  const TrialRecord* best = nullptr;
  double best_value = 0.0;
  for (const auto& t : trials) {
    if (t.status == "failed" || t.status == "diverged") continue;
    const auto finals = final_values(t);
    const auto final = finals.find(metric);
    if (final == finals.end() || !std::isfinite(final->second)) continue;
    if (!best || (highest ? final->second > best_value : final->second < best_value)) {
      best = &t;
      best_value = final->second;
    }
  }
  if (!best)
    throw InputError(store.path().string() + ": no completed trial recorded a finite final value of '" + metric + "'");
  return best->key;
}

int cmd_model(const Args& a) {
  if (a.positional.size() != 1)
    throw UsageError("usage: rankone model DIR [--trial ID | --best METRIC [--highest]] [--output FOLDER]");
  if (a.flags.count("--highest") && !a.options.count("--best")) throw UsageError("rankone model: --highest goes with --best");
  const fs::path dir = a.positional[0];
  const std::string trial = chosen_trial(a, dir);
  const fs::path output = a.options.count("--output") ? fs::path(a.options.at("--output")) : dir / "model";
  cli::export_model(dir, trial, output);
  std::cout << "model of trial " << trial << " written to " << output.string() << "\n";
  return 0;
}

/// `rankone fit`: one supervised trial of ESTIMATOR on TRAIN (scored on TEST), composed by
/// cli::fit_experiment and run as `rankone run` runs it; the folder keeps the store, the experiment,
/// the model and the predictions.
int cmd_fit(const Args& a, const std::string& cmdline) {
  if (a.positional.size() < 2)
    throw UsageError("usage: rankone fit ESTIMATOR TRAIN [--test TEST] [key=value ...] [--out DIR] [--quiet]");
  const std::string estimator = a.positional[0];
  std::optional<std::string> test;
  if (a.options.count("--test")) test = a.options.at("--test");
  for (const auto& [what, file] : {std::pair<std::string, std::string>{"TRAIN", a.positional[1]}, {"--test", test.value_or("")}})
    if (!file.empty() && !fs::is_regular_file(file))
      throw UsageError("rankone fit: " + what + " '" + file + "': " + (fs::exists(file) ? "not a regular file" : "no such file"));
  std::vector<std::string> overrides;
  for (std::size_t i = 2; i < a.positional.size(); ++i) overrides.push_back(cli::fit_override(a.positional[i]));
  const Registry registry = load_registry(nullptr);
  const Json document = cli::fit_experiment(registry, estimator, a.positional[1], test);
  const fs::path out = a.options.count("--out") ? fs::path(a.options.at("--out")) : fs::path("results") / ("fit_" + estimator);
  fs::create_directories(out);
  const fs::path file = out / "experiment.json";
  const auto write_experiment = [&file](const Json& doc) {
    AtomicFile f(file);
    f.stream() << doc.dump(2) << "\n";
    f.commit();
  };
  write_experiment(document);
  const ComposedExperiment exp = compose_experiment(file, overrides);
  Args run_args;
  run_args.options = {{"--out", out.string()}, {"--jobs", "1"}};
  run_args.flags = {"--quiet"};
  const int code = run_study(run_args, exp, cmdline);
  // The settings given on the command line go into the file: `rankone run DIR/experiment.json` repeats the fit.
  write_experiment(exp.document);
  if (code != 0) return code;

  const std::string key = plan_experiment(exp, registry, study_budget(a)).trials.front().key;
  cli::export_model(out, key, out / "model");
  const bool quiet = a.flags.count("--quiet") > 0;
  std::ostringstream notes;
  if (test) {
    AtomicFile predictions(out / "predictions.txt");
    cli::predict(out / "model", *test, {}, predictions.stream(), notes);
    predictions.commit();
  }
  if (quiet) return 0;
  std::cout << notes.str();
  const ResultsStore store(out, ResultsStore::Access::read_only);
  for (const auto& t : store.trials(/*with_points=*/true)) {
    if (t.key != key) continue;
    for (const auto& n : t.diagnostics.value("notes", Json::array())) std::cout << "note: " << n.get<std::string>() << "\n";
    std::cout << estimator << ": " << t.status << " after " << t.iterations << " iterations"
              << (t.message.empty() ? "" : " (" + t.message + ")") << "\n";
    for (const auto& [metric, value] : final_values(t)) std::cout << "  " << std::left << std::setw(20) << metric << value << "\n";
  }
  std::cout << "results: " << ResultsStore::database_path(out).string() << "\nexperiment: " << file.string()
            << "\nmodel: " << (out / "model").string() << "\n";
  if (test) std::cout << "predictions: " << (out / "predictions.txt").string() << "\n";
  return 0;
}

int cmd_predict(const Args& a) {
  if (a.positional.size() < 2) throw UsageError("usage: rankone predict MODEL DATA [key=value ...] [--output FILE]");
  const std::vector<std::string> options(a.positional.begin() + 2, a.positional.end());
  if (a.options.count("--output")) {
    AtomicFile out(a.options.at("--output"));
    cli::predict(a.positional[0], a.positional[1], options, out.stream(), std::cerr);
    out.commit();
  } else {
    cli::predict(a.positional[0], a.positional[1], options, std::cout, std::cerr);
    std::cout.flush();
    if (!std::cout) throw std::runtime_error("cannot write the predictions to standard output");
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  rankone::cli::pin_baseline_libm(argv);  // portable builds only: the same libm on every machine
  // A trial host is started by `rankone run` (or an MPI rank) and is never an MPI process itself.
  if (argc == 2 && std::string(argv[1]) == "trial-host") return isolation::trial_host_main();
  if (argc == 4 && std::string(argv[1]) == "test-plugin-child") return cli::test_plugin_child(argv[2], std::stoul(argv[3]));
  try {
#ifdef RANKONE_WITH_MPI
    if (mpi::launched_with_several_ranks()) mpi_session = std::make_unique<mpi::Session>(argc, argv);
#else
    if (std::getenv("OMPI_COMM_WORLD_SIZE") && std::string(std::getenv("OMPI_COMM_WORLD_SIZE")) != "1")
      throw UsageError("this rankone was built without MPI (libboost-mpi-dev was missing): it cannot run under mpirun");
#endif
    if (argc < 2) {
      std::cerr << kUsage;
      return 2;
    }
    const std::string cmd = argv[1];
    if (cmd == "--version" || cmd == "version") {
      std::cout << version_text();
      return 0;
    }
    if ((cmd == "--help" || cmd == "-h" || cmd == "help") && argc == 2) {
      std::cout << kUsage;
      return 0;
    }
    // `rankone COMMAND --help` and `rankone help COMMAND`: that command's usage.
    const bool help_first = cmd == "help" || cmd == "--help" || cmd == "-h";
    bool wants_help = help_first;
    for (int i = 2; i < argc && !wants_help; ++i) wants_help = std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h";
    if (wants_help) {
      const std::string asked = help_first ? argv[2] : cmd;
      const std::string usage = command_usage(asked);
      if (usage.empty()) throw UsageError("unknown command '" + asked + "'\n" + kUsage);
      std::cout << usage;
      return 0;
    }
    if (cmd == "run")
      return cmd_run(parse_args(argc, argv, 2, {"--out", "--jobs", "--trial-seconds", "--trial-memory", "--trial-stall", "--max-memory"},
                                {"--quiet", "--report", "--keep-stale", "--rerun-all", "--in-process"}),
                     command_line(argc, argv));
    if (cmd == "plan") return cmd_plan(parse_args(argc, argv, 2, {"--out", "--max-memory"}, {}));
    if (cmd == "validate") return cmd_validate(parse_args(argc, argv, 2, {"--max-memory"}, {}));
    if (cmd == "plugins") return cmd_plugins(parse_args(argc, argv, 2, {}, {"--json"}));
    if (cmd == "describe") return cmd_describe(parse_args(argc, argv, 2, {}, {"--json"}));
    if (cmd == "summarize")
      return cmd_summarize(parse_args(argc, argv, 2, {"--metric", "--below", "--only", "--format"}, {"--all-columns"}));
    if (cmd == "report")
      return cmd_report(parse_args(argc, argv, 2,
                                   {"--out", "--metric", "--below", "--plot", "--x", "--band", "--x-scale", "--y-scale", "--title",
                                    "--baseline"},
                                   {"--static"}));
    if (cmd == "select")
      return cmd_select(parse_args(argc, argv, 2, {"--metric", "--tune", "--validation", "--average", "--outer", "--format"}, {}));
    if (cmd == "export") return cmd_export(parse_args(argc, argv, 2, {"--format", "--output"}, {}));
    if (cmd == "model") return cmd_model(parse_args(argc, argv, 2, {"--trial", "--best", "--output"}, {"--highest"}));
    if (cmd == "fit") return cmd_fit(parse_args(argc, argv, 2, {"--test", "--out"}, {"--quiet"}), command_line(argc, argv));
    if (cmd == "predict") return cmd_predict(parse_args(argc, argv, 2, {"--output"}, {}));
    if (cmd == "new-plugin") return cmd_new_plugin(parse_args(argc, argv, 2, {"--kind", "--dir"}, {}));
    if (cmd == "test-plugin") {
      const Args a = parse_args(argc, argv, 2, {"--check-seconds"}, {});
      if (a.positional.size() != 1) throw UsageError("usage: rankone test-plugin LIB [--check-seconds S]");
      double seconds = cli::kDefaultCheckSeconds;
      if (a.options.count("--check-seconds")) {
        seconds = parse_number("--check-seconds", a.options.at("--check-seconds"));
        if (!(seconds >= 0.1))
          throw UsageError("--check-seconds: expected a number of seconds ≥ 0.1, found '" + a.options.at("--check-seconds") + "'");
      }
      return cli::test_plugin(a.positional[0], seconds, std::cout);
    }
    throw UsageError("unknown command '" + cmd + "'\n" + kUsage);
  } catch (const InputError& e) {
    std::cerr << "rankone: error: " << e.what() << "\n";
    return stop_on_error(2);
  } catch (const std::exception& e) {
    std::cerr << "rankone: runtime failure: " << e.what() << "\n";
    return stop_on_error(1);
  }
}
