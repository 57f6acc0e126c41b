// rankone report: the HTML page of a results folder — self-contained, every plot an inline SVG
// that draws, tables with one row per sweep cell × estimator, errors from gnuplot surfaced.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "rankone/report/report.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/summary.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

/// A scratch folder shared by the test cases of this process, removed at exit.
const fs::path& scratch() {
  struct Folder {
    fs::path dir = fs::temp_directory_path() / ("rankone_report_tests_" + std::to_string(::getpid()));
    Folder() { fs::create_directories(dir); }
    ~Folder() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  };
  static const Folder folder;
  return folder.dir;
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

/// The inline SVG elements of a page, in order.
std::vector<std::string> svgs(const std::string& html) {
  std::vector<std::string> out;
  for (std::size_t pos = html.find("<svg"); pos != std::string::npos; pos = html.find("<svg", pos + 1)) {
    const std::size_t end = html.find("</svg>", pos);
    REQUIRE(end != std::string::npos);
    out.push_back(html.substr(pos, end + 6 - pos));
  }
  return out;
}

/// The text from the first occurrence of `start` to the next `end` (inclusive).
std::string section(const std::string& html, const std::string& start, const std::string& end) {
  const std::size_t a = html.find(start);
  REQUIRE(a != std::string::npos);
  const std::size_t b = html.find(end, a);
  REQUIRE(b != std::string::npos);
  return html.substr(a, b + end.size() - a);
}

// A spectral study over a 2-D sweep (dimension × batch size): the CLI writes the results folder.
const char* kSpectralSweep = R"({
  "name": "spectral-phase",
  "description": "Spectral recovery <d × n> & success",
  "seed": 11,
  "repetitions": 3,
  "data": {"name": "synthetic", "d": 10, "rank": 1, "w_norm": 1,
           "operator": {"name": "symmetric_rank_one", "first_order": true}},
  "estimators": [{"name": "spectral", "label": "spectral", "rank": 1, "batch_size": 200}],
  "metrics": ["combined_error", "samples", "seconds"],
  "sweep": {"grid": {"data.d": [8, 16, 32], "estimators.0.batch_size": [100, 1000, 10000]}},
  "success": {"metric": "combined_error", "below": 0.3}
})";

const fs::path& spectral_results() {
  static const fs::path dir = [] {
    const fs::path out = scratch() / "studies" / "spectral-phase";
    const fs::path file = scratch() / "spectral-phase.json";
    std::ofstream(file) << kSpectralSweep;
    const std::string cmd = (test::binary_dir() / "bin" / "rankone").string() + " run " + file.string() + " --out " +
                            out.string() + " --jobs 2 --quiet 2>&1";
    std::string text;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    char buf[4096];
    while (std::size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
    const int status = pclose(p);
    INFO(text);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    return out;
  }();
  return dir;
}

/// An iterative study written straight into a store: `rel_error` decays geometrically over
/// `iterations` (over three decades), each label at its own rate, repetitions scattered by ±10 %.
void write_iterative_study(const fs::path& dir, int cells, int repetitions, int iterations,
                           const std::vector<std::string>& labels) {
  ResultsStore store(dir);
  Json grid = Json::array();
  for (int c = 0; c < cells; ++c) grid.push_back(20 * (c + 1));
  Json estimators = Json::array();
  for (const auto& l : labels) estimators.push_back({{"name", "descent"}, {"label", l}});
  const Json experiment = {{"name", "iterative"}, {"repetitions", repetitions}, {"estimators", estimators},
                           {"sweep", {{"grid", {{"data.d", grid}}}}}, {"success", {{"metric", "rel_error"}, {"below", 1e-2}}}};
  const std::int64_t run = store.begin_run(RunInfo{experiment, "iterative.json", "test"});
  for (int c = 0; c < cells; ++c)
    for (int r = 0; r < repetitions; ++r)
      for (std::size_t l = 0; l < labels.size(); ++l) {
        TrialRecord t;
        t.key = std::to_string(c) + "/" + std::to_string(r) + "/" + labels[l];
        t.cell = static_cast<std::size_t>(c);
        t.coordinates = {{"data.d", grid[c]}};
        t.repetition = r;
        t.estimator = "descent";
        t.label = labels[l];
        t.status = l == 0 && r == 0 && c == 0 ? "diverged" : "converged";
        t.message = t.status == "diverged" ? "error grew past 1e6 <bound>" : "";
        t.iterations = iterations;
        const double rate = std::log(1000.0) / iterations * (1.0 + static_cast<double>(l));
        const double scatter = 1.0 + 0.1 * std::sin(1.7 * r + 0.3 * c);
        for (int it = 0; it <= iterations; ++it)
          t.points.push_back(Point{it, 100 * static_cast<Index>(it + 1), 1e-3 * it, "rel_error", scatter * std::exp(-rate * it)});
        t.samples = t.points.back().samples;
        store.write_trial(run, t);
      }
  store.end_run(run, "complete");
}

const fs::path& iterative_results() {
  static const fs::path dir = [] {
    const fs::path out = scratch() / "studies" / "iterative";
    write_iterative_study(out, 2, 5, 60, {"fast", "slow <b>&"});
    return out;
  }();
  return dir;
}

/// Checks what every report must satisfy: no network references, no scripts, and every plot an
/// inline SVG that draws paths.
void require_self_contained(const std::string& html) {
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "http://") == 0);
  CHECK(count(html, "https://") == 0);
  CHECK(count(html, "<script") == 0);
  CHECK(count(html, "<link") == 0);
  CHECK(count(html, "<img") == 0);
  CHECK(count(html, "<?xml") == 0);
  const auto plots = svgs(html);
  CHECK(plots.size() == count(html, "</svg>"));
  const std::regex drawn_path(R"(<path[^>]* d=['"]M[^'"]*[LlHhVvCc][^'"]*['"])");
  for (const auto& svg : plots) CHECK(std::regex_search(svg, drawn_path));
}

}  // namespace

