#pragma once
/// \file The `idx` source: MNIST-style IDX files (images and labels), gzip-compressed or not.
#include "file_source.hpp"

namespace rankone::sources {

/// The header of an IDX file: magic `00 00 TYPE NDIMS`, then NDIMS big-endian 32-bit sizes.
struct IdxHeader {
  std::uint8_t type = 0x08;        ///< 08 ubyte, 09 sbyte, 0B int16, 0C int32, 0D float32, 0E float64
  std::vector<std::int64_t> dims;  ///< dims[0] is the number of records
  std::size_t element_bytes() const;
  std::int64_t record_elements() const;  ///< product of dims[1..]
};

/// Reads and checks a header from a stream. Throws DataError (wrong magic, unknown type, absurd
/// sizes, truncation) naming the file.
IdxHeader read_idx_header(ByteStream& stream);

/// Decodes `count` big-endian elements of `type` from `bytes` into `out`, scaled.
void decode_idx_elements(std::uint8_t type, const unsigned char* bytes, std::size_t count, double scale, double* out);

/// Streams records (one slice along the first dimension) from an IDX data file and, optionally, the
/// matching labels file (one integer per record).
class IdxReader final : public RecordReader {
 public:
  /// `labels` may be empty (no labels: targets 0). `value_scale` multiplies every value.
  IdxReader(StreamOpener data, StreamOpener labels, double value_scale);
  void start(std::uint64_t seed) override;
  bool next(Record& record) override;
  RecordLayout layout() const override;
  std::uint64_t bytes_read() const override { return bytes_; }
  std::string source_name() const override { return name_; }

 private:
  void open_headers();
  StreamOpener data_opener_, labels_opener_;
  double value_scale_;
  std::unique_ptr<ByteStream> data_, labels_;
  IdxHeader header_, label_header_;
  bool have_header_ = false;
  std::vector<unsigned char> raw_;  ///< the bytes of one record (grown as they arrive)
  std::size_t record_bytes_ = 0;    ///< bytes of one record, from the header
  std::int64_t records_ = 0;
  std::uint64_t bytes_ = 0;
  std::string name_;
};

Registration idx_registration();

}  // namespace rankone::sources
