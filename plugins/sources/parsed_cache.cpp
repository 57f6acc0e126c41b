// Read once: the parsed-record cache (see parsed_cache.hpp).
#include "parsed_cache.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <limits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

namespace rankone::sources {

namespace fs = std::filesystem;

namespace {

// Bump when the record encoding or the trailer changes: older files then no longer match a key.
// 2: a table of block checksums before the footer.
constexpr std::uint32_t kFormatVersion = 2;
constexpr char kMagic[8] = {'R', 'K', '1', 'P', 'A', 'R', 'S', 'E'};
// records, trailer offset, block table offset, length, checksum
constexpr std::size_t kFooterBytes = 5 * sizeof(std::uint64_t);
constexpr const char* kExtension = ".parsed";
/// Files are written, read and checked in blocks of this size, from offset 0.
constexpr std::size_t kChunk = std::size_t{1} << 20;

// Parameters the FileSource applies to records after reading: they do not change a parse.
const std::set<std::string>& applied_after_reading() {
  static const std::set<std::string> names = {
      "operator", "serve", "folds", "test_fold", "validation_fold", "split_seed", "evaluate_on", "test_cap",
      "shuffle_buffer", "design", "standardize", "classes", "first_label", "label_view", "balance",
      "test_full_labels", "test_file", "file", "observations"};  // the files are keyed by their identity
  return names;
}

std::string hex(const void* bytes, std::size_t n) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = static_cast<const unsigned char*>(bytes)[i];
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

/// A data file's identity: canonical path, size, modification time (ns) and a hash of its bytes.
std::string file_identity(const std::string& path) {
  const fs::path canonical = fs::canonical(path);
  struct stat info {};
  if (::stat(canonical.c_str(), &info) != 0) throw DataError(path + ": cannot read (" + std::strerror(errno) + ")");
  // A pipe or a device is not hashed (reading it would consume it): the reader reports it.
  if (!S_ISREG(info.st_mode)) throw DataError(path + ": not a regular file");
  std::FILE* in = std::fopen(canonical.c_str(), "rb");
  if (!in) throw DataError(path + ": cannot read (" + std::strerror(errno) + ")");
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  std::vector<char> buffer(kChunk);
  for (std::size_t got; (got = std::fread(buffer.data(), 1, buffer.size(), in)) > 0;)
    XXH3_64bits_update(state, buffer.data(), got);
  std::fclose(in);
  const std::uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return canonical.string() + " size=" + std::to_string(info.st_size) + " mtime=" +
         std::to_string(info.st_mtim.tv_sec) + "." + std::to_string(info.st_mtim.tv_nsec) + " xxh3=" +
         hex(&hash, sizeof hash);
}

/// The text every cache file of `key` starts with (compared whole when read).
std::string key_text(const ParseKey& key) {
  std::string text = "rankone parsed records v" + std::to_string(kFormatVersion) + "\nreader " + key.reader;
  for (const std::string& file : key.files) text += "\nfile " + file_identity(file);
  return text;
}

fs::path cache_file(const fs::path& folder, const std::string& key) {
  const XXH128_hash_t h = XXH3_128bits(key.data(), key.size());
  return folder / (hex(&h.high64, 8) + hex(&h.low64, 8) + kExtension);
}

// ---- Encoding ----

/// Appends bytes to a file being written and hashes them on the way: the whole file (the footer's
/// checksum) and each block (the block table, which replays check block by block).
class Encoder {
 public:
  explicit Encoder(std::ostream& out) : out_(out), state_(XXH3_createState()) { XXH3_64bits_reset(state_); }
  ~Encoder() { XXH3_freeState(state_); }
  Encoder(const Encoder&) = delete;
  Encoder& operator=(const Encoder&) = delete;
  void bytes(const void* data, std::size_t n) {
    buffer_.append(static_cast<const char*>(data), n);
    if (buffer_.size() >= kChunk) flush();
  }
  template <class T>
  void value(T v) { bytes(&v, sizeof v); }
  template <class T>
  void array(const std::vector<T>& v) {
    value(static_cast<std::uint64_t>(v.size()));
    bytes(v.data(), v.size() * sizeof(T));
  }
  void text(const std::string& s) {
    value(static_cast<std::uint64_t>(s.size()));
    bytes(s.data(), s.size());
  }
  /// Bytes written so far (the buffered ones included).
  std::uint64_t size() const { return written_ + buffer_.size(); }
  /// Writes the checksums of the blocks of everything written so far (the last one partial):
  /// ceil(size / kChunk) of them.
  void block_table() {
    flush();
    if (!block_.empty()) blocks_.push_back(XXH3_64bits(block_.data(), block_.size()));
    block_.clear();
    std::vector<std::uint64_t> blocks;
    blocks.swap(blocks_);
    array(blocks);
  }
  /// Writes the footer's checksum (not itself hashed) and flushes.
  void finish() {
    flush();
    const std::uint64_t checksum = XXH3_64bits_digest(state_);
    out_.write(reinterpret_cast<const char*>(&checksum), sizeof checksum);
    written_ += sizeof checksum;
  }

