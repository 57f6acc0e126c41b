// Read throughput and peak memory of the file sources (libsvm, csv, idx raw and gzip, ratings, image)
// on files this benchmark writes itself (about RANKONE_BENCH_MB MB each, default 40).
//
//   bench_sources                                  # everything (a few minutes)
//   bench_sources --benchmark_filter=parse/        # parser throughput only
//
// Five groups, each per format:
//   reference/<format>  the cheapest full read of the same file: std::ifstream + std::getline for
//                       text, 64 KiB std::ifstream reads for raw IDX, gzread for gzip, zlib inflate
//                       of the image data for PNG. It calibrates the machine in the same run.
//   parse/<format>      the format's RecordReader over the file, every record of one pass (for the
//                       image: decode + every pixel). Counter x_reference = MB/s ÷ reference MB/s.
//   source/<format>     one pass through the plugin as an experiment uses it: split hash, batch
//                       assembly into designs (batches of 4096 records).
//   reread/<format>     libsvm, csv, ratings: one pass replayed by the parsed-record cache
//                       (plugins/sources/parsed_cache.hpp) from the binary file the first pass
//                       wrote. Counters x_parse = MB/s ÷ parse MB/s of the same file (the target
//                       of benchmarks/targets.py: ≥ 10), cache_MB = the binary file's size.
//   peak/<format>       a child process opens the plugin and streams one pass in batches of 256
//                       records; counters: its peak resident memory (VmHWM) before opening
//                       (baseline_MB) and after the pass (peak_MB), the file and batch sizes.
// The other groups read text: the cache is off for them (RANKONE_PARSED_CACHE=off in this process).
// MB = 10^6 bytes of the file on disk; MB/s is per CPU second of the reading thread (the machine may
// be shared), MB/s_wall per elapsed second. With RANKONE_BENCH_KEEP=1 the files stay in
// $TMPDIR/rankone_bench_sources and are reused by the next run.
#include <benchmark/benchmark.h>
#include <time.h>
#include <zlib.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include "bench_support.hpp"
#include "csv_source.hpp"
#include "idx_source.hpp"
#include "image_source.hpp"
#include "libsvm_source.hpp"
#include "parsed_cache.hpp"
#include "ratings_source.hpp"

namespace fs = std::filesystem;
using namespace rankone;

namespace {

constexpr Index kStreamBatch = 4096;  // records per batch of source/<format>
constexpr Index kPeakBatch = 256;     // records per batch of peak/<format>

fs::path folder() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / "rankone_bench_sources";
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

std::size_t target_bytes() {
  const char* mb = std::getenv("RANKONE_BENCH_MB");
  return static_cast<std::size_t>((mb ? std::atof(mb) : 40.0) * 1e6);
}

double file_mb(const fs::path& f) { return static_cast<double>(fs::file_size(f)) / 1e6; }

/// Writes `name` once with `write(out)` (kept across runs with RANKONE_BENCH_KEEP=1).
template <class Writer>
fs::path generated(const std::string& name, Writer write) {
  const fs::path path = folder() / name;
  if (!fs::exists(path)) {
    const fs::path partial = path.string() + ".partial";
    {
      std::ofstream out(partial, std::ios::binary);
      write(out);
    }
    fs::rename(partial, path);
  }
  return path;
}

// ---- The files ----

fs::path libsvm_file() {
  // ~40 increasing 1-based indices of d ≈ 10000 per line, a regression target.
  return generated("data.svm", [](std::ofstream& out) {
    std::mt19937_64 rng(1);
    char field[64];
    while (static_cast<std::size_t>(out.tellp()) < target_bytes()) {
      std::snprintf(field, sizeof field, "%.4f", std::generate_canonical<double, 53>(rng) * 2 - 1);
      out << field;
      int index = 0;
      for (int k = 0; k < 40; ++k) {
        index += 1 + static_cast<int>(rng() % 250);
        std::snprintf(field, sizeof field, " %d:%.5g", index, std::generate_canonical<double, 53>(rng));
        out << field;
      }
      out << '\n';
    }
  });
}

fs::path csv_file() {
  // A header, 50 feature columns and a label column y.
  return generated("data.csv", [](std::ofstream& out) {
    std::mt19937_64 rng(2);
    std::normal_distribution<double> normal;
    for (int j = 0; j < 50; ++j) out << "x" << j << ",";
    out << "y\n";
    char field[32];
    while (static_cast<std::size_t>(out.tellp()) < target_bytes()) {
      for (int j = 0; j <= 50; ++j) {
        std::snprintf(field, sizeof field, j < 50 ? "%.6f," : "%.6f\n", normal(rng));
        out << field;
      }
    }
  });
}

fs::path idx_file() {
  // MNIST-shaped: unsigned bytes, records of 28 × 28.
  return generated("data.idx", [](std::ofstream& out) {
    const auto n = static_cast<std::uint32_t>(target_bytes() / 784);
    const unsigned char header[] = {0, 0, 8, 3, static_cast<unsigned char>(n >> 24), static_cast<unsigned char>(n >> 16),
                                    static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n), 0, 0, 0, 28, 0, 0, 0, 28};
    out.write(reinterpret_cast<const char*>(header), sizeof header);
    std::mt19937_64 rng(3);
    std::string image(784, '\0');
    for (std::uint32_t i = 0; i < n; ++i) {
      // Dark background and a bright blob, as digits: compresses about as MNIST does.
      for (std::size_t p = 0; p < image.size(); ++p) {
        const long r = static_cast<long>(p / 28) - 14, c = static_cast<long>(p % 28) - 14;
        image[p] = static_cast<char>(r * r + c * c < 49 ? 128 + rng() % 128 : 0);
      }
      out.write(image.data(), static_cast<std::streamsize>(image.size()));
    }
  });
}

