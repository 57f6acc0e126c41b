// The numbers behind the report: confidence intervals that respect a positive metric's scale,
// ratios of paired trials against a baseline, and sweep values in numeric order.
#include <catch2/catch.hpp>

#include "rankone/report/paired.hpp"
#include "rankone/store/summary.hpp"
#include "report_fixtures.hpp"

using namespace rankone;
using namespace report_test;
using Catch::Matchers::Contains;

namespace {

/// Mean and sample standard deviation, by hand.
std::pair<double, double> mean_sd(const std::vector<double>& v) {
  double sum = 0.0;
  for (double x : v) sum += x;
  const double mean = sum / static_cast<double>(v.size());
  double squares = 0.0;
  for (double x : v) squares += (x - mean) * (x - mean);
  return {mean, std::sqrt(squares / static_cast<double>(v.size() - 1))};
}

/// One trial of a hand-written study: `finals` as its only points (iteration 0), or its points.
TrialRecord trial(std::size_t cell, const Json& coordinates, int repetition, const std::string& label,
                  std::vector<Point> points) {
  TrialRecord t;
  t.key = std::to_string(cell) + "/" + std::to_string(repetition) + "/" + label;
  t.cell = cell;
  t.coordinates = coordinates;
  t.repetition = repetition;
  t.estimator = "descent";
  t.label = label;
  t.status = points.empty() ? "failed" : "converged";
  t.points = std::move(points);
  return t;
}

}  // namespace

TEST_CASE("interval_95: Student t for the mean, on log scale for positive values spanning decades", "[report][summary]") {
  // Errors over four decades: the t-interval of the mean reaches below zero.
  const std::vector<double> spread = {1e-6, 1e-4, 1e-2};
  const auto [mean, sd] = mean_sd(spread);
  REQUIRE(mean - 4.303 * sd / std::sqrt(3.0) < 0.0);
  const Interval95 log_ci = interval_95(spread);
  CHECK(log_ci.log_scale);
  CHECK(log_ci.low > 0.0);
  std::vector<double> logs;
  for (double v : spread) logs.push_back(std::log(v));
  const auto [log_mean, log_sd] = mean_sd(logs);
  CHECK(log_ci.centre == Approx(1e-4).epsilon(1e-12));  // the geometric mean
  CHECK(log_ci.low == Approx(std::exp(log_mean - 4.303 * log_sd / std::sqrt(3.0))).epsilon(1e-12));
  CHECK(log_ci.high == Approx(std::exp(log_mean + 4.303 * log_sd / std::sqrt(3.0))).epsilon(1e-12));

  // Positive and narrow: the usual interval of the mean.
  const std::vector<double> narrow = {0.50, 0.52, 0.49};
  const auto [narrow_mean, narrow_sd] = mean_sd(narrow);
  const Interval95 t_ci = interval_95(narrow);
  CHECK_FALSE(t_ci.log_scale);
  CHECK(t_ci.low == Approx(narrow_mean - 4.303 * narrow_sd / std::sqrt(3.0)).epsilon(1e-12));
  // Within a decade, but a t-interval that would reach zero: on log scale too.
  CHECK(interval_95({0.001, 0.005}).log_scale);
  CHECK(interval_95({0.001, 0.005}).low > 0.0);
  // A metric with negative values keeps the interval of the mean, whatever its sign.
  CHECK_FALSE(interval_95({-1.0, 10.0, 100.0}).log_scale);
  // One value: the value itself.
  CHECK(interval_95({0.25}).low == 0.25);
}

TEST_CASE("summarize and the report: a positive metric spanning decades never has a negative lower bound",
          "[report][summary]") {
  test::ScratchDir s("log_ci");
  const fs::path dir = s.path() / "decades";
  {
    ResultsStore store(dir);
    const Json experiment = {{"name", "decades"}, {"estimators", Json::array({{{"name", "descent"}}})}};
    const std::int64_t run = store.begin_run(RunInfo{experiment, "decades.json", "test"});
    int r = 0;
    for (double v : {1e-9, 3e-6, 1e-3, 2e-1})
      store.write_trial(run, trial(0, Json::object(), r++, "descent", {Point{0, 1, 0.0, "rel_error", v}}));
    store.end_run(run, "completed");
  }
  const auto rows = summarize(ResultsStore(dir), SummaryOptions{});
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].ci_log_scale);
  CHECK(rows[0].ci_low > 0.0);
  CHECK(rows[0].ci_low < *rows[0].geometric_mean);
  CHECK(rows[0].ci_high > *rows[0].geometric_mean);
  std::ostringstream json;
  write_summary(rows, "json", json);
  CHECK_THAT(json.str(), Contains("\"ci95_of\": \"geometric_mean\""));

  write_report(dir, s.path() / "decades.html", ReportOptions{});
  const std::string table = section(read_file(s.path() / "decades.html"), "<table class=\"summary\"", "</table>");
  CHECK_THAT(table, Contains("<td>geometric mean</td>"));
  CHECK(count(table, "[-") == 0);  // no negative lower bound printed
}