TEST_CASE("report of a 2-D spectral sweep: heat map, final values per axis, summary tables", "[report]") {
  const fs::path html_file = scratch() / "spectral.html";
  write_report(spectral_results(), html_file, ReportOptions{});
  const std::string html = read_file(html_file);
  require_self_contained(html);

  // One heat map (one label) and, for each of the two numeric axes, one final-value panel with a
  // curve per value of the other axis; spectral is one-shot, so no curves against iterations.
  const auto plots = svgs(html);
  CHECK(plots.size() == 1 + 1 + 1);
  CHECK_THAT(html, Contains("estimators.0.batch_size = 10000</span>"));
  CHECK_THAT(html, Contains("data.d = 32</span>"));
  CHECK_THAT(html, Contains("Phase transition: success rate (combined_error &lt; 0.3)"));
  CHECK_THAT(html, Contains("final combined_error vs data.d"));
  CHECK_THAT(html, Contains("final combined_error vs estimators.0.batch_size"));
  CHECK_THAT(html, Contains("No curves against iteration, samples"));

  // The heat map prints each cell's success rate: the same numbers as `rankone summarize`.
  ResultsStore store(spectral_results());
  const auto rows = summarize(store, SummaryOptions{});
  std::vector<std::string> expected;
  for (const auto& r : rows)
    if (r.metric == "combined_error") {
      REQUIRE(r.success_rate);
      char buf[16];
      std::snprintf(buf, sizeof buf, "%.2f", *r.success_rate);
      expected.push_back(buf);
    }
  REQUIRE(expected.size() == 9);
  const std::string& heatmap = plots[0];
  std::vector<std::string> printed;
  const std::regex rate_text(R"(>([01]\.\d\d)</(tspan|text)>)");
  for (auto it = std::sregex_iterator(heatmap.begin(), heatmap.end(), rate_text); it != std::sregex_iterator(); ++it)
    printed.push_back((*it)[1]);
  std::sort(expected.begin(), expected.end());
  std::sort(printed.begin(), printed.end());
  CHECK(printed == expected);
  // Not a degenerate study: the threshold separates the cells.
  CHECK(expected.front() == "0.00");
  CHECK(expected.back() == "1.00");

  // Summary table: a header and one row per cell × label; the success columns for the success metric.
  const std::string table = section(html, "<table class=\"summary\" data-metric=\"combined_error\"", "</table>");
  CHECK(count(table, "<tr>") == 1 + 9);
  CHECK_THAT(table, Contains("<th>success rate</th>"));
  CHECK_THAT(table, Contains("<th>data.d</th>"));
  // Bookkeeping metrics get tables but no plots.
  CHECK(count(html, "data-metric=\"samples\"") == 0);

  // Trials table: 27 trials, all converged.
  const std::string status = section(html, "<table class=\"status\"", "</table>");
  CHECK_THAT(status, Contains("<td class=\"num\">27</td>"));

  // Text from the experiment is escaped.
  CHECK_THAT(html, Contains("Spectral recovery &lt;d × n&gt; &amp; success"));
  CHECK(count(html, "<d × n>") == 0);
}