fs::path idx_gz_file() {
  const fs::path raw = idx_file();
  const fs::path path = folder() / "data.idx.gz";
  if (!fs::exists(path)) {
    std::ifstream in(raw, std::ios::binary);
    gzFile out = gzopen(path.c_str(), "wb6");
    std::vector<char> buffer(1 << 20);
    while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
      gzwrite(out, buffer.data(), static_cast<unsigned>(in.gcount()));
    gzclose(out);
  }
  return path;
}

fs::path ratings_file() {
  // MovieLens-shaped: userId,movieId,rating,timestamp with 100k users and 50k items.
  return generated("ratings.csv", [](std::ofstream& out) {
    std::mt19937_64 rng(4);
    out << "userId,movieId,rating,timestamp\n";
    char line[96];
    for (long t = 0; static_cast<std::size_t>(out.tellp()) < target_bytes(); ++t) {
      std::snprintf(line, sizeof line, "%d,%d,%.1f,%ld\n", static_cast<int>(rng() % 100000) + 1,
                    static_cast<int>(rng() % 50000) + 1, 0.5 * static_cast<double>(1 + rng() % 10), 1000000000 + t);
      out << line;
    }
  });
}

void put_be32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((v >> shift) & 0xFF);
}

void put_chunk(std::ofstream& out, const char* type, const std::string& data) {
  std::string chunk;
  put_be32(chunk, static_cast<std::uint32_t>(data.size()));
  chunk += type;
  chunk += data;
  const auto crc = crc32(crc32(0, nullptr, 0), reinterpret_cast<const Bytef*>(chunk.data() + 4),
                         static_cast<uInt>(chunk.size() - 4));
  put_be32(chunk, static_cast<std::uint32_t>(crc));
  out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
}

/// Offset of the IDAT data in the PNG below (signature, IHDR chunk, IDAT length and type).
constexpr std::size_t kIdatOffset = 8 + 25 + 8;

fs::path png_file() {
  // A grey 8-bit PNG of about RANKONE_BENCH_MB / 2 megapixels (smooth shading plus 4 bits of
  // noise), deflated by zlib in one IDAT chunk with filter 0 on every row.
  return generated("image.png", [](std::ofstream& out) {
    const auto side = static_cast<std::uint32_t>(std::sqrt(static_cast<double>(target_bytes()) / 2));
    std::string raw;
    raw.reserve(static_cast<std::size_t>(side) * (side + 1));
    std::mt19937_64 rng(5);
    for (std::uint32_t r = 0; r < side; ++r) {
      raw += '\0';
      for (std::uint32_t c = 0; c < side; ++c) raw += static_cast<char>(((r + c) * 200 / (2 * side)) + rng() % 16);
    }
    uLongf packed_size = compressBound(static_cast<uLong>(raw.size()));
    std::string packed(packed_size, '\0');
    compress2(reinterpret_cast<Bytef*>(packed.data()), &packed_size, reinterpret_cast<const Bytef*>(raw.data()),
              static_cast<uLong>(raw.size()), 6);
    packed.resize(packed_size);
    out.write("\x89PNG\r\n\x1a\n", 8);
    std::string ihdr;
    put_be32(ihdr, side);
    put_be32(ihdr, side);
    ihdr += std::string("\x08\x00\x00\x00\x00", 5);  // 8-bit grey, deflate, adaptive filters, no interlace
    put_chunk(out, "IHDR", ihdr);
    put_chunk(out, "IDAT", packed);
    put_chunk(out, "IEND", "");
  });
}