 private:
  void flush() {
    XXH3_64bits_update(state_, buffer_.data(), buffer_.size());
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    written_ += buffer_.size();
    for (std::size_t at = 0; at < buffer_.size();) {  // the blocks it completes
      const std::size_t take = std::min(kChunk - block_.size(), buffer_.size() - at);
      block_.append(buffer_, at, take);
      at += take;
      if (block_.size() == kChunk) {
        blocks_.push_back(XXH3_64bits(block_.data(), block_.size()));
        block_.clear();
      }
    }
    buffer_.clear();
  }
  std::ostream& out_;
  XXH3_state_t* state_;
  std::string buffer_;
  std::string block_;                  // the block being filled
  std::vector<std::uint64_t> blocks_;  // the checksums of the whole blocks so far
  std::uint64_t written_ = 0;
};

/// Reads a cache file in chunks. Any short read is a damaged file (`Damaged`).
struct Damaged {
  std::string why;
};

class Decoder {
 public:
  explicit Decoder(const fs::path& path) : file_(std::fopen(path.c_str(), "rb")), buffer_(kChunk) {
    if (!file_) throw Damaged{std::strerror(errno)};
  }
  ~Decoder() {
    if (file_) std::fclose(file_);
  }
  Decoder(const Decoder&) = delete;
  Decoder& operator=(const Decoder&) = delete;
  /// From now on each block read of the first `covered` bytes must have its checksum in `blocks`
  /// (a file changed after it was checked is caught in the block that changed, before it is used).
  void check_blocks(std::vector<std::uint64_t> blocks, std::uint64_t covered) {
    blocks_ = std::move(blocks);
    covered_ = covered;
  }
  void seek(std::uint64_t offset) {
    load(offset / kChunk);
    begin_ = static_cast<std::size_t>(offset % kChunk);
    if (begin_ > end_) throw Damaged{"truncated"};
  }
  void bytes(void* out, std::size_t n) {
    if (end_ - begin_ >= n) {  // nearly always: one copy from the buffer
      std::memcpy(out, buffer_.data() + begin_, n);
      begin_ += n;
      return;
    }
    refill_into(static_cast<char*>(out), n);
  }
  template <class T>
  T value() {  // a copy of a constant size, inlined: most of a replay
    T v;
    if (end_ - begin_ >= sizeof v) {
      std::memcpy(&v, buffer_.data() + begin_, sizeof v);
      begin_ += sizeof v;
    } else {
      refill_into(reinterpret_cast<char*>(&v), sizeof v);
    }
    return v;
  }
  /// A counted array, refused beyond `limit` bytes (a damaged count must not allocate wildly).
  template <class T>
  void array(std::vector<T>& v, std::uint64_t limit) {
    const auto n = value<std::uint64_t>();
    if (n > limit / sizeof(T)) throw Damaged{"a count beyond the file"};
    v.resize(n);
    bytes(v.data(), n * sizeof(T));
  }
  std::string text(std::uint64_t limit) {
    const auto n = value<std::uint64_t>();
    if (n > limit) throw Damaged{"a length beyond the file"};
    std::string s(n, '\0');
    bytes(s.data(), n);
    return s;
  }
  std::uint64_t consumed() const { return block_ * kChunk + begin_; }
  std::FILE* file() { return file_; }