TEST_CASE("report of an iterative study: curves with bands on a log axis, escaped labels, failures listed", "[report]") {
  const fs::path html_file = scratch() / "iterative.html";
  ReportOptions options;
  options.x_axes = {"iteration", "samples", "seconds"};
  write_report(iterative_results(), html_file, options);
  const std::string html = read_file(html_file);
  require_self_contained(html);

  // 1-D sweep: one final-value figure (one panel), then per x axis one panel per cell.
  CHECK(svgs(html).size() == 1 + 3 * 2);
  for (const char* x : {"iteration", "samples", "seconds"}) CHECK_THAT(html, Contains(std::string("rel_error vs ") + x));
  CHECK_THAT(html, Contains("data.d = 20"));
  CHECK_THAT(html, Contains("data.d = 40"));
  CHECK_THAT(html, Contains("Median and 10–90 % quantiles over 5 repetitions"));

  // The errors span three decades: a log y axis (ticks labelled 10^k), and a
  // translucent band per label.
  const std::string curves = section(html, "rel_error vs iteration</h3>", "rel_error vs samples</h3>");
  const auto panels = svgs(curves);
  REQUIRE(panels.size() == 2);
  CHECK(std::regex_search(panels[0], std::regex(R"(>10</tspan><tspan[^>]*>-[1-6]</tspan>)")));
  CHECK(count(panels[0], "fill-opacity") >= 2);
  CHECK(count(panels[0], "#1f77b4") + count(panels[0], "rgb( 31, 119, 180)") > 0);

  // Labels are escaped in the legend and the tables; the diverged trial is listed with its message.
  CHECK_THAT(html, Contains("slow &lt;b&gt;&amp;"));
  CHECK(count(html, "slow <b>&") == 0);
  CHECK_THAT(html, Contains("error grew past 1e6 &lt;bound&gt;"));
  const std::string table = section(html, "<table class=\"summary\" data-metric=\"rel_error\"", "</table>");
  CHECK(count(table, "<tr>") == 1 + 2 * 2);
}

TEST_CASE("a folder resumed with a changed sweep keeps the configurations of both plans apart", "[report][store]") {
  // Two runs whose plans both number their cells from 0, with different coordinates. In a folder
  // of its own: the other cases count the studies below scratch(), in any test order.
  test::ScratchDir own("changed_grid");
  const fs::path dir = own.path() / "changed-grid";
  ResultsStore store(dir);
  const auto write_run = [&](const std::vector<int>& sizes) {
    const Json experiment = {{"name", "grid"}, {"estimators", Json::array({{{"name", "descent"}}})},
                             {"sweep", {{"grid", {{"data.d", sizes}}}}}};
    const std::int64_t run = store.begin_run(RunInfo{experiment, "grid.json", "test"});
    for (std::size_t c = 0; c < sizes.size(); ++c) {
      TrialRecord t;
      t.key = "d=" + std::to_string(sizes[c]);
      t.cell = c;
      t.coordinates = {{"data.d", sizes[c]}};
      t.estimator = t.label = "descent";
      t.status = "converged";
      t.points.push_back(Point{0, 1, 0.0, "rel_error", static_cast<double>(sizes[c])});
      store.write_trial(run, t);
    }
    store.end_run(run, "complete");
  };
  write_run({10, 20});
  write_run({30, 40, 50});

  const auto trials = store.trials(false);
  std::map<std::size_t, std::set<std::string>> coordinates_of_cell;
  for (const auto& t : trials) coordinates_of_cell[t.cell].insert(t.coordinates.dump());
  CHECK(coordinates_of_cell.size() == 5);
  for (const auto& [cell, coordinates] : coordinates_of_cell) CHECK(coordinates.size() == 1);

  const auto rows = summarize(store, SummaryOptions{});
  REQUIRE(rows.size() == 5);
  for (const auto& r : rows) CHECK(r.mean == r.coordinates["data.d"].get<double>());
}

