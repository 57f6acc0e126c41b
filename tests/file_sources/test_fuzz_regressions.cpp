// Regressions of the parser bugs found by fuzzing (fuzz/, docs/fuzzing.md) and by reading the
// parsers while fixing them. Each input is the minimised one; each must end in a DataError that
// names what was expected, and never in a crash, an overflow or a huge allocation.
#include <catch2/catch.hpp>

#include <fstream>
#include <limits>

#include "file_support.hpp"
#include "idx_source.hpp"
#include "image_source.hpp"
#include "libsvm_source.hpp"
#include "ratings_source.hpp"

using namespace rankone;
using Catch::Contains;

namespace {

/// The message of the DataError that draining `reader` (two passes) throws; "" when none is.
std::string drain_error(sources::RecordReader& reader) {
  try {
    sources::Record record;
    for (int pass = 0; pass < 2; ++pass) {
      reader.start(7);
      while (reader.next(record)) {
      }
    }
  } catch (const DataError& e) {
    return e.what();
  }
  return "";
}

std::string libsvm_error(const std::string& text, sources::LibsvmIndexing indexing) {
  sources::LibsvmOptions options;
  options.indexing = indexing;
  sources::LibsvmReader reader(sources::memory_opener(text, "f.svm"), options);
  return drain_error(reader);
}

/// Peak resident memory of this process (VmHWM) in MB.
double peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return 0.0;
}

}  // namespace

TEST_CASE("an IDX header announcing a huge record fails at the end of the data, without allocating it",
          "[file_sources][fuzz]") {
  // 00 00 0E 03: float64, 3 dimensions: 1 record of 16384 × 16384 elements (2^28 · 8 bytes = 2 GiB)
  // followed by 4 bytes. The reader used to size its record buffer from the header.
  const std::string bytes("\x00\x00\x0E\x03\x00\x00\x00\x01\x00\x00\x40\x00\x00\x00\x40\x00" "abcd", 20);
  const double before = peak_rss_mb();
  sources::IdxReader reader(sources::memory_opener(bytes, "big.idx"), nullptr, 1.0);
  CHECK_THAT(drain_error(reader), Contains("big.idx") && Contains("2147483648 bytes of record 1") &&
                                      Contains("the end of the file after 4"));
  // The buffer grows with the data (4 bytes here); 2 GiB would have been zero-filled.
  CHECK(peak_rss_mb() - before < 256.0);
}

TEST_CASE("libsvm: the most negative feature index is an error, not an overflow", "[file_sources][fuzz]") {
  // raw index - 1 overflowed (UBSan: signed integer overflow) and wrapped to a huge valid index.
  CHECK_THAT(libsvm_error("1 -9223372036854775808:1\n", sources::LibsvmIndexing::one_based),
             Contains("f.svm:1") && Contains("feature indices ≥ 1") && Contains("-9223372036854775808:1"));
  CHECK_THAT(libsvm_error("1 -9223372036854775808:1\n", sources::LibsvmIndexing::zero_based),
             Contains("feature indices ≥ 0"));
}

TEST_CASE("libsvm: feature indices beyond 2^31 are an error, not a 2^63-wide design", "[file_sources][fuzz]") {
  CHECK_THAT(libsvm_error("1 1:1\n0 9223372036854775807:1\n", sources::LibsvmIndexing::one_based),
             Contains("f.svm:2") && Contains("feature indices below 2^31"));
  CHECK_THAT(libsvm_error("1 2147483648:1\n", sources::LibsvmIndexing::automatic), Contains("below 2^31"));
  // The largest allowed one still parses.
  CHECK(libsvm_error("1 2147483647:1\n", sources::LibsvmIndexing::one_based).empty());
  // Through the plugin: the message reaches the user instead of an allocation failure.
  test::Scratch dir("fuzz_libsvm_index");
  const std::string file = dir.write("huge.svm", "1 1:0.5\n2 5000000000:1\n");
  try {
    test::open_source({{"name", "libsvm"}, {"file", file}, {"design", "dense"}});
    FAIL("no DataError");
  } catch (const DataError& e) {
    CHECK_THAT(e.what(), Contains("huge.svm:2") && Contains("below 2^31"));
  }
}

