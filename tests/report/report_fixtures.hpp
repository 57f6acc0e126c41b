#pragma once
// Shared by the report tests: a scratch folder, studies to report on (one run by the CLI, others
// written straight into a store), and readers of the page's parts.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "rankone/report/report.hpp"
#include "rankone/store/results_store.hpp"
#include "test_support.hpp"

namespace report_test {

namespace fs = std::filesystem;
using namespace rankone;

/// A scratch folder shared by the test cases of this process, removed at exit.
inline const fs::path& scratch() {
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

inline std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

/// The inline SVG elements of a page (or part of one), in order.
inline std::vector<std::string> svgs(const std::string& html) {
  std::vector<std::string> out;
  for (std::size_t pos = html.find("<svg"); pos != std::string::npos; pos = html.find("<svg", pos + 1)) {
    const std::size_t end = html.find("</svg>", pos);
    REQUIRE(end != std::string::npos);
    out.push_back(html.substr(pos, end + 6 - pos));
  }
  return out;
}

/// The text from the first occurrence of `start` to the next `end` (inclusive).
inline std::string section(const std::string& html, const std::string& start, const std::string& end) {
  const std::size_t a = html.find(start);
  REQUIRE(a != std::string::npos);
  const std::size_t b = html.find(end, a);
  REQUIRE(b != std::string::npos);
  return html.substr(a, b + end.size() - a);
}

/// A study section's part: from its heading (`<h2 id="s0-paired"`) to the next section heading.
inline std::string part(const std::string& html, const std::string& id) {
  const std::size_t a = html.find("<h2 id=\"" + id + "\"");
  REQUIRE(a != std::string::npos);
  const std::size_t b = html.find("<h2", a + 1);
  return html.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

/// The texts of a gnuplot SVG's tick labels and other text elements, in document order.
inline std::vector<std::string> svg_texts(const std::string& svg) {
  std::vector<std::string> out;
  const std::regex text(R"(<text[^>]*>(?:<tspan[^>]*>)?([^<]+)<)");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator(); ++it) out.push_back((*it)[1]);
  return out;
}

/// The page without the contents of its <script> elements (library code and data).
inline std::string markup_of(const std::string& html) {
  std::string out;
  std::size_t pos = 0;
  for (std::size_t open = html.find("<script"); open != std::string::npos; open = html.find("<script", pos)) {
    const std::size_t body = html.find('>', open) + 1;
    out += html.substr(pos, body - pos);
    pos = html.find("</script>", body);
    REQUIRE(pos != std::string::npos);
  }
  return out + html.substr(pos);
}

/// The embedded JSON of a page's explorers (it is JSON as written, its '<' escaped as \u003c).
inline std::vector<Json> explorer_data(const std::string& html) {
  std::vector<Json> out;
  const std::string open = "<script type=\"application/json\" class=\"explorer-data\">";
  for (std::size_t pos = html.find(open); pos != std::string::npos; pos = html.find(open, pos + 1)) {
    const std::size_t start = pos + open.size();
    out.push_back(Json::parse(html.substr(start, html.find("</script>", start) - start)));
  }
  return out;
}

// A spectral study over a 2-D sweep (dimension × batch size): the CLI writes the results folder.
inline const char* kSpectralSweep = R"({
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

inline const fs::path& spectral_results() {
  static const fs::path dir = [] {
    const fs::path out = scratch() / "studies" / "spectral-phase";
    const fs::path file = scratch() / "spectral-phase.json";
    std::ofstream(file) << kSpectralSweep;
    const auto run = test::run_command(test::rankone_binary() + " run " + file.string() + " --out " + out.string() +
                                       " --jobs 2 --quiet 2>&1");
    INFO(run.text);
    REQUIRE(run.code == 0);
    return out;
  }();
  return dir;
}

/// An iterative study written straight into a store: `rel_error` decays geometrically over
/// `iterations` (over three decades), each label at its own rate, repetitions scattered by ±10 %.
inline void write_iterative_study(const fs::path& dir, int cells, int repetitions, int iterations,
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
  store.end_run(run, "completed");
}

inline const fs::path& iterative_results() {
  static const fs::path dir = [] {
    const fs::path out = scratch() / "studies" / "iterative";
    write_iterative_study(out, 2, 5, 60, {"fast", "slow <b>&"});
    return out;
  }();
  return dir;
}

/// Checks what every report must satisfy: no network references and no external script, style or
/// image; scripts only inline; every plot an inline SVG that draws paths.
inline void require_self_contained(const std::string& html) {
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  // Vega's inlined code names the SVG and XML namespaces; nothing else may name a URL.
  std::string without_namespaces = html;
  for (const std::string ns : {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink", "http://www.w3.org/2000/xmlns/"})
    for (std::size_t pos = without_namespaces.find(ns); pos != std::string::npos; pos = without_namespaces.find(ns, pos))
      without_namespaces.erase(pos, ns.size());
  CHECK(count(without_namespaces, "http://") == 0);
  CHECK(count(without_namespaces, "https://") == 0);
  CHECK(count(html, "<script src") == 0);
  CHECK(count(html, "<link") == 0);
  CHECK(count(html, "<img") == 0);
  CHECK(count(html, "<?xml") == 0);
  const std::string markup = markup_of(html);
  const auto plots = svgs(markup);
  CHECK(plots.size() == count(markup, "</svg>"));
  const std::regex drawn_path(R"(<path[^>]* d=['"]M[^'"]*[LlHhVvCc][^'"]*['"])");
  for (const auto& svg : plots) CHECK(std::regex_search(svg, drawn_path));
}

}  // namespace report_test
