// Each format parsed from small files the tests write: values, labels, dimensions, index bases.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../../plugins/sources/csv_source.hpp"
#include "../../plugins/sources/libsvm_source.hpp"
#include "file_support.hpp"

using namespace rankone;
using test::open_source;
using test::Scratch;
using test::idx_file;

namespace {

}  // namespace

TEST_CASE("libsvm: values, labels and dimension, 1-based detected", "[file_sources][libsvm]") {
  Scratch dir("libsvm_values");
  const std::string file = dir.write("a.svm",
                                     "# comment line\n"
                                     "1.5 1:0.5 3:-2 # trailing comment\n"
                                     "\n"
                                     "-3 qid:7 2:1e-3 4:+4\r\n"
                                     "0.25 4:1");  // no final newline
  auto s = open_source({{"name", "libsvm"}, {"file", file}, {"test_fraction", 0.0}, {"design", "dense"}});
  CHECK(s->shape().d1 == 4);
  CHECK(s->size() == 3);
  const Batch b = s->next(10);
  REQUIRE(b.instances() == 3);
  Matrix expected(4, 3);
  expected << 0.5, 0, 0, 0, 1e-3, 0, -2, 0, 0, 0, 4, 1;
  CHECK(b.left.dense == expected);
  CHECK(b.y == Vector((Vector(3) << 1.5, -3, 0.25).finished()));
  CHECK(s->next(10).empty());
  CHECK(s->test_set() == nullptr);
}

TEST_CASE("libsvm: index base detected, declared, and sparse designs", "[file_sources][libsvm]") {
  Scratch dir("libsvm_base");
  const std::string zero = dir.write("zero.svm", "1 0:1 2:3\n2 1:5\n");
  auto s = open_source({{"name", "libsvm"}, {"file", zero}, {"design", "sparse"}, {"test_fraction", 0.0}});
  CHECK(s->shape().d1 == 3);
  const Batch b = s->next(5);
  REQUIRE(b.left.kind == DesignSide::Kind::sparse);
  CHECK(b.left.to_dense() == (Matrix(3, 2) << 1, 0, 0, 5, 3, 0).finished());

  // The same file declared 1-based: index 0 is below the base.
  CHECK_THROWS_AS(open_source({{"name", "libsvm"}, {"file", zero}, {"indexing", "one"}}), DataError);
  // Declared dimension larger than the indices: kept.
  auto wide = open_source({{"name", "libsvm"}, {"file", zero}, {"dimension", 10}, {"test_fraction", 0.0}});
  CHECK(wide->shape().d1 == 10);
}

TEST_CASE("libsvm: parse_libsvm_line reads multi-label sets and rejects disorder", "[file_sources][libsvm]") {
  sources::Record r;
  sources::parse_libsvm_line("2,0,5 1:1 3:2", 1, 0, r, "f", 1);
  CHECK(r.labels == std::vector<std::int32_t>{2, 0, 5});
  CHECK(r.feature_index == std::vector<std::int64_t>{0, 2});
  sources::parse_libsvm_line("1:1 3:2", 1, 0, r, "f", 1);  // no label at all
  CHECK(r.labels.empty());
  CHECK_THROWS_WITH(sources::parse_libsvm_line("1 3:1 2:1", 1, 0, r, "f", 4),
                    Catch::Contains("f:4") && Catch::Contains("strictly increasing") && Catch::Contains("2:1"));
  CHECK_THROWS_AS(sources::parse_libsvm_line("1 3:x", 1, 0, r, "f", 1), DataError);
  CHECK_THROWS_AS(sources::parse_libsvm_line("1 3", 1, 0, r, "f", 1), DataError);
  CHECK_THROWS_AS(sources::parse_libsvm_line("1,,2 3:1", 1, 0, r, "f", 1), DataError);
}