 private:
  /// Reads block `block` whole into the buffer, checking it when it is covered.
  void load(std::uint64_t block) {
    if (std::fseek(file_, static_cast<long>(block * kChunk), SEEK_SET) != 0) throw Damaged{"cannot seek"};
    block_ = block;
    begin_ = 0;
    end_ = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    if (block < blocks_.size()) {
      const auto expected = static_cast<std::size_t>(std::min<std::uint64_t>(kChunk, covered_ - block * kChunk));
      if (end_ < expected || XXH3_64bits(buffer_.data(), expected) != blocks_[block])
        throw Damaged{"block " + std::to_string(block) + " no longer matches its checksum"};
    }
  }
  void refill_into(char* to, std::size_t n) {
    while (n > 0) {
      if (begin_ == end_) {
        if (end_ < kChunk) throw Damaged{"truncated"};
        load(block_ + 1);
        if (end_ == 0) throw Damaged{"truncated"};
      }
      const std::size_t take = std::min(n, end_ - begin_);
      std::memcpy(to, buffer_.data() + begin_, take);
      begin_ += take;
      to += take;
      n -= take;
    }
  }
  std::FILE* file_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  std::uint64_t block_ = 0;  // the block in the buffer
  std::vector<std::uint64_t> blocks_;
  std::uint64_t covered_ = 0;
};

// Which parts of a record are written: its fixed part (number, line, target) and what it holds.
enum : std::uint16_t {
  kFollows = 1,  // number and line are those of the record before, plus one: not written
  kLabels = 2, kIndex = 4, kValues = 8, kCell = 16, kTimestamp = 32, kObserved = 64,
  kHasPart = 128, kPartShift = 8,  // the part (0-2) in bits 8-9
  kNarrowIndex = 1024  // the feature indices fit 32 bits and are written so (most files: 4 bytes a nonzero less)
};

/// The number and line of the record before (records are written and read in order).
struct Previous {
  std::int64_t number = -1, line = -1;
};

bool fits_32_bits(const std::vector<std::int64_t>& indices) {
  for (const std::int64_t i : indices)
    if (i < std::numeric_limits<std::int32_t>::min() || i > std::numeric_limits<std::int32_t>::max()) return false;
  return true;
}

void encode(Encoder& out, const Record& r, Previous& previous) {
  std::uint16_t flags = 0;
  if (r.number == previous.number + 1 && r.line == previous.line + 1) flags |= kFollows;
  if (!r.labels.empty()) flags |= kLabels;
  if (!r.feature_index.empty()) flags |= kIndex;
  if (!r.feature_index.empty() && fits_32_bits(r.feature_index)) flags |= kNarrowIndex;
  if (!r.feature_value.empty()) flags |= kValues;
  if (r.row != -1 || r.col != -1) flags |= kCell;
  if (r.timestamp != 0.0 || std::signbit(r.timestamp)) flags |= kTimestamp;
  if (r.observed_label != -1) flags |= kObserved;
  if (r.part) flags |= kHasPart | static_cast<std::uint16_t>(static_cast<int>(*r.part) << kPartShift);
  out.value(flags);
  if (!(flags & kFollows)) {
    out.value(r.number);
    out.value(r.line);
  }
  previous = {r.number, r.line};
  out.value(r.target);
  if (flags & kLabels) out.array(r.labels);
  if (flags & kNarrowIndex) {
    out.value(static_cast<std::uint64_t>(r.feature_index.size()));
    for (const std::int64_t i : r.feature_index) out.value(static_cast<std::int32_t>(i));
  } else if (flags & kIndex) {
    out.array(r.feature_index);
  }
  if (flags & kValues) out.array(r.feature_value);
  if (flags & kCell) {
    out.value(r.row);
    out.value(r.col);
  }
  if (flags & kTimestamp) out.value(r.timestamp);
  if (flags & kObserved) out.value(r.observed_label);
}

void decode(Decoder& in, Record& r, Previous& previous, std::uint64_t limit) {
  r.clear();
  const auto flags = in.value<std::uint16_t>();
  if (flags & kFollows) {
    r.number = previous.number + 1;
    r.line = previous.line + 1;
  } else {
    r.number = in.value<std::int64_t>();
    r.line = in.value<std::int64_t>();
  }
  previous = {r.number, r.line};
  r.target = in.value<double>();
  if (flags & kLabels) in.array(r.labels, limit);
  if (flags & kNarrowIndex) {
    thread_local std::vector<std::int32_t> narrow;
    in.array(narrow, limit);
    r.feature_index.assign(narrow.begin(), narrow.end());
  } else if (flags & kIndex) {
    in.array(r.feature_index, limit);
  }
  if (flags & kValues) in.array(r.feature_value, limit);
  if (flags & kCell) {
    r.row = in.value<std::int64_t>();
    r.col = in.value<std::int64_t>();
  }
  if (flags & kTimestamp) r.timestamp = in.value<double>();
  if (flags & kObserved) r.observed_label = in.value<std::int64_t>();
  if (flags & kHasPart) {
    const int part = flags >> kPartShift;
    if (part > static_cast<int>(Part::test)) throw Damaged{"an unknown part"};
    r.part = static_cast<Part>(part);
  }
}

/// What a full pass of the reader left besides its records.
struct Trailer {
  std::string source_name;
  std::vector<std::string> notes;
  DataPreparation preparation;
};

void encode(Encoder& out, const Trailer& t) {
  out.text(t.source_name);
  out.value(static_cast<std::uint64_t>(t.notes.size()));
  for (const std::string& n : t.notes) out.text(n);
  out.text(t.preparation.header.dump());
  out.value(static_cast<std::uint64_t>(t.preparation.arrays.size()));
  for (const auto& [name, a] : t.preparation.arrays) {
    out.text(name);
    out.value(static_cast<std::uint8_t>(a.integral));
    out.array(a.shape);
    out.array(a.reals);
    out.array(a.integers);
  }
}

Trailer decode_trailer(Decoder& in, std::uint64_t limit) {
  Trailer t;
  t.source_name = in.text(limit);
  const auto notes = in.value<std::uint64_t>();
  if (notes > limit) throw Damaged{"a count beyond the file"};
  for (std::uint64_t i = 0; i < notes; ++i) t.notes.push_back(in.text(limit));
  t.preparation.header = Json::parse(in.text(limit), nullptr, false);
  if (t.preparation.header.is_discarded()) throw Damaged{"an unreadable preparation"};
  const auto arrays = in.value<std::uint64_t>();
  if (arrays > limit) throw Damaged{"a count beyond the file"};
  for (std::uint64_t i = 0; i < arrays; ++i) {
    const std::string name = in.text(limit);
    NamedArray& a = t.preparation.arrays[name];
    a.integral = in.value<std::uint8_t>() != 0;
    in.array(a.shape, limit);
    in.array(a.reals, limit);
    in.array(a.integers, limit);
  }
  return t;
}

/// An opened, checked cache file: its records start at `records_at`.
struct CheckedFile {
  std::unique_ptr<Decoder> decoder;
  std::uint64_t records_at = 0, trailer_at = 0, table_at = 0, records = 0, size = 0;
  Trailer trailer;
};

/// Opens and checks the cache file at `path` against `key`: null when there is none; throws Damaged
/// when it is there but cannot be trusted.
std::optional<CheckedFile> open_checked(const fs::path& path, const std::string& key) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return std::nullopt;
  CheckedFile f;
  f.size = size;
  f.decoder = std::make_unique<Decoder>(path);
  Decoder& in = *f.decoder;
  const std::uint64_t header = sizeof kMagic + sizeof(std::uint32_t) + sizeof(std::uint64_t) + key.size();
  if (size < header + kFooterBytes) throw Damaged{"shorter than its header"};
  in.seek(size - kFooterBytes);
  f.records = in.value<std::uint64_t>();
  f.trailer_at = in.value<std::uint64_t>();
  f.table_at = in.value<std::uint64_t>();
  if (const auto length = in.value<std::uint64_t>(); length != size)
    throw Damaged{"truncated or extended: " + std::to_string(size) + " bytes, written " + std::to_string(length)};
  const auto checksum = in.value<std::uint64_t>();
  std::rewind(in.file());
  // The checksum covers every byte before it: one read of the file, far faster than a parse.
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  std::vector<char> buffer(kChunk);
  std::uint64_t left = size - sizeof(std::uint64_t);
  while (left > 0) {
    const std::size_t got = std::fread(buffer.data(), 1, std::min<std::uint64_t>(left, buffer.size()), in.file());
    if (got == 0) break;
    XXH3_64bits_update(state, buffer.data(), got);
    left -= got;
  }
  const std::uint64_t computed = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  if (left > 0) throw Damaged{"truncated"};
  if (checksum != computed) throw Damaged{"its checksum does not match"};
  in.seek(0);
  char magic[sizeof kMagic];
  in.bytes(magic, sizeof magic);
  if (std::memcmp(magic, kMagic, sizeof magic) != 0) throw Damaged{"not a RankOne parsed-record file"};
  if (in.value<std::uint32_t>() != kFormatVersion) throw Damaged{"another format version"};
  if (in.text(size) != key) throw Damaged{"another key (a hash collision or a foreign file)"};
  f.records_at = in.consumed();
  if (f.trailer_at < f.records_at || f.table_at < f.trailer_at || f.table_at > size - kFooterBytes)
    throw Damaged{"a trailer or block table beyond the file"};
  in.seek(f.trailer_at);
  f.trailer = decode_trailer(in, size);
  if (in.consumed() != f.table_at) throw Damaged{"bytes after its trailer"};
  std::vector<std::uint64_t> blocks;
  in.array(blocks, size);
  if (blocks.size() != (f.table_at + kChunk - 1) / kChunk) throw Damaged{"a block table of another length"};
  if (in.consumed() != size - kFooterBytes) throw Damaged{"bytes after its block table"};
  // Checked whole just now; from here on each block is checked again as a replay reads it.
  in.check_blocks(std::move(blocks), f.table_at);
  return f;
}

/// Removes the least recently used cache files until the folder holds at most `cap` bytes
/// (`keep` stays). Other processes may remove the same files: errors are ignored.
void evict(const fs::path& folder, std::uint64_t cap, const fs::path& keep) {
  struct Entry {
    fs::file_time_type used;
    std::uint64_t size;
    fs::path path;
  };
  std::vector<Entry> entries;
  std::uint64_t total = 0;
  std::error_code ec;
  const auto day_ago = fs::file_time_type::clock::now() - std::chrono::hours(24);
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    // A temporary file a day old was left by a process that died writing it.
    if (e.path().filename().string().find(".partial-") != std::string::npos && e.last_write_time(ec) < day_ago)
      fs::remove(e.path(), ec);
    if (e.path().extension() != kExtension || !e.is_regular_file(ec)) continue;
    const auto size = e.file_size(ec);
    if (ec) continue;
    total += size;
    if (e.path() != keep) entries.push_back({e.last_write_time(ec), size, e.path()});
  }
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= cap) break;
    fs::remove(e.path, ec);
    total -= e.size;
  }
}