TEST_CASE("paired ratios: each label's outcome over the baseline's on the same cell and repetition", "[report][paired]") {
  // Two cells × three repetitions; "base" first (the default baseline), "fast" and "slow" compared.
  // rel_error finals and the first point below 0.1 (success) are chosen by hand; slow's third
  // repetition of cell 1 failed (no points): that pair is left out.
  test::ScratchDir s("paired");
  const fs::path dir = s.path() / "paired";
  const std::map<std::string, std::vector<std::vector<double>>> finals = {
      {"base", {{0.04, 0.02, 0.08}, {0.05, 0.01, 0.02}}},
      {"fast", {{0.01, 0.01, 0.02}, {0.005, 0.002, 0.01}}},
      {"slow", {{0.08, 0.06, 0.08}, {0.09, 0.05, -1.0}}},  // -1: the failed trial
  };
  // The samples at which each trial first went below 0.1: base at 400, fast at 100, slow at 800.
  const std::map<std::string, Index> samples_to_target = {{"base", 400}, {"fast", 100}, {"slow", 800}};
  {
    ResultsStore store(dir);
    const Json experiment = {{"name", "paired"},
                             {"repetitions", 3},
                             {"estimators", Json::array({{{"name", "descent"}, {"label", "base"}},
                                                         {{"name", "descent"}, {"label", "fast"}},
                                                         {{"name", "descent"}, {"label", "slow"}}})},
                             {"sweep", {{"grid", {{"data.d", {10, 20}}}}}},
                             {"success", {{"metric", "rel_error"}, {"below", 0.1}}}};
    const std::int64_t run = store.begin_run(RunInfo{experiment, "paired.json", "test"});
    for (const auto& [label, by_cell] : finals)
      for (std::size_t c = 0; c < 2; ++c)
        for (int r = 0; r < 3; ++r) {
          const double v = by_cell[c][static_cast<std::size_t>(r)];
          std::vector<Point> points;
          if (v > 0.0) {
            const Index n = samples_to_target.at(label);
            points = {Point{0, n / 2, 0.5, "rel_error", 0.5}, Point{1, n, 1.0, "rel_error", 0.09},
                      Point{2, 2 * n, 2.0, "rel_error", v}};
          }
          store.write_trial(run, trial(c, {{"data.d", c == 0 ? 10 : 20}}, r, label, points));
        }
    store.end_run(run, "completed");
  }

  ResultsStore store(dir);
  std::vector<TrialOutcome> outcomes;
  for (const auto& t : store.trials(true)) outcomes.push_back(outcome_of(t, std::string("rel_error"), 0.1));
  const auto ratios = paired_ratios(outcomes, "base", "rel_error");
  std::map<std::tuple<std::string, std::size_t, int>, double> by_pair;
  for (const auto& r : ratios) by_pair[{r.label, r.cell, r.repetition}] = r.ratio;
  CHECK(by_pair.size() == 6 + 5);
  for (const std::string label : {"fast", "slow"})
    for (std::size_t c = 0; c < 2; ++c)
      for (int r = 0; r < 3; ++r) {
        const double v = finals.at(label)[c][static_cast<std::size_t>(r)];
        CAPTURE(label, c, r);
        if (v < 0.0) CHECK(by_pair.count({label, c, r}) == 0);
        else CHECK(by_pair.at({label, c, r}) == v / finals.at("base")[c][static_cast<std::size_t>(r)]);
      }
  // Samples to the target: 100/400 and 800/400 for every pair that has both.
  for (const auto& r : paired_ratios(outcomes, "base", kSamplesToTarget)) CHECK(r.ratio == (r.label == "fast" ? 0.25 : 2.0));
  CHECK(paired_ratios(outcomes, "base", kSecondsToTarget).size() == 6 + 5);

  // The report's table: the geometric mean of fast's six rel_error ratios over all cells.
  write_report(dir, s.path() / "paired.html", ReportOptions{});
  const std::string html = read_file(s.path() / "paired.html");
  CHECK_THAT(html, Contains("Paired comparison against base"));
  double log_sum = 0.0;
  for (std::size_t c = 0; c < 2; ++c)
    for (std::size_t r = 0; r < 3; ++r) log_sum += std::log(finals.at("fast")[c][r] / finals.at("base")[c][r]);
  const std::regex all_cells(
      R"re(<tr class="all" data-quantity="rel_error" data-label="fast">.*?<td class="num">(\d+)</td><td class="num" data-value="([^"]+)">)re");
  std::smatch match;
  REQUIRE(std::regex_search(html, match, all_cells));
  CHECK(match[1] == "6");
  CHECK(std::stod(match[2]) == Approx(std::exp(log_sum / 6.0)).epsilon(1e-12));
  CHECK_THAT(html, Contains("<tr class=\"all\" data-quantity=\"samples to target\" data-label=\"fast\">"));

  // Another baseline turns the comparison around.
  ReportOptions against_fast;
  against_fast.baseline = "fast";
  write_report(dir, s.path() / "paired.html", against_fast);
  const std::string turned = read_file(s.path() / "paired.html");
  CHECK_THAT(turned, Contains("Paired comparison against fast"));
  REQUIRE(std::regex_search(turned, match, std::regex(
      R"re(<tr class="all" data-quantity="rel_error" data-label="base">.*?<td class="num" data-value="([^"]+)">)re")));
  CHECK(std::stod(match[1]) == Approx(std::exp(-log_sum / 6.0)).epsilon(1e-12));
}

TEST_CASE("report: sweep values in numeric order in heat maps, tables and the explorer", "[report][order]") {
  // The plan lists data.d as 100, 20, 3 and the noise levels as strings "1e-1", "1e-3", "1e-2": by
  // text they would sort 100 < 20 < 3 and "1e-1" < "1e-2" < "1e-3".
  test::ScratchDir s("numeric_order");
  const fs::path dir = s.path() / "order";
  const std::vector<int> sizes = {100, 20, 3};
  const std::vector<std::string> noises = {"1e-1", "1e-3", "1e-2"};
  {
    ResultsStore store(dir);
    const Json experiment = {{"name", "order"},
                             {"estimators", Json::array({{{"name", "descent"}}})},
                             {"sweep", {{"grid", {{"data.d", sizes}, {"data.noise", noises}}}}},
                             {"success", {{"metric", "rel_error"}, {"below", 0.5}}}};
    const std::int64_t run = store.begin_run(RunInfo{experiment, "order.json", "test"});
    std::size_t cell = 0;
    for (int d : sizes)
      for (const auto& noise : noises) {
        // The error grows with the noise: success below 0.5 for 1e-3 and 1e-2 only.
        const double error = std::stod(noise) * 5.0;
        store.write_trial(run, trial(cell++, {{"data.d", d}, {"data.noise", noise}}, 0, "descent",
                                     {Point{0, 1, 0.0, "rel_error", error}}));
      }
    store.end_run(run, "completed");
  }
  write_report(dir, s.path() / "order.html", ReportOptions{});
  const std::string html = read_file(s.path() / "order.html");

  // Heat map: x = data.d, y = data.noise (the varying axes by name); ticks in numeric order.
  const auto heatmap = svgs(part(html, "s0-phase"));
  REQUIRE(heatmap.size() == 1);
  std::vector<std::string> size_ticks, noise_ticks;
  for (const auto& text : svg_texts(heatmap[0])) {
    if (text == "3" || text == "20" || text == "100") size_ticks.push_back(text);
    if (text.rfind("1e-", 0) == 0) noise_ticks.push_back(text);
  }
  CHECK(size_ticks == std::vector<std::string>{"3", "20", "100"});
  CHECK(noise_ticks == std::vector<std::string>{"1e-3", "1e-2", "1e-1"});

  // Summary table rows: data.d, then data.noise, both numerically.
  const std::string table = section(html, "<table class=\"summary\"", "</table>");
  std::vector<std::string> rows;
  const std::regex row(R"(<tr><td class="num">(\d+)</td><td>([^<]+)</td>)");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), row); it != std::sregex_iterator(); ++it)
    rows.push_back(std::string((*it)[1]) + " " + std::string((*it)[2]));
  CHECK(rows == std::vector<std::string>{"3 1e-3", "3 1e-2", "3 1e-1", "20 1e-3", "20 1e-2", "20 1e-1", "100 1e-3",
                                         "100 1e-2", "100 1e-1"});

  // The explorer lists the values in the same order.
  const auto data = explorer_data(html);
  REQUIRE(data.size() == 1);
  CHECK(data[0]["axes"][0]["texts"] == Json::array({"3", "20", "100"}));
  CHECK(data[0]["axes"][1]["texts"] == Json::array({"1e-3", "1e-2", "1e-1"}));
}