std::string read_all(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// ---- Timing: every group reports MB/s of the file on disk ----

std::map<std::string, double>& reference_rates() {
  static std::map<std::string, double> rates;
  return rates;
}

std::map<std::string, double>& parse_rates() {
  static std::map<std::string, double> rates;
  return rates;
}

/// CPU time of this thread (user + system) in seconds: unlike wall time, it does not count the time
/// other processes of a shared machine hold the core.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Runs `pass` (one full read of `file`) per iteration. Reports MB/s per CPU second of the reading
/// thread (MB/s) and per wall second (MB/s_wall) and, for parse/ and source/, the CPU-time ratio to
/// the reference of the same format measured earlier in this run (x_reference); for reread/, to the
/// parse (x_parse).
template <class Pass>
void timed_passes(benchmark::State& state, const std::string& group, const std::string& format, const fs::path& file,
                  Pass pass) {
  std::int64_t records = 0;
  double wall = 0.0, cpu = 0.0;
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    const double cpu_begin = thread_cpu_seconds();
    records += pass();
    cpu += thread_cpu_seconds() - cpu_begin;
    wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  }
  const double megabytes = file_mb(file) * static_cast<double>(state.iterations());
  const double mb_per_s = megabytes / cpu;
  state.counters["MB/s"] = mb_per_s;
  state.counters["MB/s_wall"] = megabytes / wall;
  state.counters["records/s"] = static_cast<double>(records) / cpu;
  state.counters["file_MB"] = file_mb(file);
  if (group == "reference") reference_rates()[format] = mb_per_s;
  if (group == "parse") parse_rates()[format] = mb_per_s;
  // parse/ and source/ against the reference; reread/ against the parse of the same file.
  const auto& base = group == "reread" ? parse_rates() : reference_rates();
  if (group != "reference")
    if (const auto b = base.find(format); b != base.end())
      state.counters[group == "reread" ? "x_parse" : "x_reference"] = mb_per_s / b->second;
}

std::int64_t getline_pass(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::string line;
  std::int64_t lines = 0;
  std::size_t bytes = 0;
  while (std::getline(in, line)) {
    ++lines;
    bytes += line.size();
  }
  benchmark::DoNotOptimize(bytes);
  return lines;
}

std::int64_t chunk_pass(const fs::path& f) {
  std::ifstream in(f, std::ios::binary);
  std::vector<char> buffer(1 << 16);
  std::uint64_t sum = 0;
  while (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)
    sum += static_cast<unsigned char>(buffer[static_cast<std::size_t>(in.gcount()) - 1]);
  benchmark::DoNotOptimize(sum);
  return 0;
}