class CachingReader final : public RecordReader {
 public:
  CachingReader(std::unique_ptr<RecordReader> inner, ParseKey key, ParsedCacheSettings settings)
      : inner_(std::move(inner)), key_(std::move(key)), settings_(std::move(settings)) {}

  void start(std::uint64_t seed) override {
    seed_ = seed;
    writer_.reset();
    if (!file_ && !uncached_) file_ = checked_file();
    if (file_) {  // checked once when opened; held open, so a file replaced or evicted meanwhile is no matter
      std::error_code ec;
      fs::last_write_time(path_, fs::file_time_type::clock::now(), ec);  // recently used: evicted last
      served_ = 0;
      read_previous_ = {};
      try {
        file_->decoder->seek(file_->records_at);
      } catch (const Damaged& d) {
        parse_from_here(d.why);
      }
      return;
    }
    if (!uncached_) begin_writing();
    inner_->start(seed);
  }

  bool next(Record& record) override {
    if (file_) {
      if (served_ == file_->records) return false;
      try {
        decode(*file_->decoder, record, read_previous_, file_->size);
        ++served_;
        return true;
      } catch (const Damaged& d) {  // checked when opened: only a file changed under us gets here
        parse_from_here(d.why);
      }
    }
    if (!inner_->next(record)) {
      finish_writing();
      return false;
    }
    if (writer_) {
      encode(*writer_->encoder, record, writer_->previous);
      ++writer_->records;
      if (writer_->encoder->size() > writer_->budget) {
        own_notes_.push_back("parsed-record cache: " + inner_->source_name() + " parses to more than " +
                             grouped(static_cast<std::int64_t>(writer_->budget)) +
                             " bytes (RANKONE_PARSED_CACHE_BYTES, or half the free space): not cached, parsed "
                             "on every pass");
        writer_.reset();
        uncached_ = true;  // read through from now on
      }
    }
    return true;
  }

