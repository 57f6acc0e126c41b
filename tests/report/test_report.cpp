// rankone report: the HTML page of a results folder — self-contained, every plot an inline SVG
// that draws, tables with one row per sweep cell × estimator in numeric order, the provenance of
// the runs, the explorer's data, errors from gnuplot and bad options surfaced.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "rankone/store/summary.hpp"
#include "report_fixtures.hpp"

using namespace rankone;
using namespace report_test;
using Catch::Matchers::Contains;

TEST_CASE("report of a 2-D spectral sweep: heat map, final values, per-repetition plots, tables in numeric order", "[report]") {
  const fs::path html_file = scratch() / "spectral.html";
  write_report(spectral_results(), html_file, ReportOptions{});
  const std::string html = read_file(html_file);
  require_self_contained(html);

  // One heat map (one label); for each of the two numeric axes one final-value panel with a curve
  // per value of the other axis; per repetition, a panel per batch size with groups along data.d.
  // Spectral is one-shot (no curves), and one label has nothing to pair with.
  const auto heatmaps = svgs(part(html, "s0-phase"));
  REQUIRE(heatmaps.size() == 1);
  CHECK(svgs(part(html, "s0-sweeps")).size() == 2);
  CHECK(svgs(part(html, "s0-finals")).size() == 3);
  CHECK_THAT(part(html, "s0-finals"), Contains("estimators.0.batch_size = 10000"));
  CHECK(count(html, "id=\"s0-paired\"") == 0);
  CHECK_THAT(html, Contains("estimators.0.batch_size = 10000</span>"));
  CHECK_THAT(html, Contains("data.d = 32</span>"));
  CHECK_THAT(html, Contains("Phase transition: success rate (combined_error &lt; 0.3)"));
  CHECK_THAT(html, Contains("final combined_error vs data.d"));
  CHECK_THAT(html, Contains("final combined_error vs estimators.0.batch_size"));
  CHECK_THAT(html, Contains("final combined_error per repetition"));
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
  const std::string& heatmap = heatmaps[0];
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

  // Summary table: a header and one row per cell × label, rows in the sweep's numeric order.
  const std::string table = section(html, "<table class=\"summary\" data-metric=\"combined_error\"", "</table>");
  CHECK(count(table, "<tr>") == 1 + 9);
  CHECK_THAT(table, Contains("<th>success rate</th>"));
  CHECK_THAT(table, Contains("<th>data.d</th>"));
  CHECK_THAT(table, Contains("<th>CI of</th>"));
  std::vector<std::string> first_columns;
  const std::regex row(R"(<tr><td class="num">(\d+)</td><td class="num">(\d+)</td>)");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it)
    first_columns.push_back(std::string((*it)[1]) + "/" + std::string((*it)[2]));
  CHECK(first_columns == std::vector<std::string>{"8/100", "8/1000", "8/10000", "16/100", "16/1000", "16/10000", "32/100",
                                                  "32/1000", "32/10000"});
  // Bookkeeping metrics get tables but no plots.
  CHECK(count(html, "data-metric=\"samples\"") == 0);

  // Trials table: 27 trials, all converged.
  const std::string status = section(html, "<table class=\"status\"", "</table>");
  CHECK_THAT(status, Contains("<td class=\"num\">27</td>"));

  // Text from the experiment is escaped.
  CHECK_THAT(html, Contains("Spectral recovery &lt;d × n&gt; &amp; success"));
  CHECK(count(html, "<d × n>") == 0);
}