std::int64_t gzread_pass(const fs::path& f) {
  gzFile in = gzopen(f.c_str(), "rb");
  gzbuffer(in, 1 << 16);
  std::vector<char> buffer(1 << 16);
  std::uint64_t sum = 0;
  for (int got; (got = gzread(in, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0;)
    sum += static_cast<unsigned char>(buffer[static_cast<std::size_t>(got) - 1]);
  gzclose(in);
  benchmark::DoNotOptimize(sum);
  return 0;
}

std::int64_t inflate_png_pass(const fs::path& f) {
  const std::string bytes = read_all(f);
  const std::uint32_t side = (std::uint32_t{static_cast<unsigned char>(bytes[16])} << 24) |
                             (std::uint32_t{static_cast<unsigned char>(bytes[17])} << 16) |
                             (std::uint32_t{static_cast<unsigned char>(bytes[18])} << 8) |
                             std::uint32_t{static_cast<unsigned char>(bytes[19])};
  const std::uint32_t idat = (std::uint32_t{static_cast<unsigned char>(bytes[33])} << 24) |
                             (std::uint32_t{static_cast<unsigned char>(bytes[34])} << 16) |
                             (std::uint32_t{static_cast<unsigned char>(bytes[35])} << 8) |
                             std::uint32_t{static_cast<unsigned char>(bytes[36])};
  uLongf size = static_cast<uLongf>(side) * (side + 1);
  std::string pixels(size, '\0');
  if (uncompress(reinterpret_cast<Bytef*>(pixels.data()), &size,
                 reinterpret_cast<const Bytef*>(bytes.data() + kIdatOffset), idat) != Z_OK)
    throw std::runtime_error("image.png: inflate failed");
  benchmark::DoNotOptimize(pixels.data());
  return static_cast<std::int64_t>(side) * side;
}

/// Every record of one pass of `reader`.
std::int64_t reader_pass(sources::RecordReader& reader) {
  sources::Record record;
  std::int64_t n = 0;
  reader.start(1);
  while (reader.next(record)) ++n;
  benchmark::DoNotOptimize(record.target);
  return n;
}

std::unique_ptr<sources::RecordReader> libsvm_reader() {
  sources::LibsvmOptions o;
  o.indexing = sources::LibsvmIndexing::one_based;
  return std::make_unique<sources::LibsvmReader>(sources::file_opener(libsvm_file()), o);
}

std::unique_ptr<sources::RecordReader> csv_reader() {
  sources::CsvOptions o;
  o.label_columns = {"y"};
  return std::make_unique<sources::CsvReader>(sources::file_opener(csv_file()), o);
}

Json source_params(const std::string& format) {
  if (format == "libsvm") return {{"name", "libsvm"}, {"file", libsvm_file().string()}, {"indexing", "one"}};
  if (format == "csv") return {{"name", "csv"}, {"file", csv_file().string()}, {"labels", "y"}};
  if (format == "idx") return {{"name", "idx"}, {"file", idx_file().string()}, {"value_scale", 1.0 / 255}};
  if (format == "idx_gz") return {{"name", "idx"}, {"file", idx_gz_file().string()}, {"value_scale", 1.0 / 255}};
  if (format == "ratings") return {{"name", "ratings"}, {"file", ratings_file().string()}};
  if (format == "image") return {{"name", "image"}, {"file", png_file().string()}};
  throw std::invalid_argument("unknown format " + format);
}

fs::path file_of(const std::string& format) { return source_params(format)["file"].get<std::string>(); }

std::unique_ptr<DataSource> opened_source(const std::string& format) {
  Json params = source_params(format);
  params["test_fraction"] = 0.0;  // no held-out reservoir: the pass streams every record
  auto source = bench::make<DataSource>(params, Kind::data_source);
  source->open(1);
  return source;
}

// ---- reference/ ----

void BM_reference(benchmark::State& state, std::string format) {
  const fs::path f = file_of(format);
  timed_passes(state, "reference", format, f, [&] {
    if (format == "idx") return chunk_pass(f);
    if (format == "idx_gz") return gzread_pass(f);
    if (format == "image") return inflate_png_pass(f);
    return getline_pass(f);
  });
}

// ---- parse/ ----

void BM_parse(benchmark::State& state, std::string format) {
  const fs::path f = file_of(format);
  std::unique_ptr<sources::RecordReader> reader;
  if (format == "libsvm") reader = libsvm_reader();
  if (format == "csv") reader = csv_reader();
  if (format == "idx" || format == "idx_gz")
    reader = std::make_unique<sources::IdxReader>(sources::file_opener(f), nullptr, 1.0 / 255);
  if (format == "ratings") reader = std::make_unique<sources::RatingsReader>(sources::file_opener(f), sources::RatingsOptions{});
  timed_passes(state, "parse", format, f, [&] {
    if (format != "image") return reader_pass(*reader);
    // The image reader decodes once and keeps the pixels: a fresh reader per pass times the decode.
    sources::ImageReader image(sources::file_opener(f), false, 1.0 / 255);
    return reader_pass(image);
  });
}

// ---- reread/ ----

void BM_reread(benchmark::State& state, std::string format) {
  const fs::path f = file_of(format);
  std::unique_ptr<sources::RecordReader> text;
  if (format == "libsvm") text = libsvm_reader();
  if (format == "csv") text = csv_reader();
  if (format == "ratings") text = std::make_unique<sources::RatingsReader>(sources::file_opener(f), sources::RatingsOptions{});
  sources::ParsedCacheSettings settings;
  settings.folder = folder() / "parsed";
  const sources::ParseKey key{"bench " + format, {f.string()}};
  auto reader = sources::cache_parsed(std::move(text), key, settings);
  reader_pass(*reader);  // parses and writes the cache file (or replays one kept from an earlier run)
  const fs::path cache = sources::parsed_cache_file(settings.folder, key);
  if (!fs::exists(cache)) {
    state.SkipWithError(("no cache file was written: " + cache.string()).c_str());
    return;
  }
  timed_passes(state, "reread", format, f, [&] { return reader_pass(*reader); });
  state.counters["cache_MB"] = file_mb(cache);
}

// ---- source/ ----

void BM_source(benchmark::State& state, std::string format) {
  const fs::path f = file_of(format);
  auto source = opened_source(format);  // the open (scan) pass is not timed
  timed_passes(state, "source", format, f, [&] {
    source->rewind();
    std::int64_t n = 0;
    for (Batch b = source->next(kStreamBatch); !b.empty(); b = source->next(kStreamBatch)) n += b.instances();
    return n;
  });
}

// ---- peak/ ----

/// VmHWM (peak resident set) of this process in kB, from /proc/self/status.
long peak_rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

/// Bytes held by a batch's designs and measurements.
double batch_bytes(const Batch& b) {
  const auto side = [](const DesignSide& s) {
    return static_cast<double>(s.dense.size()) * sizeof(double) + static_cast<double>(s.index.size()) * 4 +
           static_cast<double>(s.sparse.nonZeros()) * (sizeof(double) + sizeof(std::int64_t));
  };
  return side(b.left) + (b.right ? side(*b.right) : 0.0) + static_cast<double>(b.y.size()) * sizeof(double);
}

/// The child of peak/<format>: opens the source, streams one pass, prints
/// "baseline_kB peak_kB records largest_batch_bytes".
int peak_child(const std::string& format) {
  bench::registry();
  const long baseline = peak_rss_kb();
  auto source = opened_source(format);
  std::int64_t records = 0;
  double largest = 0.0;
  for (Batch b = source->next(kPeakBatch); !b.empty(); b = source->next(kPeakBatch)) {
    records += b.instances();
    largest = std::max(largest, batch_bytes(b));
  }
  std::printf("%ld %ld %lld %.0f\n", baseline, peak_rss_kb(), static_cast<long long>(records), largest);
  return 0;
}

void BM_peak(benchmark::State& state, std::string format) {
  const fs::path f = file_of(format);  // generated here, not in the child
  long baseline = 0, peak = 0;
  long long records = 0;
  double largest = 0.0;
  for (auto _ : state) {
    std::string command = fs::read_symlink("/proc/self/exe").string();
    command.insert(command.begin(), '\'');
    command += "' --rankone-peak " + format;
    FILE* child = popen(command.c_str(), "r");
    if (!child || std::fscanf(child, "%ld %ld %lld %lf", &baseline, &peak, &records, &largest) != 4 ||
        pclose(child) != 0) {
      state.SkipWithError(("the peak-memory child failed: " + command).c_str());
      return;
    }
  }
  state.counters["file_MB"] = file_mb(f);
  state.counters["batch_MB"] = largest / 1e6;
  state.counters["file/batch"] = file_mb(f) * 1e6 / largest;
  state.counters["records"] = static_cast<double>(records);
  state.counters["baseline_MB"] = static_cast<double>(baseline) * 1024 / 1e6;
  state.counters["peak_MB"] = static_cast<double>(peak) * 1024 / 1e6;
  state.counters["growth_MB"] = static_cast<double>(peak - baseline) * 1024 / 1e6;
}

void register_all() {
  const char* formats[] = {"libsvm", "csv", "idx", "idx_gz", "ratings", "image"};
  for (const char* f : formats)
    benchmark::RegisterBenchmark((std::string("reference/") + f).c_str(), BM_reference, std::string(f))
        ->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
  for (const char* f : formats)
    benchmark::RegisterBenchmark((std::string("parse/") + f).c_str(), BM_parse, std::string(f))
        ->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
  for (const char* f : {"libsvm", "csv", "ratings"})
    benchmark::RegisterBenchmark((std::string("reread/") + f).c_str(), BM_reread, std::string(f))
        ->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
  for (const char* f : formats)
    benchmark::RegisterBenchmark((std::string("source/") + f).c_str(), BM_source, std::string(f))
        ->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();
  for (const char* f : {"libsvm", "csv", "idx", "ratings", "image"})
    benchmark::RegisterBenchmark((std::string("peak/") + f).c_str(), BM_peak, std::string(f))
        ->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
}

}  // namespace

int main(int argc, char** argv) {
  ::setenv("RANKONE_PARSED_CACHE", "off", 1);  // the text groups parse text; reread/ sets its own folder
  if (argc == 3 && std::strcmp(argv[1], "--rankone-peak") == 0) return peak_child(argv[2]);
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!std::getenv("RANKONE_BENCH_KEEP")) fs::remove_all(folder());
  return 0;
}