  RecordLayout layout() const override { return inner_->layout(); }
  std::uint64_t bytes_read() const override {
    return file_ ? file_->decoder->consumed() - file_->records_at : inner_->bytes_read();
  }
  std::string source_name() const override { return replayed() ? replayed()->source_name : inner_->source_name(); }
  std::vector<std::string> notes() const override {
    std::vector<std::string> notes = replayed() ? replayed()->notes : inner_->notes();
    notes.insert(notes.end(), own_notes_.begin(), own_notes_.end());
    return notes;
  }
  void describe_preparation(DataPreparation& preparation) const override {
    if (!replayed()) return inner_->describe_preparation(preparation);
    for (const auto& [name, value] : replayed()->preparation.header.items()) preparation.header[name] = value;
    for (const auto& [name, array] : replayed()->preparation.arrays) preparation.arrays[name] = array;
  }
  void use_preparation(const DataPreparation& preparation) override {
    uncached_ = true;  // new data read as a saved model says: not the training parse
    file_.reset();
    fell_back_.reset();
    inner_->use_preparation(preparation);
  }
  void set_header_check(HeaderCheck check) override { inner_->set_header_check(std::move(check)); }

 private:
  /// The cache file being written: a temporary name of its own (trials on threads of one process
  /// may write the same key at once), renamed into place whole. No fsync: a file a crash leaves
  /// half-written fails its checksum and is rebuilt.
  struct Writer {
    fs::path target, temporary;
    std::ofstream out;
    std::unique_ptr<Encoder> encoder;
    std::uint64_t records = 0, budget = 0;
    Previous previous;
    bool committed = false;