TEST_CASE("report: the provenance of the runs and of the trials' code", "[report][provenance]") {
  const ResultsStore store(spectral_results());
  const auto runs = store.runs();
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].trials == 27);
  CHECK(runs[0].status == "completed");
  CHECK(runs[0].git_commit == BuildInfo::git_commit());
  CHECK(runs[0].libraries["rankone"] == BuildInfo::libraries()["rankone"]);

  const fs::path html_file = scratch() / "provenance.html";
  write_report(spectral_results(), html_file, ReportOptions{});
  const std::string provenance = part(read_file(html_file), "s0-provenance");
  CHECK_THAT(provenance, Contains(BuildInfo::git_commit()));
  CHECK_THAT(provenance, Contains(BuildInfo::compiler()));
  CHECK_THAT(provenance, Contains(BuildInfo::flags()));
  CHECK_THAT(provenance, Contains(BuildInfo::host()));
  CHECK_THAT(provenance, Contains("<td>" + BuildInfo::libraries()["rankone"].get<std::string>() + "</td>"));
  CHECK_THAT(provenance, Contains("eigen "));
  // The code of the 27 trials: the core and the spectral plugin, with their fingerprints.
  const std::string code = section(provenance, "<table class=\"code\">", "</table>");
  CHECK_THAT(code, Contains("<td>core</td>"));
  CHECK_THAT(code, Contains("<td>spectral</td>"));
  CHECK_THAT(code, Contains("xxh3-128:"));
  CHECK_THAT(code, Contains("<td class=\"num\">27</td>"));
}

TEST_CASE("report: the explorer's data and script are inline; --static leaves both out", "[report][explorer]") {
  const fs::path html_file = scratch() / "explorer.html";
  write_report(iterative_results(), html_file, ReportOptions{});
  const std::string html = read_file(html_file);
  require_self_contained(html);
  CHECK(count(html, "<div class=\"explorer\"") == 1);
  CHECK_THAT(html, Contains("rankoneModule(\"vega-view\")"));
  const auto data = explorer_data(html);
  REQUIRE(data.size() == 1);
  const Json& d = data[0];
  CHECK(d["labels"] == Json::array({"fast", "slow <b>&"}));
  CHECK(d["metrics"] == Json::array({"rel_error"}));
  CHECK(d["quantities"] == Json::array({"rel_error", "samples to target", "seconds to target"}));
  CHECK(d["axes"] == Json::parse(R"([{"name": "data.d", "texts": ["20", "40"]}])"));
  // 2 cells × 2 labels × 61 iterations; 20 trials' final values, and the 19 that reached 1e-2
  // (the diverged one reached it too: its points are the same) twice (samples and seconds).
  CHECK(d["curves"]["median"].size() == 2 * 2 * 61);
  CHECK(d["finals"]["value"].size() == 20 + 2 * 20);
  // Labels reach the data escaped for a <script> element (still the same JSON).
  CHECK(count(html, "slow <b>&") == 0);
  CHECK_THAT(html, Contains("slow \\u003cb\\u003e\\u0026"));

  ReportOptions static_page;
  static_page.interactive = false;
  write_report(iterative_results(), html_file, static_page);
  const std::string without = read_file(html_file);
  require_self_contained(without);
  CHECK(count(without, "<script") == 0);
  CHECK_THAT(without, Contains("No interactive explorer"));

  // Without Vega's modules the page is still written, with the reason instead of the explorer.
  ReportOptions no_vega;
  no_vega.vega_dir = scratch() / "no-such-vega";
  write_report(iterative_results(), html_file, no_vega);
  const std::string missing = read_file(html_file);
  CHECK(count(missing, "<script") == 0);
  CHECK_THAT(missing, Contains("No interactive explorer: ") && Contains("libjs-vega"));
}

