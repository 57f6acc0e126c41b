// Read once: the parsed-record cache (plugins/sources/parsed_cache.hpp). A source serves bitwise the
// same batches, test set, notes and preparation with the cache off, while it writes the cache, and
// when it replays it from disk; a changed file is parsed again; a damaged cache file is ignored,
// rebuilt and noted; the folder is held under its cap.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "file_support.hpp"
#include "libsvm_source.hpp"
#include "parsed_cache.hpp"

using namespace rankone;
using namespace rankone::test;
using rankone::sources::Record;
using rankone::sources::RecordReader;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// Sets RANKONE_PARSED_CACHE for the scope ("off" or a folder), restoring it afterwards.
struct CacheSetting {
  std::string saved;
  bool had = false;
  explicit CacheSetting(const std::string& value) {
    if (const char* v = std::getenv("RANKONE_PARSED_CACHE")) saved = v, had = true;
    ::setenv("RANKONE_PARSED_CACHE", value.c_str(), 1);
  }
  ~CacheSetting() {
    if (had) ::setenv("RANKONE_PARSED_CACHE", saved.c_str(), 1);
    else ::unsetenv("RANKONE_PARSED_CACHE");
  }
};

void print(std::ostringstream& os, const DesignSide& side) {
  os << "kind " << static_cast<int>(side.kind) << " dim " << side.dim << " scale " << side.scale << "\n";
  if (side.kind == DesignSide::Kind::all) return;
  const Matrix dense = side.to_dense();
  for (Index j = 0; j < dense.cols(); ++j)
    for (Index i = 0; i < dense.rows(); ++i)
      if (dense(i, j) != 0.0) os << i << "," << j << "=" << dense(i, j) << " ";
  os << "\n";
}

void print(std::ostringstream& os, const Batch& b) {
  for (Index i = 0; i < b.y.size(); ++i) os << b.y(i) << " ";
  os << "\n";
  print(os, b.left);
  if (b.right) print(os, *b.right);
}

/// Everything a study sees of a source over three passes, as exact text (hexadecimal floats).
std::string everything(const Json& params, std::uint64_t seed = 7) {
  auto s = make<DataSource>(params, Kind::data_source);
  s->open(seed);
  std::ostringstream os;
  os << std::hexfloat;
  for (int pass = 0; pass < 3; ++pass) {
    os << "pass " << pass << "\n";
    for (Batch b = s->next(5); !b.empty(); b = s->next(5)) print(os, b);
    s->rewind();
  }
  if (const Batch* test = s->test_set()) {
    os << "test\n";
    print(os, *test);
  }
  for (const std::string& n : s->notes()) os << "note " << n << "\n";
  const DataPreparation p = s->preparation();
  os << "preparation " << p.header.dump() << "\n";
  for (const auto& [name, a] : p.arrays) {
    os << name << ":";
    for (const double v : a.reals) os << " " << v;
    for (const std::int64_t v : a.integers) os << " " << v;
    os << "\n";
  }
  return os.str();
}

std::size_t files_in(const fs::path& folder) {
  if (!fs::exists(folder)) return 0;
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(folder), fs::directory_iterator()));
}

/// The source without the cache, while it writes the cache, and replaying it: the same text, and
/// one cache file per file read.
void check_identical(const Json& params, const fs::path& cache) {
  std::string off, writing, replaying;
  {
    CacheSetting setting("off");
    off = everything(params);
  }
  CacheSetting setting(cache.string());
  writing = everything(params);
  REQUIRE(files_in(cache) > 0);
  replaying = everything(params);
  CHECK(writing == off);
  CHECK(replaying == off);
}

std::string libsvm_lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i)
    text += std::to_string((i % 5) - 2) + " 1:" + std::to_string(0.25 * (i % 7)) + " 3:" + std::to_string(i % 3) +
            (i % 4 ? " 4:1.5" : "") + "\n";
  return text;
}