TEST_CASE("report of a folder of studies has one section per study", "[report]") {
  spectral_results();
  iterative_results();
  const fs::path html_file = scratch() / "all.html";
  write_report(scratch() / "studies", html_file, ReportOptions{});
  const std::string html = read_file(html_file);
  require_self_contained(html);
  CHECK(count(html, "<section class=\"study\"") == 2);
  CHECK_THAT(html, Contains("<title>RankOne report: iterative, spectral-phase</title>"));
  // Ids inside the SVGs are unique across the page.
  std::set<std::string> ids;
  const std::regex id(R"( id=['"]([^'"]+)['"])");
  std::size_t n = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), id); it != std::sregex_iterator(); ++it, ++n)
    ids.insert((*it)[1]);
  CHECK(ids.size() == n);
}

TEST_CASE("report options and inputs are checked; gnuplot failures carry its stderr", "[report]") {
  const fs::path out = scratch() / "bad.html";
  CHECK_THROWS_AS(write_report(scratch() / "no-such-folder", out, ReportOptions{}), InputError);
  const fs::path empty = scratch() / "empty";  // not scratch(): other cases leave results folders there
  fs::create_directories(empty);
  CHECK_THROWS_AS(write_report(empty, out / "x", ReportOptions{}), InputError);  // no database below

  ReportOptions unknown_metric;
  unknown_metric.metrics = {"auc"};
  CHECK_THROWS_WITH(write_report(iterative_results(), out, unknown_metric), Contains("recorded: rel_error"));
  ReportOptions half_threshold;
  half_threshold.success_metric = "rel_error";
  CHECK_THROWS_AS(write_report(iterative_results(), out, half_threshold), UsageError);
  ReportOptions bad_axis;
  bad_axis.x_axes = {"time"};
  CHECK_THROWS_WITH(write_report(iterative_results(), out, bad_axis), Contains("iteration, samples or seconds"));
  ReportOptions bad_band;
  bad_band.band_quantile = 0.5;
  CHECK_THROWS_AS(write_report(iterative_results(), out, bad_band), UsageError);

  const fs::path fake = scratch() / "fake-gnuplot";
  std::ofstream(fake) << "#!/bin/sh\necho 'line 3: boom: undefined variable' >&2\nexit 3\n";
  fs::permissions(fake, fs::perms::owner_all);
  ReportOptions failing;
  failing.gnuplot = fake;
  CHECK_THROWS_WITH(write_report(iterative_results(), out, failing),
                    Contains("exit status 3") && Contains("boom: undefined variable"));
  ReportOptions missing;
  missing.gnuplot = scratch() / "no-such-gnuplot";
  CHECK_THROWS_WITH(write_report(iterative_results(), out, missing), Contains("cannot run gnuplot"));
  CHECK_FALSE(fs::exists(out));
}


// Its speed is measured by benchmarks/bench_study_scale (never by a timed test).
TEST_CASE("the report of 10 000 trials and a million points stays aggregated", "[report][scale]") {
  const fs::path dir = scratch() / "large";
  // 10 cells × 500 repetitions × 2 labels = 10 000 trials of 100 points.
  write_iterative_study(dir, 10, 500, 99, {"fast", "slow"});
  write_report(dir, scratch() / "large.html", ReportOptions{});
  const std::string html = read_file(scratch() / "large.html");
  require_self_contained(html);
  CHECK(html.size() < 4'000'000);  // aggregated: the page does not grow with the repetitions
}

// Not run by default: writes the page the browser test (browser_test.sh) renders.
TEST_CASE("write the page for the browser test", "[.browser]") {
  const char* out = std::getenv("RANKONE_REPORT_OUT");
  REQUIRE(out);
  spectral_results();
  iterative_results();
  write_report(scratch() / "studies", out, ReportOptions{});
}
