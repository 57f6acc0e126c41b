#pragma once
/// \file The `image` source: a PNG or JPEG image as a matrix, served as observed entries (pixel
/// values) for matrix-completion demos, with held-out pixels as the test set.
#include "file_source.hpp"

namespace rankone::sources {

/// A decoded image: `rows × cols × channels` bytes, row-major, channels interleaved.
struct DecodedImage {
  std::int64_t rows = 0, cols = 0, channels = 0;
  std::vector<unsigned char> pixels;
};

/// Decodes PNG or JPEG bytes (told apart by their signature) to grey (channels = 1) or RGB
/// (channels = 3). Throws DataError naming `name` on corrupt data or an unknown format, and when
/// the library for the format was not available at build time.
/// `on_header(rows, cols, channels)` is called with the header's size before the pixels are allocated.
using ImageHeaderCheck = std::function<void(std::int64_t rows, std::int64_t cols, std::int64_t channels)>;
DecodedImage decode_image(const std::string& bytes, bool colour, const std::string& name,
                          const ImageHeaderCheck& on_header = {});

/// Serves the pixels of a decoded image as entries. Grey: a rows × cols matrix. Colour: the three
/// channel matrices side by side, rows × 3·cols (column c·cols + j is channel c of pixel column j).
/// Record numbers are the row-major entry positions; each pass visits them in a seeded random
/// order (the image is held in memory: it is small next to any file the other sources stream).
class ImageReader final : public RecordReader {
 public:
  ImageReader(StreamOpener opener, bool colour, double value_scale);
  void start(std::uint64_t seed) override;
  bool next(Record& record) override;
  RecordLayout layout() const override;
  std::uint64_t bytes_read() const override { return bytes_; }
  std::string source_name() const override { return name_; }
  const DecodedImage& image() const { return image_; }

 private:
  void load();
  StreamOpener opener_;
  bool colour_;
  double value_scale_;
  DecodedImage image_;
  bool loaded_ = false;
  std::vector<std::int64_t> order_;
  std::size_t at_ = 0;
  std::uint64_t bytes_ = 0;
  std::string name_;
};

Registration image_registration();

}  // namespace rankone::sources