TEST_CASE("ratings: the most negative 1-based id is an error naming the id base", "[file_sources][fuzz]") {
  sources::RatingsOptions options;
  options.ids = sources::RatingIds::one_based;
  sources::RatingsReader reader(sources::memory_opener("-9223372036854775808,1,5\n", "r.csv"), options);
  // id - 1 overflowed to 2^63 - 1, which was then reported as "ids below 2^31".
  CHECK_THAT(drain_error(reader), Contains("r.csv:1") && Contains("user ids ≥ 1"));
}

TEST_CASE("a '+' followed by a sign is not a number", "[file_sources][fuzz]") {
  // from_chars after skipping the '+' read "+-5" as -5.
  CHECK_THAT(libsvm_error("+-5 1:1\n", sources::LibsvmIndexing::one_based),
             Contains("f.svm:1") && Contains("a number (the label)") && Contains("'+-5'"));
  CHECK_THAT(libsvm_error("1 +-3:1\n", sources::LibsvmIndexing::one_based), Contains("an integer (a feature index)"));
  CHECK(libsvm_error("+5 +3:+1\n", sources::LibsvmIndexing::one_based).empty());  // a lone '+' sign is fine
}

TEST_CASE("a huge progressive JPEG in 103 bytes fails fast", "[file_sources][fuzz]") {
  // fuzz_image timeout (kept in fuzz/corpus/image): a progressive JPEG (SOF2) of 65279 × 65284
  // pixels whose data ends inside the scan header. libjpeg only warned about the premature end and
  // went on to allocate and read the whole coefficient buffer (gigabytes): over 10 s under ASan.
  const std::string bytes(
    "\xFF\xD8\xFF\xFF\xFF\xFF\xFF\xFF\xFF\x00\x01\xFF\xDB\x00\x43\x00\x10\x0B\x0C\x0E\xFF\x73\xFF\x73\x0D\x0E\x12\x11\x10\x13\x18\x28"
    "\x1A\x18\x16\x16\x18\x31\x23\x25\xAD\xAD\xAD\xAD\xAD\x86\x89\x50\xAD\xAD\xAD\x1D\x28\x3A\x33\x3D\x3C\x30\x00\x06\x99\xFC\x6D\x51"
    "\x57\x5F\x62\x67\xD1\x67\x3E\x4D\x71\x79\x70\x64\x78\x5C\x65\xB2\xFF\xC2\x00\x0B\x08\xFE\xFF\xFF\x04\x01\x01\x11\x00\xE4\xFA\xFF"
    "\xDA\x00\x08\x01\x01\x00\xD9",
      103);
  try {
    sources::decode_image(bytes, false, "huge.jpg");
    FAIL("no DataError");
  } catch (const DataError& e) {
    CHECK_THAT(e.what(), Contains("huge.jpg") && Contains("corrupt JPEG data") && Contains("Premature end"));
  }
}

