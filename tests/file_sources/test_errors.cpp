// Malformed files: each is a DataError naming the file, the line (or record) and the offending text.
#include <catch2/catch.hpp>

#include "file_support.hpp"

using namespace rankone;
using Catch::Contains;
using test::open_source;
using test::Scratch;

namespace {

/// The message of the DataError that opening `params` throws ("" when none is thrown).
std::string data_error_of(const Json& params) {
  try {
    open_source(params);
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("an empty file is an error for every text format", "[file_sources][errors]") {
  Scratch dir("empty");
  const std::string empty = dir.write("empty.txt", "");
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", empty}}), Contains("empty.txt") && Contains("at least one record"));
  CHECK_THAT(data_error_of({{"name", "csv"}, {"file", empty}, {"labels", "y"}}), Contains("a header line"));
  CHECK_THAT(data_error_of({{"name", "ratings"}, {"file", empty}}), Contains("at least one record"));
  CHECK_THAT(data_error_of({{"name", "idx"}, {"file", empty}}), Contains("IDX magic"));
  CHECK_THAT(data_error_of({{"name", "image"}, {"file", empty}}), Contains("empty file"));
  // Only comments: no record either.
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", dir.write("c.svm", "# nothing\n\n")}}),
             Contains("at least one record"));
}

TEST_CASE("a missing file names its parameter and the places looked in", "[file_sources][errors]") {
  // A ConfigError, so that the CLI also names the experiment file.
  std::string message;
  try {
    open_source({{"name", "libsvm"}, {"file", "no/such/file.svm"}});
  } catch (const ConfigError& e) {
    message = e.what();
  }
  CHECK_THAT(message, Contains("at /file") && Contains("no/such/file.svm") && Contains("looked in") &&
                          Contains("fetch-datasets"));
}

TEST_CASE("a truncated gzip file is an error, not a short data set", "[file_sources][errors]") {
  Scratch dir("truncated");
  std::string text;
  for (int i = 0; i < 3000; ++i) text += std::to_string(i % 7) + " 1:" + std::to_string(i) + " 2:0.5\n";
  const std::string whole = dir.write_gzip("whole.svm.gz", text);
  std::ifstream in(whole, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string cut = dir.write("cut.svm.gz", bytes.substr(0, bytes.size() / 2));
  CHECK(open_source({{"name", "libsvm"}, {"file", whole}})->size() > 0);
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", cut}}), Contains("cut.svm.gz") && Contains("truncated"));
}

TEST_CASE("IDX: wrong magic, count mismatch, truncation, trailing bytes", "[file_sources][errors][idx]") {
  Scratch dir("idx_errors");
  const std::string header = std::string("\0\0\x08\x02", 4) + std::string("\0\0\0\x02\0\0\0\x03", 8);
  CHECK_THAT(data_error_of({{"name", "idx"}, {"file", dir.write("m.idx", "P5\n2 2\n255\n")}}),
             Contains("m.idx") && Contains("magic") && Contains("50 35 0A 32"));
  CHECK_THAT(data_error_of({{"name", "idx"}, {"file", dir.write("t.idx", header + "abcd")}}),
             Contains("3 bytes of record 2") && Contains("after 1"));
  CHECK_THAT(data_error_of({{"name", "idx"}, {"file", dir.write("x.idx", header + "abcdefg")}}),
             Contains("then the end"));
  const std::string ok = dir.write("ok.idx", header + "abcdef");
  const std::string labels = dir.write("l.idx", std::string("\0\0\x08\x01\0\0\0\x03", 8) + "abc");
  CHECK_THAT(data_error_of({{"name", "idx"}, {"file", ok}, {"labels", labels}}),
             Contains("l.idx") && Contains("2 labels") && Contains("'3'"));
}

TEST_CASE("CSV: header mismatch and wrong field count", "[file_sources][errors][csv]") {
  Scratch dir("csv_errors");
  const std::string file = dir.write("h.csv", "a,b,c\n1,2,3\n4,5\n");
  CHECK_THAT(data_error_of({{"name", "csv"}, {"file", file}, {"labels", "target"}}),
             Contains("h.csv:1") && Contains("column 'target'") && Contains("a,b,c"));
  CHECK_THAT(data_error_of({{"name", "csv"}, {"file", file}, {"labels", "c"}}),
             Contains("h.csv:3") && Contains("3 fields") && Contains("4,5"));
}

TEST_CASE("NaN and infinite values are rejected in every text format", "[file_sources][errors]") {
  Scratch dir("nonfinite");
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", dir.write("n.svm", "1 1:2\n1 1:nan\n")}}),
             Contains("n.svm:2") && Contains("finite") && Contains("nan"));
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", dir.write("i.svm", "inf 1:2\n")}}),
             Contains("i.svm:1") && Contains("finite") && Contains("inf"));
  CHECK_THAT(data_error_of({{"name", "csv"}, {"file", dir.write("n.csv", "x,y\n1,2\n-Infinity,3\n")}, {"labels", "y"}}),
             Contains("n.csv:3") && Contains("-Infinity"));
  CHECK_THAT(data_error_of({{"name", "ratings"}, {"file", dir.write("n.ratings", "1,2,NaN\n")}}),
             Contains("n.ratings:1") && Contains("a rating"));
  // Overflowing literals are infinite too.
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", dir.write("o.svm", "1 1:1e999\n")}}), Contains("o.svm:1"));
}

TEST_CASE("indices beyond the declared dimension, labels beyond the classes", "[file_sources][errors]") {
  Scratch dir("beyond");
  const std::string file = dir.write("b.svm", "1 1:1 2:1\n2 3:1 7:2\n");
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", file}, {"dimension", 5}}),
             Contains("b.svm:2") && Contains("declared dimension 5") && Contains("7:2"));
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", file}, {"operator", "single_label"}, {"classes", 2}}),
             Contains("b.svm:2") && Contains("[0, 2)") && Contains("'2'"));
  CHECK(open_source({{"name", "libsvm"}, {"file", file}, {"operator", "single_label"}, {"classes", 2},
                     {"first_label", 1}})->shape().d2 == 2);
}

