// The `idx` source: header parsing, big-endian decoding, reader and registration.
#include "idx_source.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace rankone::sources {

namespace {

/// Reads exactly n bytes, or throws a DataError saying how many were expected.
void read_exactly(ByteStream& stream, unsigned char* out, std::size_t n, const std::string& what) {
  std::size_t got = 0;
  while (got < n) {
    const std::size_t step = stream.read(reinterpret_cast<char*>(out) + got, n - got);
    if (step == 0)
      data_error(stream.name(), 0, std::to_string(n) + " bytes of " + what,
                 "the end of the file after " + std::to_string(got));
    got += step;
  }
}

/// Reads exactly n bytes into `buffer`, growing it only as the bytes arrive: a corrupt header that
/// announces a huge record then fails at the end of the data instead of allocating the announced
/// size up front.
void read_record_bytes(ByteStream& stream, std::vector<unsigned char>& buffer, std::size_t n, const std::string& what) {
  std::size_t got = 0;
  while (got < n) {
    if (buffer.size() == got) buffer.resize(std::min(n, std::max<std::size_t>(2 * got, std::size_t{1} << 20)));
    const std::size_t step = stream.read(reinterpret_cast<char*>(buffer.data()) + got, std::min(n, buffer.size()) - got);
    if (step == 0)
      data_error(stream.name(), 0, std::to_string(n) + " bytes of " + what,
                 "the end of the file after " + std::to_string(got));
    got += step;
  }
}

std::uint32_t big_endian32(const unsigned char* b) {
  return (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) | (std::uint32_t{b[2]} << 8) | std::uint32_t{b[3]};
}

std::string hex_bytes(const unsigned char* b, std::size_t n) {
  std::string out;
  char h[4];
  for (std::size_t i = 0; i < n; ++i) {
    std::snprintf(h, sizeof h, "%02X", b[i]);
    if (i > 0) out += ' ';
    out += h;
  }
  return out;
}

}  // namespace

std::size_t IdxHeader::element_bytes() const {
  switch (type) {
    case 0x08: case 0x09: return 1;
    case 0x0B: return 2;
    case 0x0C: case 0x0D: return 4;
    case 0x0E: return 8;
    default: return 0;
  }
}

std::int64_t IdxHeader::record_elements() const {
  std::int64_t n = 1;
  for (std::size_t k = 1; k < dims.size(); ++k) n *= dims[k];
  return n;
}

IdxHeader read_idx_header(ByteStream& stream) {
  unsigned char magic[4];
  read_exactly(stream, magic, 4, "the IDX magic number");
  IdxHeader h;
  h.type = magic[2];
  if (magic[0] != 0 || magic[1] != 0 || h.element_bytes() == 0 || magic[3] == 0)
    data_error(stream.name(), 0,
               "the IDX magic number 00 00 TYPE NDIMS with TYPE one of 08 09 0B 0C 0D 0E and NDIMS ≥ 1",
               hex_bytes(magic, 4));
  std::vector<unsigned char> sizes(4u * magic[3]);
  read_exactly(stream, sizes.data(), sizes.size(), "the IDX dimension sizes");
  std::int64_t elements = 1;
  for (unsigned k = 0; k < magic[3]; ++k) {
    const std::int64_t size = big_endian32(&sizes[4 * k]);
    h.dims.push_back(size);
    if (k > 0) {
      elements *= size;
      // A record beyond 2^28 elements is a corrupt header, not an image.
      if (size == 0 || elements > (std::int64_t{1} << 28))
        data_error(stream.name(), 0, "record sizes between 1 and 2^28 elements", "dimension " + std::to_string(k) +
                                                                                    " of size " + std::to_string(size));
    }
  }
  return h;
}

void decode_idx_elements(std::uint8_t type, const unsigned char* b, std::size_t count, double scale, double* out) {
  for (std::size_t i = 0; i < count; ++i) {
    double v = 0.0;
    switch (type) {
      case 0x08: v = b[i]; break;
      case 0x09: v = static_cast<std::int8_t>(b[i]); break;
      case 0x0B: v = static_cast<std::int16_t>((b[2 * i] << 8) | b[2 * i + 1]); break;
      case 0x0C: v = static_cast<std::int32_t>(big_endian32(b + 4 * i)); break;
      case 0x0D: {
        const std::uint32_t bits = big_endian32(b + 4 * i);
        float f;
        std::memcpy(&f, &bits, 4);
        v = f;
        break;
      }
      case 0x0E: {
        const std::uint64_t bits = (std::uint64_t{big_endian32(b + 8 * i)} << 32) | big_endian32(b + 8 * i + 4);
        std::memcpy(&v, &bits, 8);
        break;
      }
      default: break;
    }
    out[i] = scale * v;
  }
}

IdxReader::IdxReader(StreamOpener data, StreamOpener labels, double value_scale)
    : data_opener_(std::move(data)), labels_opener_(std::move(labels)), value_scale_(value_scale) {}

