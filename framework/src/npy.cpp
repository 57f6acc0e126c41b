#include "rankone/store/npy.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <regex>
#include <string>

#include "rankone/core/atomic_file.hpp"
#include "rankone/core/errors.hpp"

namespace rankone {

static_assert(std::endian::native == std::endian::little, "the .npy files are written little-endian as in memory");

namespace {

constexpr char kMagic[] = "\x93NUMPY";

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& what) {
  throw InputError(path.string() + ": " + what);
}

}  // namespace

void write_npy(const std::filesystem::path& path, const NamedArray& array) {
  std::string shape = "(";
  for (const std::int64_t e : array.shape) shape += std::to_string(e) + ", ";
  if (array.shape.size() > 1) shape.resize(shape.size() - 2);  // (3,) for one dimension, (3, 2) for two
  shape += ")";
  std::string header = std::string("{'descr': '") + (array.integral ? "<i8" : "<f8") +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Version 1.0: magic, version, a 2-byte header length; the data starts 64-byte aligned.
  const std::size_t unpadded = 6 + 2 + 2 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  AtomicFile file(path);
  std::ostream& out = file.stream();
  out.write(kMagic, 6);
  out.put(1).put(0);
  const auto length = static_cast<std::uint16_t>(header.size());
  out.put(static_cast<char>(length & 0xff)).put(static_cast<char>(length >> 8));
  out << header;
  if (array.integral)
    out.write(reinterpret_cast<const char*>(array.integers.data()), static_cast<std::streamsize>(array.integers.size() * 8));
  else
    out.write(reinterpret_cast<const char*>(array.reals.data()), static_cast<std::streamsize>(array.reals.size() * 8));
  file.commit();
}

NamedArray read_npy(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) bad(path, "cannot be opened");
  char magic[8] = {};
  if (!in.read(magic, 8) || std::memcmp(magic, kMagic, 6) != 0) bad(path, "not a .npy file (no \\x93NUMPY magic)");
  const int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) bad(path, ".npy format version " + std::to_string(major) + " (1 to 3 are read)");
  std::uint32_t length = 0;
  unsigned char bytes[4] = {};
  const int width = major == 1 ? 2 : 4;
  if (!in.read(reinterpret_cast<char*>(bytes), width)) bad(path, "truncated header");
  for (int i = width - 1; i >= 0; --i) length = length << 8 | bytes[i];
  if (length > (1u << 20)) bad(path, "a header of " + std::to_string(length) + " bytes (numpy's are under 1 MiB)");
  std::string header(length, '\0');
  if (!in.read(header.data(), length)) bad(path, "truncated header");

  std::smatch m;
  if (!std::regex_search(header, m, std::regex(R"('descr'\s*:\s*'([^']*)')")))
    bad(path, "header without 'descr'");
  const std::string descr = m[1];
  if (descr != "<f8" && descr != "<i8")
    bad(path, "array of type '" + descr + "'; expected float64 ('<f8') or int64 ('<i8')");
  if (!std::regex_search(header, m, std::regex(R"('fortran_order'\s*:\s*(True|False))")))
    bad(path, "header without 'fortran_order'");
  const bool fortran = m[1] == "True";
  if (!std::regex_search(header, m, std::regex(R"('shape'\s*:\s*\(([^)]*)\))"))) bad(path, "header without 'shape'");
  NamedArray a;
  a.integral = descr == "<i8";
  const std::string extents = m[1];
  // (n,) or (n, m) with plain non-negative extents: a sign or a stray character is not read past.
  std::vector<std::string> parts;
  for (std::size_t from = 0;;) {
    const std::size_t comma = extents.find(',', from);
    const std::string part = extents.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    const auto first = part.find_first_not_of(" \t"), last = part.find_last_not_of(" \t");
    parts.push_back(first == std::string::npos ? "" : part.substr(first, last - first + 1));
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  if (parts.size() > 1 && parts.back().empty()) parts.pop_back();  // (n,): the trailing comma
  if (parts.size() == 1 && parts[0].empty()) parts.clear();         // (): a 0-d array
  if (parts.empty() || parts.size() > 2)
    bad(path, "an array of " + std::to_string(parts.size()) + " dimensions; expected 1 or 2");
  for (const std::string& e : parts) {
    if (e.empty() || e.size() > 15 || e.find_first_not_of("0123456789") != std::string::npos)
      bad(path, "shape (" + extents + "): expected (n,) or (n, m) with non-negative integer extents");
    a.shape.push_back(std::stoll(e));
  }
  // The data must be exactly what the shape says: checked against the file's size before allocating.
  const auto data_start = static_cast<std::uintmax_t>(in.tellg());
  const std::uintmax_t size = std::filesystem::file_size(path);
  const std::uintmax_t available = size >= data_start ? size - data_start : 0;
  // Extents of up to 15 digits each: their product fits in 2⁶³ only when checked this way first.
  if (a.shape.size() == 2 && a.shape[0] > 0 &&
      static_cast<std::uintmax_t>(a.shape[1]) > available / 8 / static_cast<std::uintmax_t>(a.shape[0]))
    bad(path, "truncated data: expected " + std::to_string(a.shape[0]) + " × " + std::to_string(a.shape[1]) +
                  " elements, the file holds " + std::to_string(available) + " bytes of data");
  const auto n = static_cast<std::size_t>(a.elements());
  if (static_cast<std::uintmax_t>(n) * 8 != available)
    bad(path, (static_cast<std::uintmax_t>(n) * 8 > available ? "truncated data: expected " : "trailing data: expected ") +
                  std::to_string(n) + " elements, the file holds " + std::to_string(available) + " bytes of data");
  auto read = [&](auto& values) {
    values.resize(n);
    if (!in.read(reinterpret_cast<char*>(values.data()), static_cast<std::streamsize>(n * 8)))
      bad(path, "truncated data: expected " + std::to_string(n) + " elements");
    if (fortran && a.shape.size() == 2) {  // column-major on disk: transpose into row-major
      auto copy = values;
      const auto rows = static_cast<std::size_t>(a.shape[0]), cols = static_cast<std::size_t>(a.shape[1]);
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) values[i * cols + j] = copy[j * rows + i];
    }
  };
  if (a.integral) read(a.integers);
  else read(a.reals);
  return a;
}

}  // namespace rankone