TEST_CASE("non-UTF-8 bytes are an error with their position", "[file_sources][errors]") {
  Scratch dir("utf8");
  CHECK_THAT(data_error_of({{"name", "libsvm"}, {"file", dir.write("u.svm", "1 1:1\n1 2:\xff\n")}}),
             Contains("u.svm:2") && Contains("UTF-8") && Contains("0xFF at column 5"));
  CHECK_THAT(data_error_of({{"name", "csv"}, {"file", dir.write("u.csv", "na\xc3me,y\n1,2\n")}, {"labels", "y"}}),
             Contains("u.csv:1") && Contains("0xC3"));
  // Valid multi-byte text in a header is fine.
  CHECK(open_source({{"name", "csv"}, {"file", dir.write("ok.csv", "größe,y\n1,2\n")}, {"labels", "y"},
                     {"test_fraction", 0.0}})->size() == 1);
}

TEST_CASE("a corrupt image is a DataError", "[file_sources][errors][image]") {
  Scratch dir("image_errors");
  std::ifstream in(test::source_dir() / "plugins/sources/examples/tiny.png", std::ios::binary);
  const std::string png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(data_error_of({{"name", "image"}, {"file", dir.write("cut.png", png.substr(0, 40))}}), Contains("cut.png"));
  CHECK_THAT(data_error_of({{"name", "image"}, {"file", dir.write("cut.jpg", std::string("\xFF\xD8\xFF\xE0junk", 8))}}),
             Contains("cut.jpg") && Contains("JPEG"));
  CHECK_THAT(data_error_of({{"name", "image"}, {"file", dir.write("what.gif", "GIF89a")}}),
             Contains("PNG") && Contains("47 49 46"));
}

TEST_CASE("configuration errors are ConfigErrors at the parameter", "[file_sources][errors]") {
  const std::string file = (test::source_dir() / "plugins/sources/examples/tiny.svm").string();
  CHECK_THROWS_AS(open_source({{"name", "libsvm"}, {"file", file}, {"operator", "entry"}}), ConfigError);
  CHECK_THROWS_AS(open_source({{"name", "libsvm"}, {"file", file}, {"operator", "single_label"}}), ConfigError);
  CHECK_THROWS_AS(open_source({{"name", "libsvm"}, {"file", file}, {"standardize", "center_scale"}}), ConfigError);
  CHECK_THROWS_AS(open_source({{"name", "libsvm"}, {"file", file}, {"test_fraction", 0.6}, {"validation_fraction", 0.4}}),
                  ConfigError);
  CHECK_THROWS_AS(open_source({{"name", "ratings"}, {"file", file}, {"operator", "symmetric_rank_one"}}), ConfigError);
}
