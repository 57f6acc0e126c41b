// The hostile corpus: inputs a careless or malicious user can give rankone, by family. Every case
// asserts the exit code (2 for bad input, 1 for a runtime failure, 128+N for signal N), what the
// message must say (the file, the JSON path or the line, what was expected), that no sanitizer
// spoke (the corpus also runs against an ASan/UBSan build: tests/hostile/sanitized.sh) and, where
// a results store exists, that SQLite's integrity check still passes.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>
#include <tuple>

#include "rankone/core/checksum.hpp"
#include "rankone/store/npy.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/saved_model.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

namespace {

const char* kValid = R"({"name": "ok", "seed": 1, "repetitions": 2,
  "data": {"name": "synthetic", "d": 10, "rank": 1},
  "estimators": [{"name": "spectral", "rank": 1, "batch_size": 300}],
  "metrics": ["combined_error", "samples"]})";

/// One hostile input: a command (run in a scratch folder holding `files`) and what must come out.
struct Case {
  std::string family;
  std::string name;
  std::vector<std::pair<std::string, std::string>> files;  // name → content
  std::string args;                                        // rankone's arguments; {dir} is the scratch folder
  int code;
  std::vector<std::string> says;  // each must appear in the output; {dir} is the scratch folder
};

std::string expand(std::string text, const fs::path& dir) {
  for (std::size_t at; (at = text.find("{dir}")) != std::string::npos;) text.replace(at, 5, dir.string());
  return text;
}

/// What no run may print, whatever its input.
void check_no_crash(const test::CommandOutput& out) {
  CHECK(out.code >= 0);
  CHECK(out.code < 128);
  for (const char* crash : {"AddressSanitizer", "runtime error:", "LeakSanitizer", "terminate called", "Segmentation fault",
                            "Aborted", "std::bad_alloc"})
    CHECK(out.text.find(crash) == std::string::npos);
}

void check_store_intact(const fs::path& folder) {
  const fs::path db = ResultsStore::database_path(folder);
  if (!fs::exists(db) || fs::file_size(db) == 0) return;
  CHECK(test::run_command("sqlite3 '" + db.string() + "' 'PRAGMA integrity_check' 2>&1").text == "ok\n");
}

std::string with(const std::string& doc, const std::string& key_values) {  // adds top-level keys to kValid
  return doc.substr(0, doc.rfind('}')) + ", " + key_values + "}";
}

std::vector<Case> experiment_cases() {
  const std::string data = R"("data": {"name": "synthetic", "d": 10, "rank": 1}, "metrics": ["samples"])";
  std::string deep;
  for (int i = 0; i < 300; ++i) deep += "[";
  for (int i = 0; i < 300; ++i) deep += "]";
  return {
      {"experiment", "truncated JSON", {{"e.json", std::string(kValid).substr(0, 60)}}, "validate {dir}/e.json", 2, {"{dir}/e.json:", "invalid JSON"}},
      {"experiment", "not JSON at all", {{"e.json", "\x01\x02 binary \xff"}}, "validate {dir}/e.json", 2, {"{dir}/e.json:1:", "invalid JSON"}},
      {"experiment", "empty file", {{"e.json", ""}}, "validate {dir}/e.json", 2, {"{dir}/e.json:", "invalid JSON"}},
      {"experiment", "a JSON array", {{"e.json", "[1, 2]"}}, "validate {dir}/e.json", 2, {"{dir}/e.json: at /: expected an object, found array"}},
      {"experiment", "wrong type", {{"e.json", with(kValid, R"("record_every": "often")")}}, "validate {dir}/e.json", 2,
       {"{dir}/e.json: at /record_every: expected an integer", "found \"often\""}},
      {"experiment", "unknown top-level key", {{"e.json", with(kValid, R"("sweeps": {})")}}, "validate {dir}/e.json", 2,
       {"at /sweeps: unknown key 'sweeps'"}},
      {"experiment", "duplicate top-level key", {{"e.json", with(kValid, R"("seed": 9)")}}, "validate {dir}/e.json", 2,
       {"{dir}/e.json: at /seed: duplicate key 'seed'"}},
      {"experiment", "duplicate key inside a plugin", {{"e.json", R"({"data": {"name": "synthetic", "d": 10, "d": 20}, "estimators": ["spectral"], "metrics": ["samples"]})"}},
       "validate {dir}/e.json", 2, {"at /data/d: duplicate key 'd'"}},
      {"experiment", "duplicate key in an array element", {{"e.json", "{" + data + R"(, "estimators": ["spectral", {"name": "spectral", "label": "b", "rank": 1, "rank": 2}]})"}},
       "validate {dir}/e.json", 2, {"at /estimators/1/rank: duplicate key 'rank'"}},
      {"experiment", "1e999 literal", {{"e.json", "{" + data + R"(, "estimators": [{"name": "spectral", "batch_size": 1e999}]})"}},
       "validate {dir}/e.json", 2, {"{dir}/e.json:1:", "number 1e999 is out of range"}},
      {"experiment", "NaN literal", {{"e.json", "{" + data + R"(, "estimators": [{"name": "spectral", "batch_size": NaN}]})"}},
       "validate {dir}/e.json", 2, {"{dir}/e.json:1:", "invalid JSON"}},
      {"experiment", "Infinity literal", {{"e.json", "{" + data + R"(, "estimators": [{"name": "spectral", "batch_size": Infinity}]})"}},
       "validate {dir}/e.json", 2, {"invalid JSON"}},
      {"experiment", "repetitions past 32 bits", {{"e.json", "{" + data + R"(, "repetitions": 4294967297, "estimators": ["spectral"]})"}},
       "validate {dir}/e.json", 2, {"{dir}/e.json: at /repetitions: expected an integer from 1 to 2147483647, found 4294967297"}},
      {"experiment", "two billion repetitions", {{"e.json", "{" + data + R"(, "repetitions": 2000000000, "estimators": ["spectral"]})"}},
       "validate {dir}/e.json", 2, {"at /repetitions: the study has 2e+09 trials", "more than the memory budget"}},
      {"experiment", "a sweep whose product explodes",
       {{"e.json", with(kValid, R"("sweep": {"grid": {"data.noise_std": [0,1,2,3,4,5,6,7,8,9], "data.w_norm": [0,1,2,3,4,5,6,7,8,9], "data.d": [10,11,12,13,14,15,16,17,18,19], "estimators.0.rank": [1,2,3,4,5,6,7,8,9,10], "estimators.0.batch_size": [10,20,30,40,50,60,70,80,90,100], "data.rank": [1,2,3,4,5,6,7,8,9,10], "metrics.0.norm": ["spectral","frobenius","spectral","frobenius","spectral","frobenius","spectral","frobenius","spectral","frobenius"]}})")}},
       "validate {dir}/e.json", 2, {"at /sweep: the study has 2e+07 trials"}},
      {"experiment", "sweep over the seed", {{"e.json", with(kValid, R"("sweep": {"grid": {"seed": [1, 2]}})")}}, "validate {dir}/e.json", 2,
       {"at /sweep/grid/seed: sweep axis 'seed' changes nothing between cells"}},
      {"experiment", "sweep over the repetitions", {{"e.json", with(kValid, R"("sweep": {"zip": [{"repetitions": [1, 2]}]})")}}, "validate {dir}/e.json", 2,
       {"at /sweep/zip/0/repetitions: sweep axis 'repetitions' changes nothing"}},
      {"experiment", "sweep over an unknown top-level key", {{"e.json", with(kValid, R"("sweep": {"grid": {"colour": [1, 2]}})")}}, "validate {dir}/e.json", 2,
       {"sweep axis 'colour' changes nothing"}},
      {"experiment", "sweep over an unknown plugin parameter", {{"e.json", with(kValid, R"("sweep": {"grid": {"data.colour": [1, 2]}})")}}, "validate {dir}/e.json", 2,
       {"sweep axis 'data.colour'", "unknown parameter 'colour'"}},
      {"experiment", "empty sweep axis", {{"e.json", with(kValid, R"("sweep": {"grid": {"data.d": []}})")}}, "validate {dir}/e.json", 2,
       {"at /sweep/grid/data.d: expected a non-empty array"}},
      {"experiment", "zipped axes of different lengths", {{"e.json", with(kValid, R"("sweep": {"zip": [{"data.d": [10, 20], "data.rank": [1]}]})")}}, "validate {dir}/e.json", 2,
       {"at /sweep/zip/0/data.rank: expected an array of 2 values"}},
      {"experiment", "an integer past INT64_MAX", {{"e.json", "{" + data + R"(, "estimators": [{"name": "spectral", "batch_size": 18446744073709551615}]})"}},
       "validate {dir}/e.json", 2, {"at /estimators/0/batch_size", "at most 9223372036854775807", "found 18446744073709551615"}},
      {"experiment", "a negative seed", {{"e.json", "{" + data + R"(, "seed": -5, "estimators": ["spectral"]})"}},
       "validate {dir}/e.json", 2, {"at /seed: expected an integer from 0"}},
      {"experiment", "nested 300 levels deep", {{"e.json", with(kValid, "\"description\": " + deep)}}, "validate {dir}/e.json", 2,
       {"{dir}/e.json: nested deeper than 256 levels"}},
      {"experiment", "extends itself", {{"e.json", with(kValid, R"("extends": "e.json")")}}, "validate {dir}/e.json", 2, {"e.json"}},
      {"experiment", "extends a missing file", {{"e.json", with(kValid, R"("extends": "gone.json")")}}, "validate {dir}/e.json", 2, {"gone.json"}},
      {"experiment", "a device as the experiment", {}, "validate /dev/zero", 2, {"/dev/zero: not a regular file"}},
      {"experiment", "a folder as the experiment", {}, "validate {dir}", 2, {"{dir}: not a regular file"}},
      {"experiment", "a missing experiment", {}, "validate {dir}/nothing.json", 2, {"{dir}/nothing.json: experiment file not found"}},
      {"experiment", "negative limit", {{"e.json", with(kValid, R"("limits": {"trial_seconds": -1})")}}, "validate {dir}/e.json", 2,
       {"at /limits/trial_seconds: expected a number of seconds ≥ 0.001"}},
      {"experiment", "a limit of a microsecond", {{"e.json", with(kValid, R"("limits": {"trial_seconds": 1e-6})")}}, "validate {dir}/e.json", 2,
       {"at /limits/trial_seconds: expected a number of seconds ≥ 0.001 (the smallest limit a trial can be held to), found 1e-06"}},
  };
}

