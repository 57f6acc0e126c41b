#include "rankone/store/npy.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>

#include "rankone/core/atomic_file.hpp"
#include "rankone/core/errors.hpp"

namespace rankone {

static_assert(std::endian::native == std::endian::little, "the .npy files are written little-endian as in memory");

namespace {

constexpr char kMagic[] = "\x93NUMPY";

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& what) {
  throw InputError(path.string() + ": " + what);
}

/// The header's dictionary, as numpy writes it: {'descr': '<f8', 'fortran_order': False,
/// 'shape': (3, 2), }. Read by one scan (no regular expression: a long header must not recurse).
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<std::string>> shape;  // the extents as written, trimmed
};

Header parse_header(const std::filesystem::path& path, const std::string& text) {
  std::size_t at = 0;
  const auto skip_space = [&] {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n')) ++at;
  };
  const auto malformed = [&](const std::string& expected) {
    bad(path, "header at character " + std::to_string(at) + ": expected " + expected +
                  " (a dictionary {'descr': ..., 'fortran_order': ..., 'shape': (...)})");
  };
  const auto expect = [&](char c) {
    skip_space();
    if (at >= text.size() || text[at] != c) malformed(std::string("'") + c + "'");
    ++at;
  };
  const auto quoted = [&] {
    skip_space();
    if (at >= text.size() || (text[at] != '\'' && text[at] != '"')) malformed("a quoted string");
    const char quote = text[at++];
    const std::size_t end = text.find(quote, at);
    if (end == std::string::npos) malformed("a closing quote");
    std::string value = text.substr(at, end - at);
    at = end + 1;
    return value;
  };
  const auto word = [&] {  // True, False, or an extent (checked by the caller: "-1" is read to be refused)
    skip_space();
    const std::size_t from = at;
    while (at < text.size() && std::string_view(",)}:'\" \t\n(").find(text[at]) == std::string_view::npos) ++at;
    return text.substr(from, at - from);
  };
  Header h;
  expect('{');
  for (skip_space(); at < text.size() && text[at] != '}'; skip_space()) {
    const std::string key = quoted();
    expect(':');
    skip_space();
    if (at < text.size() && text[at] == '(') {  // a tuple: the shape
      ++at;
      std::vector<std::string> extents;
      for (skip_space(); at < text.size() && text[at] != ')'; skip_space()) {
        extents.push_back(word());
        skip_space();
        if (at < text.size() && text[at] == ',') ++at;
        else if (at < text.size() && text[at] != ')') malformed("',' or ')' in a tuple of integers");
      }
      expect(')');
      if (key == "shape") h.shape = std::move(extents);
    } else if (at < text.size() && (text[at] == '\'' || text[at] == '"')) {
      std::string value = quoted();
      if (key == "descr") h.descr = std::move(value);
    } else {
      const std::string value = word();
      if (value != "True" && value != "False") malformed("a string, a tuple, True or False");
      if (key == "fortran_order") h.fortran_order = value == "True";
    }
    skip_space();
    if (at < text.size() && text[at] == ',') ++at;
    else if (at < text.size() && text[at] != '}') malformed("',' or '}'");
  }
  expect('}');
  return h;
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

  const Header h = parse_header(path, header);
  if (!h.descr) bad(path, "header without 'descr'");
  const std::string descr = *h.descr;
  if (descr != "<f8" && descr != "<i8")
    bad(path, "array of type '" + descr.substr(0, 40) + "'; expected float64 ('<f8') or int64 ('<i8')");
  if (!h.fortran_order) bad(path, "header without 'fortran_order'");
  const bool fortran = *h.fortran_order;
  if (!h.shape) bad(path, "header without 'shape'");
  NamedArray a;
  a.integral = descr == "<i8";
  // (n,) or (n, m) with plain non-negative extents: a sign or a stray character is not read past.
  const std::vector<std::string>& parts = *h.shape;
  std::string extents;
  for (const std::string& e : parts) extents += (extents.empty() ? "" : ", ") + e.substr(0, 20);
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