/// The records of one pass of `reader`, as text.
std::string pass_of(RecordReader& reader) {
  std::ostringstream os;
  os << std::hexfloat;
  reader.start(0);
  for (Record r; reader.next(r);) {
    os << r.number << " " << r.target;
    for (std::size_t k = 0; k < r.feature_index.size(); ++k) os << " " << r.feature_index[k] << ":" << r.feature_value[k];
    os << "\n";
  }
  return os.str();
}

std::unique_ptr<RecordReader> cached_libsvm(const std::string& path, const fs::path& folder, std::uint64_t cap = 1 << 30) {
  sources::ParsedCacheSettings settings;
  settings.folder = folder;
  settings.max_bytes = cap;
  return sources::cache_parsed(std::make_unique<sources::LibsvmReader>(sources::file_opener(path), sources::LibsvmOptions{}),
                               {"libsvm", {path}}, settings);
}

}  // namespace

TEST_CASE("parsed cache: libsvm (sparse and dense designs, a test file) is served identically", "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_libsvm");
  const std::string file = dir.write("a.svm", libsvm_lines(60));
  Json p = {{"name", "libsvm"}, {"file", file}, {"test_fraction", 0.2}, {"standardize", "scale"}, {"shuffle_buffer", 8}};
  SECTION("sparse") {
    p["design"] = "sparse";
    check_identical(p, dir.dir / "cache");
  }
  SECTION("dense, two folds") {
    p.erase("test_fraction");
    p["design"] = "dense";
    p["folds"] = 2;
    p["test_fold"] = 0;
    p["split_seed"] = 11;
    check_identical(p, dir.dir / "cache");
    p["test_fold"] = 1;  // the other fold replays the same parse: no new cache file
    CacheSetting setting((dir.dir / "cache").string());
    everything(p);
    CHECK(files_in(dir.dir / "cache") == 1);
  }
  SECTION("a separate test file") {
    p["test_fraction"] = 0.0;
    p["indexing"] = "one";
    p["test_file"] = dir.write("t.svm", libsvm_lines(13));
    check_identical(p, dir.dir / "cache");
    CHECK(files_in(dir.dir / "cache") == 2);
  }
}

TEST_CASE("parsed cache: csv (header, missing values) is served identically", "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_csv");
  std::string text = "y,a,b,c\n";
  for (int i = 0; i < 50; ++i)
    text += std::to_string(i % 3) + "," + (i % 9 == 4 ? "NA" : std::to_string(0.5 * i)) + "," + std::to_string(i % 4) + ",1\n";
  const Json p = {{"name", "csv"}, {"file", dir.write("a.csv", text)}, {"labels", "y"}, {"missing", "mean"},
                  {"test_fraction", 0.3}, {"standardize", "center_scale"}};
  check_identical(p, dir.dir / "cache");
}

TEST_CASE("parsed cache: ratings (remapped ids, timestamp order, chronological split) are served identically",
          "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_ratings");
  std::string text = "user,item,rating,timestamp\n";
  for (int i = 0; i < 80; ++i)
    text += std::to_string(100 + (i * 7) % 13) + "," + std::to_string(5000 + (i * 5) % 11) + "," +
            std::to_string(1 + i % 5) + "," + std::to_string(1000 - i * 3 % 97) + "\n";
  const std::string file = dir.write("r.csv", text);
  SECTION("random split") {
    check_identical({{"name", "ratings"}, {"file", file}, {"test_fraction", 0.25}}, dir.dir / "cache");
  }
  SECTION("chronological split") {
    check_identical({{"name", "ratings"}, {"file", file}, {"order", "timestamp"}, {"split", "chronological"},
                     {"test_fraction", 0.25}},
                    dir.dir / "cache");
  }
  SECTION("with a test file the readers share live id maps: not cached") {
    const Json p = {{"name", "ratings"}, {"file", file}, {"test_fraction", 0.0},
                    {"test_file", dir.write("t.csv", "user,item,rating\n100,5000,3\n999,5001,4\n")}};
    CacheSetting setting((dir.dir / "cache").string());
    everything(p);
    CHECK(files_in(dir.dir / "cache") == 0);
  }
}