void IdxReader::open_headers() {
  data_ = data_opener_();
  name_ = data_->name();
  header_ = read_idx_header(*data_);
  if (labels_opener_) {
    labels_ = labels_opener_();
    label_header_ = read_idx_header(*labels_);
    if (label_header_.dims.size() != 1 || label_header_.type == 0x0D || label_header_.type == 0x0E)
      data_error(labels_->name(), 0, "a one-dimensional integer IDX labels file",
                 std::to_string(label_header_.dims.size()) + " dimensions of type " +
                     std::to_string(label_header_.type));
    if (label_header_.dims[0] != header_.dims[0])
      data_error(labels_->name(), 0, std::to_string(header_.dims[0]) + " labels (the records of " + name_ + ")",
                 std::to_string(label_header_.dims[0]));
  }
  have_header_ = true;
}

void IdxReader::start(std::uint64_t) {
  open_headers();
  check_header(header_.record_elements(), 0, name_ + ": its header declares records of " + grouped(header_.record_elements()) + " values");
  records_ = 0;
  bytes_ = 0;
  record_bytes_ = static_cast<std::size_t>(header_.record_elements()) * header_.element_bytes();
}

bool IdxReader::next(Record& record) {
  if (records_ >= header_.dims[0]) {
    // The header's count is the whole file: trailing bytes mean a wrong header.
    char extra;
    if (data_->read(&extra, 1) != 0)
      data_error(name_, 0, std::to_string(header_.dims[0]) + " records (the header's count), then the end",
                 "more bytes");
    return false;
  }
  record.clear();
  record.number = records_;
  record.line = records_ + 1;
  read_record_bytes(*data_, raw_, record_bytes_, "record " + std::to_string(records_ + 1));
  bytes_ += record_bytes_;
  record.feature_value.resize(static_cast<std::size_t>(header_.record_elements()));
  decode_idx_elements(header_.type, raw_.data(), record.feature_value.size(), value_scale_, record.feature_value.data());
  for (std::size_t j = 0; j < record.feature_value.size(); ++j)
    if (!std::isfinite(record.feature_value[j]))
      data_error(name_, 0, "finite values (record " + std::to_string(records_ + 1) + ", element " +
                               std::to_string(j + 1) + ")",
                 std::to_string(record.feature_value[j]));
  if (labels_) {
    unsigned char label[8];
    read_exactly(*labels_, label, label_header_.element_bytes(), "label " + std::to_string(records_ + 1));
    double value = 0.0;
    decode_idx_elements(label_header_.type, label, 1, 1.0, &value);
    record.target = value;
    record.labels.push_back(static_cast<std::int32_t>(value));
  }
  ++records_;
  return true;
}

RecordLayout IdxReader::layout() const {
  RecordLayout l;
  l.dim = 0;  // from the header, known after the first start(): the scan pass reads it off the records
  l.has_labels = static_cast<bool>(labels_opener_);
  return l;
}

namespace {

std::unique_ptr<Component> make_idx(const Params& p, const BuildContext& ctx) {
  std::string operator_name;
  auto op = make_operator(p, ctx, operator_name);
  StreamOpener labels;
  if (p.has("labels")) labels = file_opener(resolve_param_path(p, "labels"));
  auto reader =
      std::make_unique<IdxReader>(file_opener(resolve_param_path(p, "file")), labels, p.number("value_scale"));
  FileSourceConfig config = read_common_parameters(p, *op, operator_name, reader->layout());
  // The test file's labels: needed exactly when the training file has labels.
  if (p.has("test_labels") && !p.has("test_file"))
    reject_param(p, "test_labels", "test_labels go with test_file (the test images they label)");
  if (p.has("test_file") && p.has("labels") != p.has("test_labels"))
    reject_param(p, "test_labels", p.has("labels") ? "the training file has labels: give the labels of " +
                                                         p.path_of("test_file") + " too"
                                                   : "the training file has no labels; drop test_labels");
  auto test_reader = make_test_reader(p, [&](const std::string& path) {
    StreamOpener test_labels;
    if (p.has("test_labels")) test_labels = file_opener(resolve_param_path(p, "test_labels"));
    return std::make_unique<IdxReader>(file_opener(path), test_labels, p.number("value_scale"));
  });
  return std::make_unique<FileSource>("idx", config, std::move(reader), std::move(op), std::move(test_reader));
}

}  // namespace

Registration idx_registration() {
  Registration r;
  r.kind = Kind::data_source;
  r.name = "idx";
  r.summary = "Streams an IDX file (MNIST format, plain or gzip) with an optional labels file";
  r.citation = "";
  r.doc_page = "docs/plugins/file_sources.md";
  Schema& s = r.schema;
  s.string("file", std::nullopt, "IDX data file: one record per slice along the first dimension").make_required();
  s.string("labels", std::nullopt, "IDX labels file (one integer per record)").make_nullable();
  s.string("test_labels", std::nullopt, "IDX labels file of test_file (required with test_file when labels is "
                                        "given)").make_nullable();
  s.number("value_scale", 1.0, "multiplies every value as read (1/255 maps bytes to [0, 1])");
  declare_common_parameters(s, "symmetric_rank_one");
  declare_feature_parameters(s);
  r.example = {{"file", "plugins/sources/examples/tiny-images.idx"},
               {"labels", "plugins/sources/examples/tiny-labels.idx"}};
  r.factory = make_idx;
  r.footprint = [](const Params& p, const FootprintContext& c) { return file_source_footprint(p, c, RecordShape::dense_features); };
  return r;
}

}  // namespace rankone::sources