    explicit Writer(const fs::path& path) : target(path) {
      static std::atomic<std::uint64_t> writers{0};
      std::string name = path.filename().string();
      name.insert(0, 1, '.');  // hidden (GCC 12 warns falsely on "." + name)
      name.append(".partial-").append(std::to_string(::getpid())).append("-").append(std::to_string(writers++));
      temporary = path.parent_path() / name;
      out.open(temporary, std::ios::binary | std::ios::trunc);
      if (!out) throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(errno));
      encoder = std::make_unique<Encoder>(out);
    }
    ~Writer() {
      if (committed) return;
      out.close();
      std::error_code ec;
      fs::remove(temporary, ec);
    }
    void commit() {
      encoder.reset();
      out.close();
      if (out.fail()) throw std::runtime_error("cannot write " + temporary.string() + ": " + std::strerror(errno));
      fs::rename(temporary, target);  // atomic: a reader sees the old file or the new one, never half of one
      committed = true;
    }
  };

  /// What the records served so far came with: the replayed file's trailer, kept when a replay
  /// fell back to parsing (the same parse), or none when the inner reader serves.
  const Trailer* replayed() const { return file_ ? &file_->trailer : fell_back_ ? &*fell_back_ : nullptr; }

  /// The cache file changed while it was replayed: the records served so far were checked, so
  /// the pass goes on from the next one, parsed from the data file; said once, and the file is
  /// left for the next trial to check (and rebuild) when it opens it.
  void parse_from_here(const std::string& why) {
    own_notes_.push_back("parsed-record cache: " + path_.string() + " changed while it was replayed (" + why +
                         "): records from " + std::to_string(served_ + 1) + " on were parsed from the data file");
    fell_back_ = std::move(file_->trailer);
    file_.reset();
    uncached_ = true;
    inner_->start(seed_);
    Record skipped;
    for (std::uint64_t i = 0; i < served_; ++i)
      if (!inner_->next(skipped)) throw DataError(path_.string() + ": the data file has fewer records than its cache");
  }

  /// The checked cache file of the key, or none (a damaged one is removed, to be rebuilt).
  std::optional<CheckedFile> checked_file() {
    try {
      if (key_text_.empty()) key_text_ = key_text(key_);
    } catch (const std::exception&) {  // an unreadable data file: the reader reports it in its own words
      uncached_ = true;
      return std::nullopt;
    }
    path_ = cache_file(settings_.folder, key_text_);
    try {
      return open_checked(path_, key_text_);
    } catch (const Damaged& d) {
      own_notes_.push_back("parsed-record cache: " + path_.string() + " was ignored (" + d.why + ") and is rebuilt");
      std::error_code ec;
      fs::remove(path_, ec);
    }
    return std::nullopt;
  }

  void begin_writing() {
    try {
      fs::create_directories(settings_.folder);
      const auto space = fs::space(settings_.folder);
      writer_ = std::make_unique<Writer>(path_);
      writer_->budget = std::min<std::uint64_t>(settings_.max_bytes, space.available / 2);
      Encoder& out = *writer_->encoder;
      out.bytes(kMagic, sizeof kMagic);
      out.value(kFormatVersion);
      out.text(key_text_);
    } catch (const std::exception& e) {
      cannot_cache(e.what());
    }
  }

  void finish_writing() {
    if (!writer_) return;
    try {
      Trailer t;
      t.source_name = inner_->source_name();
      t.notes = inner_->notes();
      inner_->describe_preparation(t.preparation);
      Encoder& out = *writer_->encoder;
      const std::uint64_t trailer_at = out.size();
      encode(out, t);
      const std::uint64_t table_at = out.size();
      out.block_table();
      out.value(writer_->records);
      out.value(trailer_at);
      out.value(table_at);
      out.value(out.size() + 2 * sizeof(std::uint64_t));  // the whole file's length, with the checksum
      out.finish();
      writer_->commit();
      evict(settings_.folder, settings_.max_bytes, path_);
    } catch (const std::exception& e) {
      cannot_cache(e.what());
    }
    writer_.reset();
  }

  /// A cache that cannot be written is noted once; the reader parses on every pass.
  void cannot_cache(const std::string& why) {
    own_notes_.push_back("parsed-record cache off: " + why + " (the file is parsed on every pass)");
    writer_.reset();
    uncached_ = true;
  }

  std::unique_ptr<RecordReader> inner_;
  ParseKey key_;
  ParsedCacheSettings settings_;
  std::string key_text_;
  fs::path path_;
  bool uncached_ = false;  ///< read through the inner reader (scoring, or a cache that cannot be written)
  std::optional<CheckedFile> file_;  ///< replaying this checked file
  std::optional<Trailer> fell_back_;  ///< the trailer of a file that changed while it was replayed
  std::uint64_t seed_ = 0;            ///< of the pass (to restart the inner reader where a replay failed)
  std::uint64_t served_ = 0;
  Previous read_previous_;
  std::unique_ptr<Writer> writer_;  ///< writing the parse of this pass
  std::vector<std::string> own_notes_;
};

}  // namespace