TEST_CASE("csv: header names, chosen columns, quoting", "[file_sources][csv]") {
  Scratch dir("csv_columns");
  const std::string file = dir.write("a.csv",
                                     "id,\"a, quoted\",b,target\n"
                                     "1,2.5,3,10\n"
                                     "2,\"-1\",4,20\n");
  // Columns by position ("1": a name with a comma) and by name.
  auto t = open_source({{"name", "csv"}, {"file", file}, {"labels", "3"}, {"features", "1,b"}, {"test_fraction", 0.0}});
  const Batch b = t->next(5);
  CHECK(b.left.dense == (Matrix(2, 2) << 2.5, -1, 3, 4).finished());
  CHECK(b.y == Vector((Vector(2) << 10, 20).finished()));

  std::vector<std::string> fields;
  sources::split_csv_line(R"(x,"say ""hi""",,  "q" ,)", ',', fields, "f", 1);
  CHECK(fields == std::vector<std::string>{"x", "say \"hi\"", "", "q", ""});
  CHECK_THROWS_WITH(sources::split_csv_line(R"(x,"open)", ',', fields, "f", 3),
                    Catch::Contains("f:3") && Catch::Contains("closing"));
}

TEST_CASE("csv: missing values by policy; mean imputation uses training records only", "[file_sources][csv]") {
  Scratch dir("csv_missing");
  std::string text = "u,v,y\n";
  for (int i = 0; i < 40; ++i) text += std::to_string(i) + "," + (i % 5 == 0 ? "NA" : std::to_string(2 * i)) + ",1\n";
  const std::string file = dir.write("m.csv", text);
  const Json base = {{"name", "csv"}, {"file", file}, {"labels", "y"}, {"test_fraction", 0.25}};

  CHECK_THROWS_WITH(open_source(base), Catch::Contains("m.csv:2") && Catch::Contains("missing"));

  Json skip = base;
  skip["missing"] = "skip";
  auto skipped = open_source(skip);
  CHECK(*skipped->size() + static_cast<const sources::FileSource&>(*skipped).records_in(sources::Part::test) == 32);

  Json zero = base;
  zero["missing"] = "zero";
  const Batch z = test::whole_pass(*open_source(zero));
  for (Index i = 0; i < z.instances(); ++i)
    if (static_cast<int>(z.left.dense(0, i)) % 5 == 0) CHECK(z.left.dense(1, i) == 0.0);

  Json mean = base;
  mean["missing"] = "mean";
  auto m = open_source(mean);
  const Batch all = test::whole_pass(*m);
  // The training mean of v over present training values, computed here independently.
  double sum = 0.0;
  int count = 0;
  for (Index i = 0; i < all.instances(); ++i) {
    const int u = static_cast<int>(all.left.dense(0, i));
    if (u % 5 != 0) sum += 2 * u, ++count;
  }
  for (Index i = 0; i < all.instances(); ++i)
    if (static_cast<int>(all.left.dense(0, i)) % 5 == 0) CHECK(all.left.dense(1, i) == Approx(sum / count).epsilon(1e-12));
}

TEST_CASE("csv: several label columns make a multi-label set for single_label", "[file_sources][csv]") {
  Scratch dir("csv_multilabel");
  const std::string file = dir.write("ml.csv", "f1,f2,l0,l1,l2\n1,2,1,0,1\n3,4,0,0,0\n5,6,0,1,0\n");
  auto s = open_source({{"name", "csv"}, {"file", file}, {"labels", "l0,l1,l2"}, {"operator", "single_label"},
                        {"classes", 3}, {"label_view", "full"}, {"test_fraction", 0.0}});
  CHECK(s->shape().d2 == 3);
  CHECK(s->link() == Link::sign);
  const Batch b = s->next(3);
  REQUIRE(b.right->kind == DesignSide::Kind::all);
  // Label-major: y(i + n j).
  CHECK(b.y == Vector((Vector(9) << 1, -1, -1, -1, -1, 1, 1, -1, -1).finished()));
}

TEST_CASE("idx: ubyte images with labels, gzip or plain, and wider types", "[file_sources][idx]") {
  Scratch dir("idx_values");
  std::string pixels;
  for (int i = 0; i < 5 * 6; ++i) pixels += static_cast<char>(i * 8);
  const std::string images = idx_file(0x08, {5, 2, 3}, pixels);
  const std::string labels = idx_file(0x08, {5}, std::string("\x00\x01\x02\x01\x00", 5));
  const std::string plain = dir.write("img.idx", images), plain_labels = dir.write("lab.idx", labels);
  const std::string gz = dir.write_gzip("img.idx.gz", images), gz_labels = dir.write_gzip("lab.idx.gz", labels);

  const Json base = {{"name", "idx"}, {"test_fraction", 0.0}, {"operator", "single_label"}, {"classes", 3},
                     {"value_scale", 1.0 / 255.0}};
  Json a = base, b = base;
  a["file"] = plain, a["labels"] = plain_labels;
  b["file"] = gz, b["labels"] = gz_labels;
  auto sa = open_source(a), sb = open_source(b);
  CHECK(sa->shape().d1 == 6);
  const Batch ba = sa->next(5), bb = sb->next(5);
  CHECK(ba.left.dense == bb.left.dense);
  CHECK(ba.left.dense(5, 4) == Approx((4 * 6 + 5) * 8 / 255.0));
  CHECK(ba.y == bb.y);

  // int16 and float64 elements, big-endian.
  const std::string shorts = idx_file(0x0B, {2, 2}, std::string("\xFF\xFE\x01\x00\x00\x02\x80\x00", 8));
  auto s16 = open_source({{"name", "idx"}, {"file", dir.write("s.idx", shorts)}, {"test_fraction", 0.0}});
  CHECK(s16->next(2).left.dense == (Matrix(2, 2) << -2, 2, 256, -32768).finished());
  double values[2] = {1.25, -3.5};
  std::string payload;
  for (double v : values) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, 8);
    for (int shift = 56; shift >= 0; shift -= 8) payload += static_cast<char>((bits >> shift) & 0xFF);
  }
  auto s64 = open_source({{"name", "idx"}, {"file", dir.write("d.idx", idx_file(0x0E, {1, 2}, payload))},
                          {"test_fraction", 0.0}});
  CHECK(s64->next(1).left.dense == (Matrix(2, 1) << 1.25, -3.5).finished());
}

TEST_CASE("ratings: remapped ids, entry designs, timestamp order", "[file_sources][ratings]") {
  Scratch dir("ratings");
  const std::string file = dir.write("r.csv",
                                     "userId,movieId,rating,timestamp\n"
                                     "10,500,4.5,300\n"
                                     "20,600,3,100\n"
                                     "10,600,1,200\n");
  auto s = open_source({{"name", "ratings"}, {"file", file}, {"test_fraction", 0.0}});
  CHECK(s->shape().d1 == 2);
  CHECK(s->shape().d2 == 2);
  const Batch b = s->next(10);
  CHECK(b.left.kind == DesignSide::Kind::index);
  CHECK(b.left.index == (IndexVector(3) << 0, 1, 0).finished());
  CHECK(b.right->index == (IndexVector(3) << 0, 1, 1).finished());
  CHECK(b.y == Vector((Vector(3) << 4.5, 3, 1).finished()));

  auto t = open_source({{"name", "ratings"}, {"file", file}, {"order", "timestamp"}, {"test_fraction", 0.0}});
  CHECK(t->next(10).y == Vector((Vector(3) << 3, 1, 4.5).finished()));
  t->rewind();
  CHECK(t->next(10).y == Vector((Vector(3) << 3, 1, 4.5).finished()));

  auto direct = open_source({{"name", "ratings"}, {"file", file}, {"ids", "zero_based"}, {"test_fraction", 0.0}});
  CHECK(direct->shape().d1 == 21);
  CHECK(direct->shape().d2 == 601);
  CHECK_THROWS_WITH(open_source({{"name", "ratings"}, {"file", file}, {"ids", "one_based"}, {"users", 15}}),
                    Catch::Contains("r.csv:3") && Catch::Contains("declared count 15") && Catch::Contains("'20'"));
}

TEST_CASE("ratings: the delimiter is decided on the first rating (LIBMF, MovieLens 1M, tabs, commas)",
          "[file_sources][ratings]") {
  Scratch dir("ratings_delimiter");
  // The same three ratings as each format writes them; LIBMF's `row col value` needs no option.
  const std::vector<std::pair<std::string, std::string>> files = {
      {"libmf.txt", "0 1 4.5\n2  0 3\n0\t0 1\n"},
      {"ml1m.dat", "10::20::4.5::978300760\n30::10::3::978300761\n10::10::1::978300762\n"},
      {"tabs.tsv", "10\t20\t4.5\n30\t10\t3\n10\t10\t1\n"},
      {"commas.csv", "user,item,rating\n10,20,4.5\n30,10,3\n10,10,1\n"},
      {"one_word_header.csv", "ratings\n10,20,4.5\n30,10,3\n10,10,1\n"}};  // the header does not decide
  for (const auto& [name, text] : files) {
    INFO(name);
    auto s = open_source({{"name", "ratings"}, {"file", dir.write(name, text)}, {"test_fraction", 0.0}});
    const Batch b = s->next(10);
    CHECK(b.y == Vector((Vector(3) << 4.5, 3, 1).finished()));
    CHECK(b.left.index == (IndexVector(3) << 0, 1, 0).finished());   // remapped in order of appearance
    CHECK(b.right->index == (IndexVector(3) << 0, 1, 1).finished());
    std::string notes;
    for (const auto& n : s->notes()) notes += n + "\n";
    INFO(notes);
    CHECK(notes.find("(delimiter \"auto\": decided on its first rating)") != std::string::npos);
  }
  // Runs of blanks, given explicitly; a comma then is part of a field, which is not a number.
  const std::string libmf = dir.write("explicit.txt", " 0   1 4.5 \n1 0 3\n");
  auto explicit_blanks = open_source({{"name", "ratings"}, {"file", libmf}, {"delimiter", "whitespace"},
                                      {"ids", "zero_based"}, {"test_fraction", 0.0}});
  CHECK(explicit_blanks->next(10).y == Vector((Vector(2) << 4.5, 3).finished()));
  CHECK_THROWS_WITH(open_source({{"name", "ratings"}, {"file", dir.write("mixed.txt", "0 1 4.5\n1,0,3\n")},
                                 {"test_fraction", 0.0}}),
                    Catch::Contains("mixed.txt:2"));
}

TEST_CASE("ratings: test_file shares the training file's ids; new ids widen the matrix and are noted",
          "[file_sources][ratings]") {
  Scratch dir("ratings_test_file");
  // LIBMF's tr/te pair as it comes: blank-separated, ids as written.
  const std::string train = dir.write("tr.txt", "10 500 4.5\n20 600 3\n10 600 1\n");
  const std::string test = dir.write("te.txt", "20 500 2\n30 600 5\n");
  auto s = open_source({{"name", "ratings"}, {"file", train}, {"test_file", test}, {"test_fraction", 0.0}});
  CHECK(s->shape().d1 == 3);  // users 10, 20 and the test file's 30
  CHECK(s->shape().d2 == 2);
  CHECK(s->next(10).y == Vector((Vector(3) << 4.5, 3, 1).finished()));  // every training rating trains
  const Batch* held = s->test_set();
  REQUIRE(held != nullptr);
  REQUIRE(held->size() == 2);
  std::set<std::tuple<Index, Index, double>> entries;
  for (Index t = 0; t < held->size(); ++t) entries.insert({held->left.index(t), held->right->index(t), held->y(t)});
  // User 20 is row 1 and item 500 column 0 in both files; user 30 gets the next row.
  CHECK(entries == std::set<std::tuple<Index, Index, double>>{{1, 0, 2.0}, {2, 1, 5.0}});
  std::string notes;
  for (const auto& n : s->notes()) notes += n + "\n";
  INFO(notes);
  CHECK(notes.find("te.txt (test_file) widens the matrix from 2 × 2 to 3 × 2: its rows and columns beyond the "
                   "training file's get no training data (cold start)") != std::string::npos);
  // Declared ids: the same widening, the same note.
  auto direct = open_source({{"name", "ratings"}, {"file", dir.write("tr0.txt", "0 0 1\n1 1 2\n")},
                             {"test_file", dir.write("te0.txt", "2 1 3\n")}, {"ids", "zero_based"}, {"test_fraction", 0.0}});
  CHECK(direct->shape().d1 == 3);
  std::string direct_notes;
  for (const auto& n : direct->notes()) direct_notes += n + "\n";
  CHECK(direct_notes.find("te0.txt (test_file) widens the matrix from 2 × 2 to 3 × 2") != std::string::npos);

  CHECK_THROWS_WITH(open_source({{"name", "ratings"}, {"file", train}, {"test_file", test}, {"test_fraction", 0.0},
                                 {"order", "timestamp"}, {"split", "chronological"}}),
                    Catch::Contains("/test_file") && Catch::Contains("chronological split makes its own test part"));
  CHECK(open_source({{"name", "ratings"}, {"file", train}, {"test_file", test}})->test_set()->instances() > 0);
  CHECK_THROWS_WITH(open_source({{"name", "ratings"}, {"file", train}, {"test_file", test}, {"test_fraction", 0.1}}),
                    Catch::Contains("drop test_fraction or set it to 0"));
}

TEST_CASE("image: a PNG's pixels as entries, every pixel once per pass", "[file_sources][image]") {
  const std::string example = (test::source_dir() / "plugins/sources/examples/tiny.png").string();
  auto s = open_source({{"name", "image"}, {"file", example}, {"test_fraction", 0.0}, {"value_scale", 1.0}});
  CHECK(s->shape().d1 == 6);
  CHECK(s->shape().d2 == 5);
  const Batch b = s->next(1000);
  REQUIRE(b.size() == 30);
  std::set<std::pair<int, int>> seen;
  for (Index i = 0; i < b.size(); ++i) {
    const int row = b.left.index(i), col = b.right->index(i);
    seen.insert({row, col});
    // The generator of tiny.png: value (16 (x + y) + 7 x y) mod 256 at column x, row y.
    CHECK(b.y(i) == (16 * (col + row) + 7 * col * row) % 256);
  }
  CHECK(seen.size() == 30);
  auto colour = open_source({{"name", "image"}, {"file", example}, {"colour", "rgb"}, {"test_fraction", 0.0}});
  CHECK(colour->shape().d2 == 15);
}