TEST_CASE("parsed cache: one-bit observations are served identically", "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_observations");
  std::string lines;
  for (int i = 0; i < 90; ++i) lines += std::to_string(1 + i % 3) + " " + std::to_string(1 + i % 4) + " " + (i % 2 ? "1" : "-1") + "\n";
  const Json p = {{"name", "libsvm"}, {"file", dir.write("x.svm", "1:1 2:0\n1:0 2:1\n1:2 2:2\n")},
                  {"observations", dir.write("y.txt", lines)}, {"indexing", "one"}, {"operator", "single_label"},
                  {"classes", 4}, {"test_fraction", 0.25}, {"design", "dense"}};
  check_identical(p, dir.dir / "cache");
}

TEST_CASE("parsed cache: a changed file is parsed again, even with its old size and time", "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_changed");
  const fs::path cache = dir.dir / "cache";
  const std::string file = dir.write("a.svm", "1 1:1\n2 1:2\n");
  const std::string before = pass_of(*cached_libsvm(file, cache));
  CHECK(pass_of(*cached_libsvm(file, cache)) == before);  // replayed
  const auto time = fs::last_write_time(file);
  dir.write("a.svm", "1 1:1\n3 1:2\n");  // the same size
  fs::last_write_time(file, time);       // and the same time: only the content hash tells
  const std::string after = pass_of(*cached_libsvm(file, cache));
  CHECK(after != before);
  CHECK_THAT(after, Contains("0x1.8p+1"));  // the new target 3
  CHECK(files_in(cache) == 2);
  fs::last_write_time(file, time + std::chrono::seconds(5));  // touched: another key, parsed again
  CHECK(pass_of(*cached_libsvm(file, cache)) == after);
  CHECK(files_in(cache) == 3);
}

TEST_CASE("parsed cache: a truncated or corrupted cache file is ignored, noted and rebuilt", "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_damaged");
  const fs::path cache = dir.dir / "cache";
  const std::string file = dir.write("a.svm", libsvm_lines(40));
  const std::string expected = pass_of(*cached_libsvm(file, cache));
  const fs::path written = sources::parsed_cache_file(cache, {"libsvm", {file}});
  REQUIRE(fs::exists(written));
  const auto size = fs::file_size(written);

  const auto damage = [&](const std::string& why, const std::function<void()>& how) {
    how();
    auto reader = cached_libsvm(file, cache);
    CHECK(pass_of(*reader) == expected);
    REQUIRE(reader->notes().size() == 1);
    CHECK_THAT(reader->notes().back(), Contains(written.string()) && Contains(why) && Contains("rebuilt"));
    CHECK(fs::file_size(written) == size);  // rebuilt whole
    auto again = cached_libsvm(file, cache);
    CHECK(pass_of(*again) == expected);
    CHECK(again->notes().empty());  // trusted again
  };
  SECTION("truncated") {
    damage("truncated", [&] { fs::resize_file(written, size - 20); });
  }
  SECTION("a byte changed") {
    damage("checksum", [&] {
      std::fstream f(written, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(size / 2));
      f.put('\x5a');
    });
  }
  SECTION("a foreign file") {
    damage("header", [&] { std::ofstream(written, std::ios::binary) << std::string(100, 'x'); });
  }
}