TEST_CASE("a truncated JPEG is an error, not an image padded with grey; a huge one is rejected on its header",
          "[file_sources][fuzz]") {
  // A 12 × 9 grey baseline JPEG (libjpeg, quality 50), whole and cut 10 bytes into its
  // entropy-coded data. libjpeg only warns ("premature end") and fills the rest; the warning was ignored.
  const std::string whole(
    "\xFF\xD8\xFF\xE0\x00\x10\x4A\x46\x49\x46\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xFF\xDB\x00\x43\x00\x10\x0B\x0C\x0E\x0C\x0A\x10"
    "\x0E\x0D\x0E\x12\x11\x10\x13\x18\x28\x1A\x18\x16\x16\x18\x31\x23\x25\x1D\x28\x3A\x33\x3D\x3C\x39\x33\x38\x37\x40\x48\x5C\x4E\x40"
    "\x44\x57\x45\x37\x38\x50\x6D\x51\x57\x5F\x62\x67\x68\x67\x3E\x4D\x71\x79\x70\x64\x78\x5C\x65\x67\x63\xFF\xC0\x00\x0B\x08\x00\x09"
    "\x00\x0C\x01\x01\x11\x00\xFF\xC4\x00\x1F\x00\x00\x01\x05\x01\x01\x01\x01\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x01\x02\x03\x04"
    "\x05\x06\x07\x08\x09\x0A\x0B\xFF\xC4\x00\xB5\x10\x00\x02\x01\x03\x03\x02\x04\x03\x05\x05\x04\x04\x00\x00\x01\x7D\x01\x02\x03\x00"
    "\x04\x11\x05\x12\x21\x31\x41\x06\x13\x51\x61\x07\x22\x71\x14\x32\x81\x91\xA1\x08\x23\x42\xB1\xC1\x15\x52\xD1\xF0\x24\x33\x62\x72"
    "\x82\x09\x0A\x16\x17\x18\x19\x1A\x25\x26\x27\x28\x29\x2A\x34\x35\x36\x37\x38\x39\x3A\x43\x44\x45\x46\x47\x48\x49\x4A\x53\x54\x55"
    "\x56\x57\x58\x59\x5A\x63\x64\x65\x66\x67\x68\x69\x6A\x73\x74\x75\x76\x77\x78\x79\x7A\x83\x84\x85\x86\x87\x88\x89\x8A\x92\x93\x94"
    "\x95\x96\x97\x98\x99\x9A\xA2\xA3\xA4\xA5\xA6\xA7\xA8\xA9\xAA\xB2\xB3\xB4\xB5\xB6\xB7\xB8\xB9\xBA\xC2\xC3\xC4\xC5\xC6\xC7\xC8\xC9"
    "\xCA\xD2\xD3\xD4\xD5\xD6\xD7\xD8\xD9\xDA\xE1\xE2\xE3\xE4\xE5\xE6\xE7\xE8\xE9\xEA\xF1\xF2\xF3\xF4\xF5\xF6\xF7\xF8\xF9\xFA\xFF\xDA"
    "\x00\x08\x01\x01\x00\x00\x3F\x00\x87\xC3\xDA\x5F\xDD\xF9\x6A\x7D\x5B\xC5\x37\x16\x17\xCF\x69\xA6\x43\x04\x91\xC3\xF2\x48\xD3\x46"
    "\xD9\xF3\x01\x39\x03\x0C\x38\x1C\x0E\x9D\x73\xDB\x15\xAD\xE1\xEF\xE1\xAE\x0A\xCB\xFE\x3D\x96\xBF\xFF\xD9",
      378);
  const sources::DecodedImage image = sources::decode_image(whole, false, "whole.jpg");
  CHECK(image.rows == 9);
  CHECK(image.cols == 12);
  const std::string cut = whole.substr(0, 340);
  // The same file announcing 65279 × 65284 pixels in its SOF0 header: rejected before decoding.
  std::string huge = whole;
  const std::size_t sof = huge.find("\xFF\xC0");
  REQUIRE(sof != std::string::npos);
  huge.replace(sof + 5, 4, "\xFE\xFF\xFF\x04");  // height, width (big-endian) after length and precision
  try {
    sources::decode_image(huge, false, "huge.jpg");
    FAIL("no DataError");
  } catch (const DataError& e) {
    CHECK_THAT(e.what(), Contains("huge.jpg") && Contains("at most 2^28 pixels, found 65279 x 65284"));
  }
  for (bool colour : {false, true}) {
    try {
      sources::decode_image(cut, colour, "cut.jpg");
      FAIL("no DataError");
    } catch (const DataError& e) {
      CHECK_THAT(e.what(), Contains("cut.jpg") && Contains("corrupt JPEG data") && Contains("Premature end"));
    }
  }
}

TEST_CASE("UTF-8 validation finds the first invalid byte wherever it falls in the 8-byte ASCII scan",
          "[file_sources][fuzz]") {
  // invalid_utf8_at skips ASCII eight bytes at a time (bench_sources: a quarter of the libsvm parse).
  for (std::size_t at = 0; at < 20; ++at) {
    std::string line(24, 'a');
    line[at] = '\xFF';
    CHECK(sources::invalid_utf8_at(line) == at);
  }
  // Valid multi-byte sequences inside and across the words, then an invalid continuation.
  const std::string text = "0123456\xC3\xA9" "89abcdef\xE2\x82\xAC" "xyz\xC3(";
  CHECK(sources::invalid_utf8_at(text.substr(0, text.size() - 2)) == std::string::npos);
  CHECK(sources::invalid_utf8_at(text) == text.size() - 2);
  CHECK(sources::invalid_utf8_at(std::string(64, 'z')) == std::string::npos);
  CHECK(sources::invalid_utf8_at("") == std::string::npos);
}