ParseKey parse_key(const Params& p, const std::string& format, std::vector<std::string> files) {
  Json options = Json::object();
  for (const auto& [name, value] : p.json().items())
    if (!applied_after_reading().count(name)) options[name] = value;
  return {format + " " + options.dump(), std::move(files)};
}

ParseKey parse_key(const Params& p, const std::string& format) {
  std::vector<std::string> files = {resolve_param_path(p, "file")};
  if (p.has("observations")) files.push_back(resolve_param_path(p, "observations"));
  return parse_key(p, format, std::move(files));
}

ParsedCacheSettings ParsedCacheSettings::from_environment() {
  ParsedCacheSettings s;
  const char* folder = std::getenv("RANKONE_PARSED_CACHE");
  if (folder && std::string(folder) == "off") {
    s.folder.clear();
  } else if (folder && *folder) {
    s.folder = folder;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    s.folder = fs::path(xdg) / "rankone" / "parsed";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    s.folder = fs::path(home) / ".cache" / "rankone" / "parsed";
  }
  if (const char* bytes = std::getenv("RANKONE_PARSED_CACHE_BYTES"); bytes && *bytes) {
    // strtoull alone takes "-1" and any overflow for 2^64 - 1: digits only, and in range.
    const auto refuse = [bytes](const std::string& what) {
      throw ConfigError("RANKONE_PARSED_CACHE_BYTES: expected " + what + ", found '" + bytes + "'");
    };
    for (const char* c = bytes; *c; ++c)
      if (*c < '0' || *c > '9') refuse("a number of bytes (digits only)");
    errno = 0;
    const unsigned long long cap = std::strtoull(bytes, nullptr, 10);
    if (errno == ERANGE || cap > static_cast<unsigned long long>(std::numeric_limits<std::int64_t>::max()))
      refuse("a number of bytes up to " + std::to_string(std::numeric_limits<std::int64_t>::max()));
    s.max_bytes = cap;
  }
  return s;
}

std::unique_ptr<RecordReader> cache_parsed(std::unique_ptr<RecordReader> reader, ParseKey key,
                                           ParsedCacheSettings settings) {
  if (settings.folder.empty()) return reader;
  return std::make_unique<CachingReader>(std::move(reader), std::move(key), std::move(settings));
}

fs::path parsed_cache_file(const fs::path& folder, const ParseKey& key) { return cache_file(folder, key_text(key)); }

}  // namespace rankone::sources