std::vector<Case> override_cases() {
  const std::vector<std::pair<std::string, std::string>> files = {{"e.json", kValid}};
  return {
      {"override", "trailing dot", files, "validate {dir}/e.json seed.=5", 2, {"override 'seed.=5': 'seed.' is not a key path"}},
      {"override", "leading dot", files, "validate {dir}/e.json .seed=5", 2, {"'.seed' is not a key path"}},
      {"override", "double dot", files, "validate {dir}/e.json data..d=5", 2, {"'data..d' is not a key path"}},
      {"override", "no key", files, "validate {dir}/e.json =5", 2, {"override '=5': expected key.path=value"}},
      {"override", "no value separator", files, "validate {dir}/e.json data.d", 2, {"overrides look like key.path=value"}},
      {"override", "index out of range", files, "validate {dir}/e.json estimators.5.rank=1", 2,
       {"override 'estimators.5.rank=1': at /estimators/5: expected an index below 1"}},
      {"override", "wrong type", files, "validate {dir}/e.json data.d=many", 2, {"override 'data.d=many'", "at /data/d", "found \"many\""}},
      {"override", "1e999", files, "validate {dir}/e.json data.noise_std=1e999", 2, {"override 'data.noise_std=1e999': number 1e999 is out of range"}},
      {"override", "NaN", files, "validate {dir}/e.json data.noise_std=NaN", 2, {"at /data/noise_std", "found \"NaN\""}},
      {"override", "repetitions past 32 bits", files, "validate {dir}/e.json repetitions=4294967297", 2, {"at /repetitions: expected an integer from 1 to 2147483647"}},
      {"override", "negative repetitions", files, "validate {dir}/e.json repetitions=-1", 2, {"at /repetitions"}},
      {"override", "a key inside a number", files, "validate {dir}/e.json seed.x=1", 2, {"cannot set a key inside a number"}},
      {"override", "unknown option", files, "run {dir}/e.json --frobnicate", 2, {"unknown option '--frobnicate'"}},
      {"override", "jobs zero", files, "run {dir}/e.json --jobs 0", 2, {"--jobs: expected a positive integer"}},
      {"override", "trial memory not a number", files, "run {dir}/e.json --trial-memory lots", 2, {"--trial-memory: expected a number"}},
  };
}