TEST_CASE("report of an iterative study: curves with bands on a log axis, escaped labels, failures listed", "[report]") {
  const fs::path html_file = scratch() / "iterative.html";
  ReportOptions options;
  options.x_axes = {"iteration", "samples", "seconds"};
  write_report(iterative_results(), html_file, options);
  const std::string html = read_file(html_file);
  require_self_contained(html);

  // 1-D sweep: one panel for the final values across it and one per repetition, one per quantity
  // to the target (samples, seconds) and paired against "fast" (rel_error, samples, seconds),
  // then per x axis one curve panel per cell.
  CHECK(svgs(part(html, "s0-sweeps")).size() == 1);
  CHECK(svgs(part(html, "s0-finals")).size() == 1);
  CHECK(svgs(part(html, "s0-targets")).size() == 2);
  CHECK(svgs(part(html, "s0-paired")).size() == 3);
  CHECK(svgs(part(html, "s0-curves")).size() == 3 * 2);
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

  // Samples to the target: every trial reached rel_error < 1e-2, so each group says 5/5.
  CHECK(count(part(html, "s0-targets"), ">5/5<") == 2 * 2 * 2);

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
    store.end_run(run, "completed");
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

  // Both runs are in the provenance, each with the trials it wrote.
  const auto runs = store.runs();
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].trials == 2);
  CHECK(runs[1].trials == 3);
}

TEST_CASE("report of a folder of studies has one section per study", "[report]") {
  spectral_results();
  iterative_results();
  const fs::path html_file = scratch() / "all.html";
  write_report(scratch() / "studies", html_file, ReportOptions{});
  const std::string html = read_file(html_file);
  require_self_contained(html);
  CHECK(count(html, "<section class=\"study\"") == 2);
  CHECK(count(html, "<div class=\"explorer\"") == 2);
  CHECK_THAT(html, Contains("<title>RankOne report: iterative, spectral-phase</title>"));
  // Ids (of the SVGs' parts, sections and explorers) are unique across the page.
  const std::string markup = markup_of(html);
  std::set<std::string> ids;
  const std::regex id(R"( id=['"]([^'"]+)['"])");
  std::size_t n = 0;
  for (auto it = std::sregex_iterator(markup.begin(), markup.end(), id); it != std::sregex_iterator(); ++it, ++n)
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
  ReportOptions unknown_baseline;
  unknown_baseline.baseline = "fastest";
  CHECK_THROWS_AS(write_report(iterative_results(), out, unknown_baseline), UsageError);
  CHECK_THROWS_WITH(write_report(iterative_results(), out, unknown_baseline),
                    Contains("--baseline fastest") && Contains("labels: fast, slow <b>&"));

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

TEST_CASE("rankone report: an unknown --baseline is bad input (exit 2); a known one heads the comparison", "[report][cli]") {
  const std::string dir = iterative_results().string();
  const auto unknown = test::rankone_cli("report " + dir + " --out " + (scratch() / "cli.html").string() + " --baseline nope");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Contains("--baseline nope: no estimator has this label (labels: fast, slow <b>&)"));
  const auto chosen = test::rankone_cli("report " + dir + " --out " + (scratch() / "cli.html").string() +
                                        " --baseline 'slow <b>&' --static");
  INFO(chosen.text);
  REQUIRE(chosen.code == 0);
  const std::string html = read_file(scratch() / "cli.html");
  CHECK_THAT(html, Contains("Paired comparison against slow &lt;b&gt;&amp;"));
  CHECK(count(html, "<script") == 0);
}

// Its speed is measured by benchmarks/bench_study_scale (never by a timed test).
TEST_CASE("the report of 10 000 trials and a million points stays aggregated", "[report][scale]") {
  const fs::path dir = scratch() / "large";
  // 10 cells × 500 repetitions × 2 labels = 10 000 trials of 100 points.
  write_iterative_study(dir, 10, 500, 99, {"fast", "slow"});
  write_report(dir, scratch() / "large.html", ReportOptions{});
  const std::string html = read_file(scratch() / "large.html");
  require_self_contained(html);
  CHECK(html.size() < 4'000'000);  // aggregated, dots thinned: the page does not grow with the repetitions
}

// Not run by default: writes the page the browser test (browser_test.sh) renders.
TEST_CASE("write the page for the browser test", "[.browser]") {
  const char* out = std::getenv("RANKONE_REPORT_OUT");
  REQUIRE(out);
  spectral_results();
  iterative_results();
  write_report(scratch() / "studies", out, ReportOptions{});
}
