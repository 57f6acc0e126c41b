// Read throughput of the file sources: one full pass (parse + split + batch assembly) over a
// generated file, through the plugin as an experiment uses it. Bytes are those of the file on disk.
//
//   bench_sources                                    # every format, files of ~RANKONE_BENCH_MB (default 40) MB
//   bench_sources --benchmark_filter=libsvm          # one format
//
// With RANKONE_BENCH_KEEP=1 the generated files stay in $TMPDIR/rankone_bench_sources (to reuse
// them, e.g. for peak-memory measurements with /usr/bin/time -v).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include "rankone/rankone.hpp"

namespace fs = std::filesystem;
using namespace rankone;

namespace {

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    reg.load_default();
    return reg;
  }();
  return r;
}

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
  return static_cast<std::size_t>(mb ? std::atof(mb) : 40.0) << 20;
}

/// Writes a file of about target_bytes() once, from `line(i)` or `block(out)`.
template <class Writer>
fs::path generated(const std::string& name, Writer write) {
  const fs::path path = folder() / name;
  if (!fs::exists(path)) {
    std::ofstream out(path, std::ios::binary);
    write(out);
  }
  return path;
}

fs::path libsvm_file() {
  return generated("data.svm", [](std::ofstream& out) {
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<int> feature(1, 10000);
    char line[64];
    while (static_cast<std::size_t>(out.tellp()) < target_bytes()) {
      std::snprintf(line, sizeof line, "%.4f", std::generate_canonical<double, 53>(rng) * 2 - 1);
      out << line;
      int index = 0;
      for (int k = 0; k < 40; ++k) {
        index += 1 + feature(rng) % 250;  // increasing indices, ~40 non-zeros of d = 10000
        std::snprintf(line, sizeof line, " %d:%.5g", index, std::generate_canonical<double, 53>(rng));
        out << line;
      }
      out << '\n';
    }
  });
}

fs::path csv_file() {
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
  return generated("data.idx", [](std::ofstream& out) {
    const std::uint32_t n = static_cast<std::uint32_t>(target_bytes() / 784);
    const unsigned char header[] = {0, 0, 8, 3, static_cast<unsigned char>(n >> 24), static_cast<unsigned char>(n >> 16),
                                    static_cast<unsigned char>(n >> 8), static_cast<unsigned char>(n), 0, 0, 0, 28, 0, 0, 0, 28};
    out.write(reinterpret_cast<const char*>(header), sizeof header);
    std::mt19937_64 rng(3);
    std::string image(784, '\0');
    for (std::uint32_t i = 0; i < n; ++i) {
      for (char& c : image) c = static_cast<char>(rng() & 0xFF);
      out.write(image.data(), 784);
    }
  });
}

fs::path ratings_file() {
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

/// One full pass per iteration; reports file bytes per second and records per second.
void stream_pass(benchmark::State& state, const Json& params, const fs::path& file) {
  Json ref = params;
  ref["test_fraction"] = 0.0;
  ValidationContext ctx(registry(), nullptr);
  auto source = registry().create<DataSource>(validate_plugin_ref(ref, Kind::data_source, ctx, ""), Kind::data_source);
  source->open(1);  // the scan pass (validation, counts) is not timed
  std::int64_t records = 0;
  for (auto _ : state) {
    source->rewind();
    for (Batch b = source->next(4096); !b.empty(); b = source->next(4096)) records += b.instances();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(fs::file_size(file)));
  state.counters["records/s"] = benchmark::Counter(static_cast<double>(records), benchmark::Counter::kIsRate);
  state.counters["file_MB"] = static_cast<double>(fs::file_size(file)) / (1 << 20);
}

void BM_libsvm_sparse(benchmark::State& state) {
  const fs::path f = libsvm_file();
  stream_pass(state, {{"name", "libsvm"}, {"file", f.string()}, {"indexing", "one"}}, f);
}
void BM_csv_dense(benchmark::State& state) {
  const fs::path f = csv_file();
  stream_pass(state, {{"name", "csv"}, {"file", f.string()}, {"labels", "y"}}, f);
}
void BM_idx_dense(benchmark::State& state) {
  const fs::path f = idx_file();
  stream_pass(state, {{"name", "idx"}, {"file", f.string()}}, f);
}
void BM_ratings_entries(benchmark::State& state) {
  const fs::path f = ratings_file();
  stream_pass(state, {{"name", "ratings"}, {"file", f.string()}}, f);
}
void BM_image_camera(benchmark::State& state) {
  // The decoded image is held in memory; a pass visits every pixel (512 × 512 for camera.png).
  const char* data = std::getenv("RANKONE_DATA");
  const fs::path f = fs::path(data ? data : std::string(std::getenv("HOME")) + "/.cache/rankone/datasets") / "camera/camera.png";
  if (!fs::exists(f)) {
    state.SkipWithError("camera.png not found: run scripts/fetch-datasets camera");
    return;
  }
  stream_pass(state, {{"name", "image"}, {"file", f.string()}}, f);
}

BENCHMARK(BM_libsvm_sparse)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_csv_dense)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_idx_dense)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_ratings_entries)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_image_camera)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (!std::getenv("RANKONE_BENCH_KEEP")) fs::remove_all(folder());
  return 0;
}