TEST_CASE("parsed cache: a file changed while it is replayed is caught in the block that changed; the pass goes on parsed",
          "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_changed");
  const fs::path cache = dir.dir / "cache";
  const std::string file = dir.write("a.svm", libsvm_lines(60000));  // some 4 MB parsed: several blocks
  const std::string expected = pass_of(*cached_libsvm(file, cache));
  const fs::path written = sources::parsed_cache_file(cache, {"libsvm", {file}});
  REQUIRE(fs::file_size(written) > (std::uint64_t{3} << 20));
  auto reader = cached_libsvm(file, cache);
  std::ostringstream os;
  os << std::hexfloat;
  const auto line = [&os](const Record& r) {
    os << r.number << " " << r.target;
    for (std::size_t k = 0; k < r.feature_index.size(); ++k) os << " " << r.feature_index[k] << ":" << r.feature_value[k];
    os << "\n";
  };
  reader->start(0);
  Record r;
  for (int i = 0; i < 10; ++i) {  // served from the first block, checked when it was opened
    REQUIRE(reader->next(r));
    line(r);
  }
  REQUIRE(reader->notes().empty());
  {  // a byte of the third block changes under the replay (a disk error, another writer)
    std::fstream f(written, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>((std::uint64_t{5} << 20) / 2));
    const char was = static_cast<char>(f.peek());
    f.put(static_cast<char>(was ^ 0x5a));
  }
  while (reader->next(r)) line(r);
  CHECK(os.str() == expected);  // not one record from the changed block
  REQUIRE(reader->notes().size() == 1);
  CHECK_THAT(reader->notes()[0], Contains(written.string()) && Contains("changed while it was replayed") &&
                                     Contains("block 2 no longer matches its checksum") && Contains("were parsed from the data file"));
  CHECK(pass_of(*reader) == expected);  // later passes parse
  CHECK(reader->notes().size() == 1);   // said once
  // The next reader finds the file damaged when it opens it, and rebuilds it.
  auto next = cached_libsvm(file, cache);
  CHECK(pass_of(*next) == expected);
  REQUIRE(next->notes().size() == 1);
  CHECK_THAT(next->notes()[0], Contains("checksum") && Contains("rebuilt"));
}

TEST_CASE("parsed cache: the folder is held under its cap, least recently used first", "[file_sources][parsed_cache]") {
  Scratch dir("parsed_cache_cap");
  const fs::path cache = dir.dir / "cache";
  const std::string a = dir.write("a.svm", libsvm_lines(30)), b = dir.write("b.svm", libsvm_lines(31)),
                    c = dir.write("c.svm", libsvm_lines(32));
  pass_of(*cached_libsvm(a, cache));
  const auto one = fs::file_size(sources::parsed_cache_file(cache, {"libsvm", {a}}));
  const std::uint64_t cap = 2 * one + one / 2;  // room for two files
  pass_of(*cached_libsvm(b, cache, cap));
  CHECK(files_in(cache) == 2);
  pass_of(*cached_libsvm(a, cache, cap));  // a replayed: now used more recently than b
  pass_of(*cached_libsvm(c, cache, cap));
  CHECK(files_in(cache) == 2);
  CHECK(fs::exists(sources::parsed_cache_file(cache, {"libsvm", {a}})));
  CHECK_FALSE(fs::exists(sources::parsed_cache_file(cache, {"libsvm", {b}})));

  // A parse larger than the cap is not cached, and says so.
  auto reader = cached_libsvm(a, dir.dir / "small", one / 2);
  const std::string records = pass_of(*reader);
  CHECK(files_in(dir.dir / "small") == 0);
  REQUIRE(reader->notes().size() == 1);
  CHECK_THAT(reader->notes().front(), Contains("not cached"));
  CHECK(pass_of(*reader) == records);
}

TEST_CASE("parsed cache: a study's results are identical with the cache off, writing it, and replaying it",
          "[file_sources][parsed_cache][cli]") {
  Scratch dir("parsed_cache_study");
  std::string text;
  for (int i = 0; i < 600; ++i) {
    const double x1 = (i % 11) / 5.0 - 1.0, x2 = (i % 7) / 3.0 - 1.0, x3 = (i % 5) / 2.0 - 1.0;
    text += std::to_string(x1 * x1 + 0.5 * x2 - x1 * x3) + " 1:" + std::to_string(x1) + " 2:" + std::to_string(x2) +
            " 3:" + std::to_string(x3) + "\n";
  }
  const std::string data = dir.write("d.svm", text);
  const std::string study = dir.write("s.json", R"({"name": "read-once", "seed": 3, "repetitions": 2,
    "data": {"name": "libsvm", "file": ")" + data + R"(", "folds": 2, "split_seed": 4, "design": "dense"},
    "sweep": {"grid": {"data.test_fold": [0, 1]}},
    "estimators": [{"name": "gfm_one_pass", "rank": 1, "batch_size": 100, "passes": 4, "max_iterations": 20}],
    "metrics": ["test_rmse", "samples"]})");
  const auto run = [&](const std::string& out, const std::string& how = "") {
    const CommandOutput r = rankone_cli("run " + study + " --out " + (dir.dir / out).string() + " --jobs 2" + how, false);
    INFO(r.text);
    REQUIRE(r.code == 0);
    return rows_without_seconds(dir.dir / out);
  };
  std::vector<std::string> off, writing, replaying;
  {
    CacheSetting setting("off");
    off = run("off");
  }
  CacheSetting setting((dir.dir / "cache").string());
  writing = run("writing");
  CHECK(files_in(dir.dir / "cache") == 1);
  replaying = run("replaying");
  REQUIRE_FALSE(off.empty());
  CHECK(writing == off);
  CHECK(replaying == off);
  // Trials on two threads of one process, writing one key at once into an empty folder.
  CacheSetting threads((dir.dir / "threads").string());
  CHECK(run("in_process", " --in-process") == off);
  CHECK(files_in(dir.dir / "threads") == 1);
}

