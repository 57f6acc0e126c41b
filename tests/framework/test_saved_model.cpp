// The pieces of a saved model: the .npy format (as numpy writes it, both orders), the model's header
// and arrays through JSON (between processes), the store's blob and a folder, exactly.
#include <catch2/catch.hpp>

#include <fstream>
#include <limits>

#include "rankone/core/errors.hpp"
#include "rankone/store/npy.hpp"
#include "rankone/store/saved_model.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

/// Writes a .npy file byte by byte, as numpy 1.24 writes np.save(path, np.array(..., order=...)).
void write_raw(const fs::path& path, const std::string& header, const std::vector<double>& values) {
  std::string padded = header;
  while ((10 + padded.size() + 1) % 64 != 0) padded += ' ';
  padded += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(padded.size() & 0xff)).put(static_cast<char>(padded.size() >> 8));
  out << padded;
  out.write(reinterpret_cast<const char*>(values.data()), static_cast<std::streamsize>(values.size() * 8));
}

SavedModel example_model() {
  SavedModel m;
  Matrix left(3, 2), right(3, 2);
  left << 1, 2, 3, 4, 5, 6;
  right << 0.1, -0.2, 1.0 / 3.0, 4e-300, -5, 6;
  m.header = Json{{"format", SavedModel::kFormat}, {"version", SavedModel::kVersion}, {"data", {{"name", "x"}}},
                  {"model", {{"symmetrize", true}, {"zero_diagonal", false}, {"bias", 0.1 + 0.2}}}};
  m.arrays["left"] = NamedArray::of(left);
  m.arrays["right"] = NamedArray::of(right);
  m.arrays["row_ids"] = NamedArray::of(std::vector<std::int64_t>{7, -3, std::int64_t{1} << 60});
  Json arrays = Json::object();
  for (const auto& [name, a] : m.arrays)
    arrays[name] = Json{{"dtype", a.integral ? "int64" : "float64"}, {"shape", a.shape},
                        {"role", name == "row_ids" ? "preparation" : "model"}};
  m.header["arrays"] = arrays;
  return m;
}

void require_same(const SavedModel& a, const SavedModel& b) {
  REQUIRE(a.arrays.size() == b.arrays.size());
  for (const auto& [name, x] : a.arrays) {
    CAPTURE(name);
    const NamedArray& y = b.arrays.at(name);
    CHECK(x.shape == y.shape);
    CHECK(x.integral == y.integral);
    CHECK(x.reals == y.reals);  // exactly
    CHECK(x.integers == y.integers);
  }
  CHECK(a.estimate().bias == b.estimate().bias);
}

}  // namespace

TEST_CASE("npy: arrays round-trip exactly; numpy's C and Fortran orders read the same matrix", "[saved_model]") {
  test::ScratchDir s("npy");
  Matrix m(2, 3);
  m << 1, 2, 3, 4, 5, 6.5;
  write_npy(s / "m.npy", NamedArray::of(m));
  CHECK(read_npy(s / "m.npy").matrix() == m);
  write_npy(s / "v.npy", NamedArray::of(Vector(Vector::LinSpaced(5, -1, 1))));
  CHECK(read_npy(s / "v.npy").shape == std::vector<std::int64_t>{5});
  write_npy(s / "i.npy", NamedArray::of(std::vector<std::int64_t>{3, -1}));
  CHECK(read_npy(s / "i.npy").integers == std::vector<std::int64_t>{3, -1});
  CHECK(fs::file_size(s / "m.npy") == 128 + 6 * 8);  // a 64-byte-aligned header, as numpy's

  write_raw(s / "c.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", {1, 2, 3, 4, 5, 6.5});
  write_raw(s / "f.npy", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", {1, 4, 2, 5, 3, 6.5});
  CHECK(read_npy(s / "c.npy").matrix() == m);
  CHECK(read_npy(s / "f.npy").matrix() == m);

  write_raw(s / "f4.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", {1.0});
  CHECK_THROWS_WITH(read_npy(s / "f4.npy"), Contains("f4.npy: array of type '<f4'; expected float64"));
  write_raw(s / "cube.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }", {1.0});
  CHECK_THROWS_WITH(read_npy(s / "cube.npy"), Contains("an array of 3 dimensions; expected 1 or 2"));
  write_raw(s / "short.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }", {1.0});
  CHECK_THROWS_WITH(read_npy(s / "short.npy"), Contains("truncated data: expected 4 elements"));
  CHECK_THROWS_AS(read_npy(s / "absent.npy"), InputError);
  // The shape is read strictly and the data must be exactly that long.
  write_raw(s / "negative.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 1), }", {1.0});
  CHECK_THROWS_WITH(read_npy(s / "negative.npy"), Contains("expected (n,) or (n, m) with non-negative integer extents"));
  write_raw(s / "long.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", {1.0, 2.0});
  CHECK_THROWS_WITH(read_npy(s / "long.npy"), Contains("trailing data"));
  write_raw(s / "huge.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (999999999999999, 999999999999999), }", {1.0});
  CHECK_THROWS_WITH(read_npy(s / "huge.npy"), Contains("truncated data"));  // refused before allocating
  // The header is read by one scan: any length, no recursion; what is not numpy's dictionary is named.
  write_raw(s / "wide.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2," + std::string(60000, ' ') + "), }", {1.0, 2.0});
  CHECK(read_npy(s / "wide.npy").reals == std::vector<double>{1.0, 2.0});
  write_raw(s / "open.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (2," + std::string(50000, '(') , {1.0});
  CHECK_THROWS_WITH(read_npy(s / "open.npy"), Contains("header at character"));
  write_raw(s / "nodict.npy", "'descr': '<f8'", {1.0});
  CHECK_THROWS_WITH(read_npy(s / "nodict.npy"), Contains("expected '{'"));
  write_raw(s / "noshape.npy", "{'descr': '<f8', 'fortran_order': False, }", {1.0});
  CHECK_THROWS_WITH(read_npy(s / "noshape.npy"), Contains("header without 'shape'"));
}

TEST_CASE("a saved model round-trips through JSON, the store's blob and a folder, exactly", "[saved_model]") {
  const SavedModel m = example_model();
  require_same(m, SavedModel::from_json(Json::parse(m.to_json().dump())));
  require_same(m, SavedModel::unpack(m.header, m.pack()));
  CHECK_THROWS_WITH(SavedModel::unpack(m.header, m.pack().substr(8)), Contains("shorter than its header says"));

  test::ScratchDir s("saved_model");
  m.write_folder(s / "model");
  const SavedModel back = SavedModel::read_folder(s / "model");
  require_same(m, back);
  CHECK(back.preparation().arrays.count("row_ids") == 1);
  CHECK(back.preparation().arrays.count("left") == 0);

  // A folder that holds what model.json did not record is refused, naming the file.
  write_npy(s / "model" / "right.npy", NamedArray::of(Matrix(Matrix::Zero(4, 2))));
  CHECK_THROWS_WITH(SavedModel::read_folder(s / "model"), Contains("right.npy: checksum mismatch"));

  // A non-finite model is not written, and nothing is left behind.
  SavedModel bad = m;
  bad.arrays["left"].reals[4] = std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(bad.write_folder(s / "bad"), Contains("array left holds a non-finite value (inf at element 4)"));
  CHECK(!fs::exists(s / "bad"));
  for (const auto& e : fs::directory_iterator(s.path())) CHECK(e.path().filename().string().find(".partial") == std::string::npos);
}