std::vector<Case> data_file_cases() {
  auto study = [](const std::string& source) {
    return R"({"name": "d", "data": )" + source + R"(, "estimators": [{"name": "spectral", "rank": 1, "batch_size": 3}], "metrics": ["samples"]})";
  };
  const std::string libsvm = study(R"({"name": "libsvm", "file": "{dir}/data.svm", "test_fraction": 0})");
  const std::string csv = study(R"({"name": "csv", "file": "{dir}/data.csv", "labels": "0", "header": false, "test_fraction": 0})");
  return {
      {"data", "libsvm: a word for a label", {{"e.json", libsvm}, {"data.svm", "1 1:0.5\nfoo bar\n"}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.svm:2: expected a number (the label), found 'foo'"}},
      {"data", "libsvm: nan value", {{"e.json", libsvm}, {"data.svm", "1 1:nan 2:1\n"}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.svm:1: expected a finite number (a feature value), found 'nan'"}},
      {"data", "libsvm: 1e999 value", {{"e.json", libsvm}, {"data.svm", "1 1:1e999\n"}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.svm:1: expected a number (a feature value), found '1e999'"}},
      {"data", "libsvm: negative index", {{"e.json", libsvm}, {"data.svm", "1 -3:1\n"}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.svm:1: expected feature indices ≥ 0, found '-3:1'"}},
      {"data", "libsvm: empty file", {{"e.json", libsvm}, {"data.svm", ""}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.svm: expected at least one record, found 'an empty file'"}},
      {"data", "libsvm: binary bytes", {{"e.json", libsvm}, {"data.svm", std::string("\x00\x01\x02\xff\xfe", 5)}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.svm:1: expected UTF-8 text"}},
      {"data", "libsvm: broken gzip", {{"e.json", libsvm}, {"data.svm", "\x1f\x8b\x08\x00garbage"}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.svm: corrupt or truncated compressed data"}},
      {"data", "libsvm: missing file", {{"e.json", libsvm}}, "run {dir}/e.json --out {dir}/out", 2, {"{dir}/e.json: at /data/file: {dir}/data.svm: no such file"}},
      {"data", "csv: ragged row", {{"e.json", csv}, {"data.csv", "1,2,3\n4,5\n"}}, "run {dir}/e.json --out {dir}/out", 2, {"{dir}/data.csv:2:"}},
      {"data", "csv: text in a number column", {{"e.json", csv}, {"data.csv", "1,2,3\n4,five,6\n"}}, "run {dir}/e.json --out {dir}/out", 2,
       {"{dir}/data.csv:2:", "five"}},
  };
}

/// Resource bombs: refused with exit 2 before anything runs (or, for what a file declares, at the
/// record that declares it), naming the JSON path or the line, the estimate and the limit.
std::vector<Case> budget_cases() {
  auto study = [](const std::string& source, const std::string& estimator = R"({"name": "spectral", "rank": 1, "batch_size": 3})") {
    return R"({"name": "b", "data": )" + source + R"(, "estimators": [)" + estimator + R"(], "metrics": ["samples"]})";
  };
  const std::string small = study(R"({"name": "synthetic", "d": 10, "rank": 1})");
  const std::string libsvm = study(R"({"name": "libsvm", "file": "{dir}/data.svm", "test_fraction": 0})");
  const std::string ratings = study(R"({"name": "ratings", "file": "{dir}/r.csv", "ids": "zero_based", "test_fraction": 0})",
                                    R"({"name": "spectral", "rank": 1, "batch_size": 3})");
  // An IDX header declaring 2^27 one-byte values a record (and one record).
  const std::string idx_header = std::string("\0\0\x08\x02\0\0\0\x01\x08\0\0\0", 12);
  const std::string idx = study(R"({"name": "idx", "file": "{dir}/x.idx", "test_fraction": 0})");
  return {
      {"budget", "a dimension of 10^9", {{"e.json", study(R"({"name": "synthetic", "d": 1000000000, "rank": 1})")}},
       "validate {dir}/e.json", 2, {"{dir}/e.json: at /data: a trial would need about", "TiB, more than the per-trial memory budget of",
                                    "(the machine's physical memory)", "source 'synthetic': cached chunk of 256 instances"}},
      {"budget", "a batch of 10^12", {{"e.json", study(R"({"name": "synthetic", "d": 10, "rank": 1})", R"({"name": "spectral", "batch_size": 1000000000000})")}},
       "plan {dir}/e.json --out {dir}/out", 2, {"{dir}/e.json: at /estimators/0: a trial would need about", "estimator 'spectral': batch of 1e+12 instances"}},
      {"budget", "a metric that goes dense on a large d", {{"e.json", R"({"name": "b", "data": {"name": "synthetic", "d": 200000, "rank": 1, "truth": "fm"},
          "estimators": [{"name": "spectral", "rank": 1, "batch_size": 3}], "metrics": ["relative_error_M"]})"}},
       "run {dir}/e.json --out {dir}/out", 2, {"at /metrics/0", "metric 'relative_error_M': dense comparison of zero-diagonal models", "(the default trial memory limit"}},
      {"budget", "--max-memory below a small study", {{"e.json", small}}, "validate {dir}/e.json --max-memory 8", 2,
       {"{dir}/e.json: at /data: a trial would need about", "more than the per-trial memory budget of 8.00 MiB (--max-memory 8)"}},
      {"budget", "--max-memory also bounds the plan", {{"e.json", with(small, R"("repetitions": 100000)")}}, "validate {dir}/e.json --max-memory 100", 2,
       {"at /repetitions: the study has 1e+05 trials", "(--max-memory 100)"}},
      {"budget", "int64 extremes in every size", {{"e.json", study(R"({"name": "synthetic", "d": 9223372036854775807, "d2": 9223372036854775807, "rank": 9223372036854775807, "test_size": 9223372036854775807})",
                                                                    R"({"name": "spectral", "rank": 9223372036854775807, "batch_size": 9223372036854775807})")}},
       "validate {dir}/e.json", 2, {"{dir}/e.json: at /estimators/0: a trial would need about", "EiB"}},
      {"budget", "a batch larger than a finite source counts what the source has",
       {{"e.json", study(R"({"name": "synthetic", "d": 1000, "rank": 1, "size": 100})", R"({"name": "spectral", "rank": 1, "batch_size": 1000000000})")}},
       "validate {dir}/e.json --max-memory 512", 0, {"valid (1 trials)"}},
      {"budget", "metrics run one at a time: their workspaces are not added",
       {{"e.json", R"({"name": "b", "data": {"name": "synthetic", "d": 3000, "rank": 1, "truth": "fm"}, "estimators": [{"name": "spectral", "rank": 1, "batch_size": 3}],
          "metrics": ["relative_error_M", "combined_error", "subspace_angle", {"name": "relative_error_M", "norm": "frobenius"}]})"}},
       "validate {dir}/e.json --max-memory 600", 0, {"valid (1 trials)"}},
      {"budget", "the experiment's smaller limit wins over --max-memory", {{"e.json", with(small, R"("limits": {"trial_memory_mb": 4})")}},
       "validate {dir}/e.json --max-memory 4096", 2, {"the per-trial memory budget of 4.00 MiB ({dir}/e.json at /limits/trial_memory_mb)"}},
      {"budget", "a limit above the machine's memory does not raise the budget",
       {{"e.json", with(study(R"({"name": "synthetic", "d": 100000000, "rank": 1})"), R"("limits": {"trial_memory_mb": 1000000000})")}},
       "validate {dir}/e.json", 2, {"(the machine's physical memory)"}},
      {"budget", "--trial-memory past 10^12 MiB", {{"e.json", small}}, "run {dir}/e.json --out {dir}/out --trial-memory 1e19", 2,
       {"--trial-memory: expected a whole number of MiB from 1 to 10^12, found '1e19'"}},
      {"budget", "idx: a test file whose header declares 2^27 values a record",
       {{"e.json", study(R"({"name": "idx", "file": "{dir}/ok.idx", "test_file": "{dir}/x.idx", "test_fraction": 0})")},
        {"ok.idx", std::string("\0\0\x08\x02\0\0\0\x02\0\0\0\x02\x01\x02\x03\x04", 16)}, {"x.idx", idx_header}},
       "run {dir}/e.json --out {dir}/out --max-memory 512", 2,
       {"{dir}/x.idx: its header declares records of 134 217 728 values, and then a trial would need about"}},
      {"budget", "image: a 69-byte PNG whose header declares 16 384 × 16 384 pixels",
       {{"e.json", study(R"({"name": "image", "file": "{dir}/big.png"})")}, {"big.png", std::string(
           "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x40\x00\x00\x00\x40\x00\x08\x00\x00\x00"
           "\x00\x8c\xa3\x4f\x58\x00\x00\x00\x0c\x49\x44\x41\x54\x78\x9c\x63\x60\xa0\x3d\x00\x00\x00\x64\x00\x01\x86\x64"
           "\x3c\x35\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82", 69)}},
       "run {dir}/e.json --out {dir}/out --max-memory 1024", 2,
       {"{dir}/big.png: its header declares a 16 384 × 16 384 image, and then a trial would need about",
        "source 'image': decoded image and its entry order"}},
      {"budget", "--max-memory not a number", {{"e.json", small}}, "run {dir}/e.json --max-memory lots", 2, {"--max-memory: expected a number, found 'lots'"}},
      {"budget", "--max-memory zero", {{"e.json", small}}, "plan {dir}/e.json --max-memory 0", 2, {"--max-memory: expected a whole number of MiB from 1"}},
      {"budget", "the experiment's trial_memory_mb is the budget", {{"e.json", with(small, R"("limits": {"trial_memory_mb": 4})")}}, "validate {dir}/e.json", 2,
       {"more than the per-trial memory budget of 4.00 MiB ({dir}/e.json at /limits/trial_memory_mb)"}},
      {"budget", "a sweep cell that cannot fit", {{"e.json", with(small, R"("sweep": {"grid": {"data.d": [10, 100000000]}})")}}, "validate {dir}/e.json", 2,
       {"{dir}/e.json: at /data: in sweep cell {\"data.d\":100000000}: a trial would need"}},
      {"budget", "libsvm: one index declares a dimension of 10^9", {{"e.json", libsvm}, {"data.svm", "1 1:1\n0 2:1\n1 1000000000:1\n"}},
       "run {dir}/e.json --out {dir}/out --max-memory 2048", 2,
       {"{dir}/data.svm:3: its largest feature index makes the dimension 1 000 000 000, and then a trial would need about",
        "(--max-memory 2048)"}},
      {"budget", "ratings: raw ids declare a 10^9 × 10^9 matrix", {{"e.json", ratings}, {"r.csv", "0,0,1\n1,1,2\n999999999,999999999,3\n"}},
       "run {dir}/e.json --out {dir}/out --max-memory 1024", 2,
       {"{dir}/r.csv:3: its ids make the matrix 1 000 000 000 × 1 000 000 000, and then a trial would need about"}},
      {"budget", "idx: a header declaring 2^27 values a record", {{"e.json", idx}, {"x.idx", idx_header}},
       "run {dir}/e.json --out {dir}/out --max-memory 512", 2,
       {"{dir}/x.idx: its header declares records of 134 217 728 values, and then a trial would need about"}},
  };
}

std::vector<Case> output_cases() {
  return {
      {"output", "export onto a device", {}, "export {dir}/out --output /dev/full", 1, {"cannot write /dev/full: it exists and is not a regular file"}},
      {"output", "export into a missing folder", {}, "export {dir}/out --output {dir}/no/such/folder.csv", 1,
       {"cannot write {dir}/no/such/folder.csv: No such file or directory"}},
      {"output", "export onto a folder", {}, "export {dir}/out --output {dir}", 1, {"cannot write {dir}: it exists and is not a regular file"}},
      {"output", "export of a folder without a store", {}, "export {dir}/nothing", 2, {"{dir}/nothing: no results database here"}},
      {"output", "unknown export format", {}, "export {dir}/out --format xml", 2, {"--format: expected csv or json, found 'xml'"}},
      {"output", "report onto a device", {}, "report {dir}/out --out /dev/full", 1, {"cannot write /dev/full: it exists and is not a regular file"}},
      {"output", "report onto a folder", {}, "report {dir}/out --out {dir}", 1, {"cannot write {dir}: it exists and is not a regular file"}},
  };
}

void run_case(const Case& c) {
  test::ScratchDir s("hostile");
  for (const auto& [name, content] : c.files) s.write(name, expand(content, s.path()));
  if (c.family == "output") {  // a small finished study to write out
    s.write("ok.json", kValid);
    REQUIRE(test::rankone_cli("run " + (s.path() / "ok.json").string() + " --out " + (s.path() / "out").string()).code == 0);
  }
  const auto out = test::rankone_cli(expand(c.args, s.path()));
  INFO(c.family << ": " << c.name << "\n" << out.text);
  CHECK(out.code == c.code);
  for (const auto& part : c.says) CHECK_THAT(out.text, Catch::Contains(expand(part, s.path())));
  check_no_crash(out);
  if (c.code == 2) CHECK_THAT(out.text, Catch::StartsWith("rankone: error: "));
  check_store_intact(s.path() / "out");
}

}  // namespace

TEST_CASE("hostile experiment files", "[hostile][experiment]") {
  for (const auto& c : experiment_cases()) run_case(c);
}

TEST_CASE("hostile command-line overrides and options", "[hostile][override]") {
  for (const auto& c : override_cases()) run_case(c);
}

TEST_CASE("hostile data files", "[hostile][data]") {
  for (const auto& c : data_file_cases()) run_case(c);
}

TEST_CASE("resource bombs are refused before they allocate", "[hostile][budget]") {
  for (const auto& c : budget_cases()) run_case(c);
}

TEST_CASE("hostile output targets", "[hostile][output]") {
  for (const auto& c : output_cases()) run_case(c);
}

TEST_CASE("a 100 MB experiment file is refused before it is read", "[hostile][experiment]") {
  test::ScratchDir s("big");
  {
    std::ofstream big(s.path() / "big.json");
    big << "{\"description\": \"";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 100; ++i) big << chunk;
    big << "\"}";
  }
  const auto out = test::rankone_cli("validate " + (s.path() / "big.json").string());
  CHECK(out.code == 2);
  CHECK_THAT(out.text, Catch::Contains("big.json: 1048576"));
  CHECK_THAT(out.text, Catch::Contains(" bytes, more than the 16 MiB an experiment file may have"));
  check_no_crash(out);
}

TEST_CASE("a line longer than 64 MiB is refused, not buffered", "[hostile][budget]") {
  test::ScratchDir s("longline");
  {
    std::ofstream big(s.path() / "long.svm");
    big << "1";
    const std::string chunk(1 << 20, ' ');
    for (int i = 0; i < 65; ++i) big << chunk;
    big << "1:1\n";
  }
  s.write("e.json", R"({"name": "l", "data": {"name": "libsvm", "file": ")" + (s.path() / "long.svm").string() +
                        R"(", "test_fraction": 0}, "estimators": [{"name": "spectral", "rank": 1, "batch_size": 3}], "metrics": ["samples"]})");
  const auto out = test::rankone_cli("run " + (s.path() / "e.json").string() + " --out " + (s.path() / "out").string());
  INFO(out.text);
  CHECK(out.code == 2);
  CHECK_THAT(out.text, Catch::Contains((s.path() / "long.svm").string() + ":1: expected a line of at most 64 MiB, found 'a longer line'"));
  check_no_crash(out);
}

TEST_CASE("hostile plugin files", "[hostile][plugins]") {
  test::ScratchDir s("plugin_files");
  const fs::path bad = fs::canonical(test::binary_dir() / "tests" / "bad_plugins");
  const fs::path real = fs::canonical(test::binary_dir() / "lib" / "rankone" / "plugins" / "librankone_spectral.so");
  // A copy cut at half its length: its segments reach past the end of the file.
  {
    std::ifstream in(real, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::ofstream(s.path() / "libtruncated.so", std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size() / 2));
    std::ofstream(s.path() / "libheader_only.so", std::ios::binary).write(bytes.data(), 64);
  }
  s.write("libempty.so", "");
  s.write("librandom.so", std::string("\x7f" "ELF\x02\x01\x01") + std::string(200, '\xee'));
  struct PluginCase {
    std::string name;
    fs::path library;
    std::vector<std::string> says;
  };
  const std::vector<PluginCase> cases = {
      {"truncated shared library", s.path() / "libtruncated.so", {"libtruncated.so: the file is truncated"}},
      {"only an ELF header", s.path() / "libheader_only.so", {"libheader_only.so"}},
      {"empty file", s.path() / "libempty.so", {"cannot load plugin library", "libempty.so"}},
      {"ELF magic then noise", s.path() / "librandom.so", {"librandom.so"}},
      {"static initialiser throws", bad / "libbad_throws_in_initialiser.so",
       {"libbad_throws_in_initialiser.so: its initialisation threw: initialiser of a hostile plugin"}},
      {"describe throws", bad / "libbad_throws_in_describe.so",
       {"libbad_throws_in_describe.so: its describe function (rankone_plugin) threw: describe of a hostile plugin"}},
      {"API version mismatch", bad / "libbad_api_mismatch.so", {"plugin API version mismatch in"}},
      {"not a plugin", bad / "libbad_not_a_plugin.so", {"is not a RankOne plugin"}},
      {"a folder of plugins that is a file", s.path() / "libempty.so/inner", {"not found"}},
  };
  for (const auto& c : cases) {
    const auto out = test::run_command("RANKONE_PLUGIN_PATH='" + c.library.string() + "' " + test::rankone_binary() + " plugins 2>&1");
    INFO(c.name << "\n" << out.text);
    CHECK(out.code == 2);
    CHECK_THAT(out.text, Catch::StartsWith("rankone: error: RANKONE_PLUGIN_PATH: "));
    for (const auto& part : c.says) CHECK_THAT(out.text, Catch::Contains(part));
    check_no_crash(out);
  }
}

TEST_CASE("hostile stores", "[hostile][store]") {
  test::ScratchDir s("stores");
  const auto file = s.write("ok.json", kValid);
  const fs::path good = s.path() / "good";
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + good.string()).code == 0);
  const fs::path good_db = ResultsStore::database_path(good);
  auto copy_of_good = [&](const std::string& name) {
    const fs::path folder = s.path() / name;
    fs::create_directories(folder);
    fs::copy_file(good_db, ResultsStore::database_path(folder));
    return folder;
  };
  const auto sql = [](const fs::path& folder, const std::string& query) {
    return test::run_command("sqlite3 '" + ResultsStore::database_path(folder).string() + "' \"" + query + "\" 2>&1").text;
  };

  SECTION("a 0-byte store is refused by every reader and by run, and is never written into") {
    const fs::path folder = s.path() / "empty";
    fs::create_directories(folder);
    std::ofstream(ResultsStore::database_path(folder)).close();
    for (const std::string& args : {"export " + folder.string(), "summarize " + folder.string(), "report " + folder.string(),
                                   "plan " + file.string() + " --out " + folder.string(),
                                   "run " + file.string() + " --out " + folder.string()}) {
      const auto out = test::rankone_cli(args);
      INFO(args << "\n" << out.text);
      CHECK(out.code == 2);
      CHECK_THAT(out.text, Catch::Contains(ResultsStore::database_path(folder).string() + ": the file is empty (0 bytes)"));
      check_no_crash(out);
    }
    CHECK(fs::file_size(ResultsStore::database_path(folder)) == 0);
  }
  SECTION("a text file in place of the store") {
    const fs::path folder = s.path() / "text";
    fs::create_directories(folder);
    std::ofstream(ResultsStore::database_path(folder)) << "these are my notes, not a database\n";
    for (const std::string& cmd : {std::string("export"), std::string("summarize")}) {
      const auto out = test::rankone_cli(cmd + " " + folder.string());
      INFO(out.text);
      CHECK(out.code == 2);
      CHECK_THAT(out.text, Catch::Contains(ResultsStore::database_path(folder).string()));
      CHECK_THAT(out.text, Catch::Contains("file is not a database"));
      check_no_crash(out);
    }
  }
  SECTION("another program's SQLite database") {
    const fs::path folder = s.path() / "foreign";
    fs::create_directories(folder);
    sql(folder, "CREATE TABLE notes(text TEXT)");
    const auto out = test::rankone_cli("export " + folder.string());
    CHECK(out.code == 2);
    CHECK_THAT(out.text, Catch::Contains("is not a RankOne results store (it has no trials table)"));
  }
  SECTION("a damaged row is reported by its trial and hides no other") {
    const fs::path folder = copy_of_good("row");
    const std::string key = sql(folder, "SELECT key FROM trials WHERE id = 1");
    sql(folder, "UPDATE trials SET config = '{broken' WHERE id = 1");
    const auto out = test::rankone_cli("export " + folder.string());
    INFO(out.text);
    CHECK(out.code == 1);
    CHECK_THAT(out.text, Catch::Contains(ResultsStore::database_path(folder).string() + " is damaged"));
    CHECK_THAT(out.text, Catch::Contains("trial 1 (key " + key.substr(0, key.size() - 1) + "): damaged row skipped"));
    const auto rows = test::rankone_cli("export " + folder.string(), /*stdout_only=*/true);
    CHECK(rows.text.find(key.substr(0, key.size() - 1)) == std::string::npos);
    CHECK(std::count(rows.text.begin(), rows.text.end(), '\n') > 1);  // the other trial's rows
    check_no_crash(out);
  }
  SECTION("flipped bytes in the pages that hold the trials") {
    const fs::path folder = copy_of_good("flipped");
    {
      // Page 3 of a fresh store holds the trials table (pages of 4096 bytes: schema, runs, trials).
      std::fstream f(ResultsStore::database_path(folder), std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(2 * 4096 + 8);
      const std::string noise(512, '\xa5');
      f.write(noise.data(), static_cast<std::streamsize>(noise.size()));
    }
    for (const std::string& cmd : {std::string("export"), std::string("summarize")}) {
      const auto out = test::rankone_cli(cmd + " " + folder.string());
      INFO(out.text);
      CHECK((out.code == 1 || out.code == 2));
      CHECK_THAT(out.text, Catch::Contains(ResultsStore::database_path(folder).string()));
      check_no_crash(out);
    }
  }
  SECTION("a store of a newer layout") {
    const fs::path folder = copy_of_good("newer");
    sql(folder, "PRAGMA user_version = 7");
    const auto out = test::rankone_cli("summarize " + folder.string());
    CHECK(out.code == 2);
    CHECK_THAT(out.text, Catch::Contains("results store of schema version 7, but this rankone reads version " +
                                           std::to_string(ResultsStore::current_schema_version())));
  }
  SECTION("a valid store that this user cannot write is read") {
    const fs::path folder = copy_of_good("readonly");
    fs::permissions(folder, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                                fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(ResultsStore::database_path(folder), fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    // As an unprivileged user (root writes anywhere), when this machine has one.
    const auto probe = test::run_command("setpriv --reuid=65534 --regid=65534 --clear-groups true 2>&1");
    if (probe.code == 0) {
      const auto out = test::run_command("setpriv --reuid=65534 --regid=65534 --clear-groups " + test::rankone_binary() +
                                         " summarize " + folder.string() + " 2>&1");
      INFO(out.text);
      CHECK(out.code == 0);
      CHECK_THAT(out.text, Catch::Contains("combined_error"));
    } else {
      WARN("setpriv cannot switch users here: the read-only store case ran as this user only");
    }
    const auto out = test::rankone_cli("export " + folder.string());
    CHECK(out.code == 0);
    fs::permissions(folder, fs::perms::owner_all);
  }
  SECTION("a full disk during a run stops it, says so, and keeps every committed trial") {
    const fs::path tiny = s.path() / "tiny";
    fs::create_directories(tiny);
    if (::mount("tmpfs", tiny.c_str(), "tmpfs", 0, "size=200k") != 0) {
      WARN("cannot mount a small tmpfs here (not root?): the full-disk case did not run");
      return;
    }
    struct Unmount {
      fs::path at;
      ~Unmount() { ::umount2(at.c_str(), MNT_DETACH); }
    } unmount{tiny};
    std::ofstream(tiny / "old.csv") << "previous export\n";  // before the disk fills
    const auto study = s.write("many.json", std::string(kValid).replace(std::string(kValid).find("\"repetitions\": 2"), 16,
                                                                         "\"repetitions\": 200"));
    const auto out = test::rankone_cli("run " + study.string() + " --out " + (tiny / "out").string());
    INFO(out.text);
    CHECK(out.code == 1);
    CHECK_THAT(out.text, Catch::Contains("disk full"));
    CHECK_THAT(out.text, Catch::Contains("trials are saved in " + ResultsStore::database_path(tiny / "out").string()));
    CHECK_THAT(out.text, Catch::Contains("resume: "));
    check_no_crash(out);
    check_store_intact(tiny / "out");
    CHECK(sql(tiny / "out", "SELECT status FROM runs") == "aborted\n");
    // An export onto the full disk fails and leaves the file that was there.
    const auto exported = test::rankone_cli("export " + good.string() + " --output " + (tiny / "old.csv").string());
    CHECK(exported.code == 1);
    CHECK_THAT(exported.text, Catch::Contains("cannot write " + (tiny / "old.csv").string()));
    std::ifstream old(tiny / "old.csv");
    CHECK(std::string(std::istreambuf_iterator<char>(old), std::istreambuf_iterator<char>()) == "previous export\n");
    CHECK(fs::directory_iterator(tiny) != fs::directory_iterator());
    for (const auto& e : fs::directory_iterator(tiny)) CHECK(e.path().filename().string().find(".partial") == std::string::npos);
  }
}

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Every file of a folder and its bytes: a folder before and after must be the same.
std::map<std::string, std::string> contents_of(const fs::path& folder) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::directory_iterator(folder)) files[e.path().filename().string()] = slurp(e.path());
  return files;
}

/// model.json rewritten as rankone model would have sealed it, after `edit` and with the arrays'
/// checksums of the files now in the folder: what a careful forger (or a test) produces.
void reseal(const fs::path& model, const std::function<void(Json&)>& edit = {}) {
  Json header = Json::parse(slurp(model / "model.json"));
  if (edit) edit(header);
  for (auto& [name, info] : header["arrays"].items())
    if (name.size() < 200 && fs::exists(model / (name + ".npy"))) info["checksum"] = checksum_of_file(model / (name + ".npy"));
  header["checksum"] = "xxh3-128:" + std::string(32, '0');
  std::ofstream(model / "model.json", std::ios::binary) << SavedModel::sealed(header.dump(2) + "\n");
}

}  // namespace

TEST_CASE("hostile saved models: damage, forgeries, overflow and a failed replace", "[hostile][models]") {
  test::ScratchDir s("models");
  const fs::path csv = s.write("train.csv", "y,a,b\n1,0.5,1\n2,1,0\n3,1.5,2\n4,2,1\n5,2.5,3\n6,3,2\n");
  const fs::path file = s.write("e.json", R"({"name": "m", "seed": 1, "repetitions": 1,
    "data": {"name": "csv", "file": ")" + csv.string() + R"(", "labels": "y", "test_fraction": 0,
             "operator": {"name": "symmetric_rank_one", "first_order": true}},
    "estimators": [{"name": "spectral", "rank": 1, "batch_size": 6}], "metrics": ["samples"]})");
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + (s / "results").string() + " --quiet").code == 0);
  const auto trials = ResultsStore(s / "results", ResultsStore::Access::read_only).trials(false);
  REQUIRE(trials.size() == 1);
  const std::string model_of = "model " + (s / "results").string() + " --trial " + trials[0].key + " --output ";
  const fs::path model = s / "model";
  REQUIRE(test::rankone_cli(model_of + model.string()).code == 0);
  const auto pristine = contents_of(model);
  const auto restore = [&] {
    fs::remove_all(model);
    fs::create_directories(model);
    for (const auto& [name, bytes] : pristine) std::ofstream(model / name, std::ios::binary) << bytes;
  };
  const auto predict = [&] { return test::rankone_cli("predict " + model.string() + " " + csv.string()); };
  const auto refused = [&](const test::CommandOutput& out, const std::vector<std::string>& says) {
    INFO(out.text);
    CHECK(out.code == 2);
    CHECK_THAT(out.text, Catch::Contains("rankone: error: "));  // after predict's notes, if any
    for (const auto& part : says) CHECK_THAT(out.text, Catch::Contains(part));
    check_no_crash(out);
  };
  REQUIRE(predict().code == 0);

  SECTION("a flipped byte in an array's data") {
    std::string bytes = pristine.at("left.npy");
    bytes[bytes.size() - 3] ^= 0x01;
    std::ofstream(model / "left.npy", std::ios::binary) << bytes;
    refused(predict(), {(model / "left.npy").string() + ": checksum mismatch"});
  }
  SECTION("a flipped byte in model.json") {
    std::string text = pristine.at("model.json");
    const auto at = text.find("\"bias\": ") + 8;
    text[at] = text[at] == '1' ? '2' : '1';
    std::ofstream(model / "model.json", std::ios::binary) << text;
    refused(predict(), {(model / "model.json").string() + ": checksum mismatch"});
  }
  SECTION("model.json without its checksum, or of the version before checksums") {
    Json header = Json::parse(pristine.at("model.json"));
    header.erase("checksum");
    std::ofstream(model / "model.json") << header.dump(2);
    refused(predict(), {"model.json: at /checksum: expected the file's own checksum"});
    header["version"] = 1;
    std::ofstream(model / "model.json") << header.dump(2);
    refused(predict(), {"at /version: model format version 1", "export the model again"});
  }
  SECTION("a .npy header of 60 000 characters is parsed without recursion") {
    const std::string bytes = pristine.at("left.npy");
    const NamedArray left = read_npy(model / "left.npy");
    REQUIRE(left.shape.size() == 2);
    std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(left.shape[0]) + "," +
                         std::string(60000, ' ') + std::to_string(left.shape[1]) + "), }";
    header.append((64 - (12 + header.size() + 1) % 64) % 64, ' ');
    header += '\n';
    std::string forged = std::string("\x93NUMPY\x02\x00", 8);
    for (int i = 0; i < 4; ++i) forged += static_cast<char>((header.size() >> (8 * i)) & 0xff);
    forged += header + bytes.substr(bytes.size() - static_cast<std::size_t>(left.elements()) * 8);
    std::ofstream(model / "left.npy", std::ios::binary) << forged;
    reseal(model);
    const auto out = predict();
    INFO(out.text);
    check_no_crash(out);
    CHECK(out.code == 0);  // a valid header, however long: the array is read
  }
  SECTION("a sealed model.json nested 100 000 levels deep") {
    std::string text = pristine.at("model.json");
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    text.replace(text.find("\"data\": {") + 9, 0, "\"deep\": " + deep + ", ");
    std::ofstream(model / "model.json", std::ios::binary) << SavedModel::sealed(text);
    refused(predict(), {"model.json: nested deeper than 256 levels"});
  }
  SECTION("an array name of 60 000 characters") {
    reseal(model, [](Json& h) { h["arrays"][std::string(60000, 'x') + "-"] = h["arrays"]["w"]; });
    refused(predict(), {"is not a plain name"});
  }
  SECTION("non-finite and overflowing factors") {
    NamedArray left = read_npy(model / "left.npy");
    left.reals[0] = std::numeric_limits<double>::quiet_NaN();
    write_npy(model / "left.npy", left);
    reseal(model);
    refused(predict(), {"model.json: array left holds a non-finite value"});
    left.reals[0] = 1e308;
    for (double& v : left.reals) v = v == 1e308 ? v : 1e300;
    write_npy(model / "left.npy", left);
    reseal(model);
    refused(predict(), {"model.json: its score of record ", " of " + csv.string() + " is ", "the model's values overflow on it"});
    const auto to_file = test::rankone_cli("predict " + model.string() + " " + csv.string() + " --output " + (s / "p.txt").string());
    CHECK(to_file.code == 2);
    CHECK(!fs::exists(s / "p.txt"));  // no half-written predictions
  }
  SECTION("a model path that is a file, a pipe or a folder without model.json; model.json a folder") {
    refused(test::rankone_cli("predict " + csv.string() + " " + csv.string()), {csv.string() + ": not a folder"});
    REQUIRE(::mkfifo((s / "fifo").c_str(), 0600) == 0);
    refused(test::rankone_cli("predict " + (s / "fifo").string() + " " + csv.string()), {(s / "fifo").string() + ": not a folder"});
    refused(test::rankone_cli("predict " + (s / "absent").string() + " " + csv.string()),
            {(s / "absent").string() + ": no such model folder"});
    fs::create_directories(s / "empty");
    refused(test::rankone_cli("predict " + (s / "empty").string() + " " + csv.string()),
            {(s / "empty" / "model.json").string() + ": no such file"});
    fs::create_directories(s / "odd" / "model.json");
    refused(test::rankone_cli("predict " + (s / "odd").string() + " " + csv.string()),
            {(s / "odd" / "model.json").string() + ": not a regular file"});
  }
  SECTION("a replace that fails midway (file size limit) leaves the old model whole") {
    // 1 KiB per file: the arrays fit, model.json does not, as on a disk that fills up.
    const auto out = test::run_command("sh -c 'ulimit -f 1; trap \"\" XFSZ; exec " + test::rankone_binary() + " " + model_of +
                                       model.string() + "' 2>&1");
    INFO(out.text);
    CHECK(out.code == 1);
    CHECK_THAT(out.text, Catch::Contains("cannot write"));
    check_no_crash(out);
    CHECK(contents_of(model) == pristine);
    for (const auto& e : fs::directory_iterator(s.path())) CHECK(e.path().filename().string().find(".partial") == std::string::npos);
    REQUIRE(predict().code == 0);
  }
  SECTION("rankone model replaces a model folder whole, and no other folder") {
    std::ofstream(model / "stale.npy") << "left by hand";
    REQUIRE(test::rankone_cli(model_of + model.string()).code == 0);
    CHECK(!fs::exists(model / "stale.npy"));
    CHECK(predict().code == 0);
    fs::create_directories(s / "notes");
    std::ofstream(s / "notes" / "thesis.tex") << "chapter 1";
    const auto out = test::rankone_cli(model_of + (s / "notes").string());
    CHECK(out.code == 1);
    CHECK_THAT(out.text, Catch::Contains("cannot write " + (s / "notes").string() + ": it is a folder that holds no model.json"));
    CHECK(slurp(s / "notes" / "thesis.tex") == "chapter 1");
    restore();
  }
}

TEST_CASE("environment variables RankOne reads are validated, naming the variable", "[hostile][environment]") {
  test::ScratchDir s("environment");
  REQUIRE(test::rankone_cli("run " + s.write("ok.json", kValid).string() + " --out " + (s / "out").string()).code == 0);
  const auto with_env = [&](const std::string& env, const std::string& args) {
    return test::run_command("env " + env + " " + test::rankone_binary() + " " + args + " 2>&1");
  };
  const std::vector<std::tuple<std::string, std::string, std::string>> cases = {
      {"RANKONE_VEGA_DIR=" + (s / "nowhere").string(), "report " + (s / "out").string() + " --out " + (s / "r.html").string(),
       "RANKONE_VEGA_DIR: " + (s / "nowhere").string()},
      {"RANKONE_GNUPLOT=" + s.path().string(), "report " + (s / "out").string() + " --out " + (s / "r.html").string(),
       "RANKONE_GNUPLOT: '" + s.path().string() + "' is not an executable file"},
      {"RANKONE_PLUGIN_PATH=" + (s / "nowhere").string(), "plugins", "RANKONE_PLUGIN_PATH: plugin library not found"},
  };  // RANKONE_PARSED_CACHE_BYTES: tests/file_sources (test_parsed_cache.cpp)
  for (const auto& [env, args, says] : cases) {
    const auto out = with_env(env, args);
    INFO(env << " rankone " << args << "\n" << out.text);
    CHECK(out.code == 2);
    CHECK_THAT(out.text, Catch::Contains(says));
    check_no_crash(out);
  }
  CHECK(!fs::exists(s / "r.html"));
}

TEST_CASE("signals: SIGINT and SIGTERM stop a run cleanly; a second SIGINT at once", "[hostile][signals]") {
  test::ScratchDir s("signals");
  const auto study = s.write("long.json", R"({"name": "long", "seed": 5, "repetitions": 60,
    "data": {"name": "synthetic", "d": 60, "rank": 2},
    "estimators": [{"name": "spectral", "rank": 2, "batch_size": 200000}], "metrics": ["combined_error"]})");
  // Starts a run, sends the signals once it has stored a trial, and returns its output and exit code.
  auto interrupted_run = [&](const std::string& name, const std::vector<int>& signals, const std::string& extra) {
    const fs::path out = s.path() / name;
    const fs::path log = s.path() / (name + ".log");
    const pid_t pid = ::fork();
    if (pid == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      const std::string cmd = test::rankone_binary() + " run " + study.string() + " --out " + out.string() + " --jobs 2 " + extra;
      ::execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), nullptr);
      ::_exit(127);
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (std::chrono::steady_clock::now() < deadline) {  // wait for the first stored trial
      if (fs::exists(ResultsStore::database_path(out)) &&
          test::run_command("sqlite3 '" + ResultsStore::database_path(out).string() + "' 'SELECT count(*) FROM trials' 2>/dev/null").text != "0\n" &&
          !test::run_command("sqlite3 '" + ResultsStore::database_path(out).string() + "' 'SELECT count(*) FROM trials' 2>/dev/null").text.empty())
        break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    for (int sig : signals) {
      ::kill(pid, sig);
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    std::ifstream in(log);
    test::CommandOutput result;
    result.text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return std::make_pair(result, out);
  };

  const auto [sigint, out_int] = interrupted_run("int", {SIGINT}, "");
  INFO(sigint.text);
  CHECK(sigint.code == 130);
  CHECK_THAT(sigint.text, Catch::Contains("interrupted by SIGINT: "));
  CHECK_THAT(sigint.text, Catch::Contains("resume: "));
  CHECK(test::run_command("sqlite3 '" + ResultsStore::database_path(out_int).string() + "' 'SELECT status FROM runs'").text ==
        "interrupted by SIGINT\n");
  check_store_intact(out_int);
  // The command it printed resumes the study: every trial once.
  const auto resumed = test::rankone_cli("run " + study.string() + " --out " + out_int.string() + " --jobs 2");
  CHECK(resumed.code == 0);
  CHECK(ResultsStore(out_int).trials(false).size() == 60);

  const auto [sigterm, out_term] = interrupted_run("term", {SIGTERM}, "");
  INFO(sigterm.text);
  CHECK(sigterm.code == 143);
  CHECK_THAT(sigterm.text, Catch::Contains("interrupted by SIGTERM: "));
  check_store_intact(out_term);

  // In-process trials cannot be abandoned, so the first SIGINT waits for them; the second does not.
  const auto [twice, out_twice] = interrupted_run("twice", {SIGINT, SIGINT}, "--in-process");
  INFO(twice.text);
  CHECK(twice.code == 130);
  CHECK_THAT(twice.text, Catch::Contains("Ctrl-C again to quit at once"));
  check_store_intact(out_twice);
}

TEST_CASE("sweep values with line breaks, quotes and commas reach the report and the CSV intact", "[hostile][output]") {
  test::ScratchDir s("escaping");
  const auto file = s.write("e.json", R"({"name": "esc", "repetitions": 1,
    "data": {"name": "synthetic", "d": 10, "rank": 1},
    "estimators": [{"name": "spectral", "rank": 1, "batch_size": 300}], "metrics": ["combined_error"],
    "sweep": {"grid": {"estimators.0.label": ["two\nlines", "it's, \"quoted\""]}}})");
  const fs::path out = s.path() / "out";
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + out.string()).code == 0);
  const auto report = test::rankone_cli("report " + out.string());
  INFO(report.text);
  CHECK(report.code == 0);
  check_no_crash(report);
  std::ifstream html(out / "report.html");
  const std::string page((std::istreambuf_iterator<char>(html)), std::istreambuf_iterator<char>());
  CHECK_THAT(page, Catch::Contains("it&#39;s, &quot;quoted&quot;"));
  const auto csv = test::rankone_cli("export " + out.string(), /*stdout_only=*/true);
  CHECK(csv.code == 0);
  CHECK_THAT(csv.text, Catch::Contains("\"two\nlines\""));
  CHECK_THAT(csv.text, Catch::Contains("\"it's, \"\"quoted\"\"\""));
}