TEST_CASE("parsed cache: feature indices beyond 32 bits replay exactly", "[file_sources][parsed_cache]") {
  // The text formats refuse indices from 2^31 on; a reader that makes them is served whole.
  struct WideReader final : RecordReader {
    int& starts;
    std::int64_t at = 0;
    explicit WideReader(int& s) : starts(s) {}
    void start(std::uint64_t) override {
      at = 0;
      ++starts;
    }
    bool next(Record& r) override {
      if (at == 3) return false;
      r.clear();
      r.number = at;
      r.line = at + 1;
      r.feature_index = {at, std::int64_t{3000000000} + at, std::int64_t{1} << 40};
      r.feature_value = {0.5, -1.25, 3.0};
      ++at;
      return true;
    }
    sources::RecordLayout layout() const override { return {}; }
    std::uint64_t bytes_read() const override { return 0; }
    std::string source_name() const override { return "wide"; }
  };
  Scratch dir("parsed_cache_wide");
  const std::string file = dir.write("keyed.txt", "the key's file");
  sources::ParsedCacheSettings settings;
  settings.folder = dir.dir / "cache";
  int starts = 0;
  const auto wide = [&] { return sources::cache_parsed(std::make_unique<WideReader>(starts), {"wide", {file}}, settings); };
  auto reader = wide();
  const std::string parsed = pass_of(*reader);
  CHECK_THAT(parsed, Contains(" 3000000002:") && Contains(" 1099511627776:"));
  CHECK(pass_of(*reader) == parsed);  // replayed in this reader
  CHECK(pass_of(*wide()) == parsed);  // and from disk
  CHECK(files_in(settings.folder) == 1);
  CHECK(starts == 1);  // parsed once
}

TEST_CASE("RANKONE_PARSED_CACHE_BYTES: digits in range, or a refusal naming the variable", "[parsed_cache]") {
  struct Restore {
    std::string saved;
    bool had = false;
    Restore() {
      if (const char* v = std::getenv("RANKONE_PARSED_CACHE_BYTES")) saved = v, had = true;
    }
    ~Restore() {
      if (had) ::setenv("RANKONE_PARSED_CACHE_BYTES", saved.c_str(), 1);
      else ::unsetenv("RANKONE_PARSED_CACHE_BYTES");
    }
  } restore;
  ::setenv("RANKONE_PARSED_CACHE_BYTES", "1000", 1);
  CHECK(sources::ParsedCacheSettings::from_environment().max_bytes == 1000);
  // strtoull alone read "-1" and a 23-digit value as 2^64 - 1: an unbounded cache.
  for (const char* bad : {"-1", "12345678901234567890123", "9223372036854775808", "12abc", " 5", "+5"}) {
    INFO(bad);
    ::setenv("RANKONE_PARSED_CACHE_BYTES", bad, 1);
    CHECK_THROWS_WITH(sources::ParsedCacheSettings::from_environment(),
                      Contains("RANKONE_PARSED_CACHE_BYTES: expected a number of bytes") && Contains(bad));
  }
}
