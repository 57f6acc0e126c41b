// The `image` source: PNG (libpng) and JPEG (libjpeg) decoding from memory, reader, registration.
#include "image_source.hpp"

#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <numeric>

#ifdef RANKONE_HAVE_PNG
#include <png.h>
#endif
#ifdef RANKONE_HAVE_JPEG
#include <jpeglib.h>
// After jpeglib.h, which it needs: the message codes (JWRN_JPEG_EOF).
#include <jerror.h>
#endif

namespace rankone::sources {

namespace {

constexpr std::int64_t kMaxPixels = std::int64_t{1} << 28;  // larger headers are corrupt, not images

bool is_png(const std::string& b) { return b.size() >= 8 && std::memcmp(b.data(), "\x89PNG\r\n\x1a\n", 8) == 0; }
bool is_jpeg(const std::string& b) { return b.size() >= 3 && std::memcmp(b.data(), "\xFF\xD8\xFF", 3) == 0; }

#ifdef RANKONE_HAVE_PNG
DecodedImage decode_png(const std::string& bytes, bool colour, const std::string& name, const ImageHeaderCheck& on_header) {
  png_image image;
  std::memset(&image, 0, sizeof image);
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, bytes.data(), bytes.size()))
    throw DataError(name + ": expected a PNG image, the decoder says: " + image.message);
  image.format = colour ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
  DecodedImage out;
  out.rows = image.height;
  out.cols = image.width;
  out.channels = colour ? 3 : 1;
  if (out.rows * out.cols > kMaxPixels) {
    png_image_free(&image);
    throw DataError(name + ": expected at most 2^28 pixels, found " + std::to_string(out.rows) + " x " +
                    std::to_string(out.cols));
  }
  if (on_header) {
    try {
      on_header(out.rows, out.cols, out.channels);
    } catch (...) {
      png_image_free(&image);
      throw;
    }
  }
  out.pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.pixels.data(), 0, nullptr))
    throw DataError(name + ": corrupt PNG data: " + image.message);
  return out;
}
#endif

#ifdef RANKONE_HAVE_JPEG
struct JpegError {
  jpeg_error_mgr manager;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void jpeg_fail(j_common_ptr info) {
  auto* error = reinterpret_cast<JpegError*>(info->err);
  (*info->err->format_message)(info, error->message);
  std::longjmp(error->jump, 1);
}

/// Warnings are not printed, but a premature end of the data is an error: a truncated file is
/// corrupt (as a truncated gzip file is), not an image padded with grey.
void jpeg_warning(j_common_ptr info, int level) {
  if (level < 0 && info->err->msg_code == JWRN_JPEG_EOF) (*info->err->error_exit)(info);
}

DecodedImage decode_jpeg(const std::string& bytes, bool colour, const std::string& name, const ImageHeaderCheck& on_header) {
  jpeg_decompress_struct info;
  JpegError error;
  info.err = jpeg_std_error(&error.manager);
  error.manager.error_exit = jpeg_fail;
  error.manager.emit_message = jpeg_warning;
  // Everything the longjmp may skip lives outside this frame's automatic C++ objects.
  auto out = std::make_unique<DecodedImage>();
  if (setjmp(error.jump)) {
    jpeg_destroy_decompress(&info);
    throw DataError(name + ": corrupt JPEG data: " + error.message);
  }
  jpeg_create_decompress(&info);
  jpeg_mem_src(&info, reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&info, TRUE);
  // Checked on the header, before decoding: a progressive decoder allocates the whole image at the start.
  if (std::int64_t{info.image_height} * std::int64_t{info.image_width} > kMaxPixels) {
    const std::string size = std::to_string(info.image_height) + " x " + std::to_string(info.image_width);
    jpeg_destroy_decompress(&info);
    throw DataError(name + ": expected at most 2^28 pixels, found " + size);
  }
  if (on_header) {
    try {
      on_header(std::int64_t{info.image_height}, std::int64_t{info.image_width}, colour ? 3 : 1);
    } catch (...) {
      jpeg_destroy_decompress(&info);
      throw;
    }
  }
  info.out_color_space = colour ? JCS_RGB : JCS_GRAYSCALE;
  jpeg_start_decompress(&info);
  out->rows = info.output_height;
  out->cols = info.output_width;
  out->channels = info.output_components;
  out->pixels.resize(static_cast<std::size_t>(out->rows * out->cols * out->channels));
  while (info.output_scanline < info.output_height) {
    unsigned char* row = out->pixels.data() + static_cast<std::size_t>(info.output_scanline) *
                                                   static_cast<std::size_t>(out->cols * out->channels);
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  return std::move(*out);
}
#endif

}  // namespace

DecodedImage decode_image(const std::string& bytes, bool colour, const std::string& name, const ImageHeaderCheck& on_header) {
  if (is_png(bytes)) {
#ifdef RANKONE_HAVE_PNG
    return decode_png(bytes, colour, name, on_header);
#else
    throw DataError(name + ": a PNG image, but RankOne was built without libpng (install libpng-dev and rebuild)");
#endif
  }
  if (is_jpeg(bytes)) {
#ifdef RANKONE_HAVE_JPEG
    return decode_jpeg(bytes, colour, name, on_header);
#else
    throw DataError(name + ": a JPEG image, but RankOne was built without libjpeg (install libjpeg-dev and rebuild)");
#endif
  }
  std::string head;
  for (std::size_t i = 0; i < std::min<std::size_t>(bytes.size(), 8); ++i) {
    char h[4];
    std::snprintf(h, sizeof h, "%02X", static_cast<unsigned char>(bytes[i]));
    if (i > 0) head += ' ';
    head += h;
  }
  throw DataError(name + ": expected a PNG (89 50 4E 47 …) or JPEG (FF D8 FF …) image, found bytes '" + head + "'");
}

ImageReader::ImageReader(StreamOpener opener, bool colour, double value_scale)
    : opener_(std::move(opener)), colour_(colour), value_scale_(value_scale) {}

void ImageReader::load() {
  auto stream = opener_();
  name_ = stream->name();
  std::string bytes;
  char buffer[1 << 16];
  for (std::size_t got; (got = stream->read(buffer, sizeof buffer)) > 0;) bytes.append(buffer, got);
  bytes_ = bytes.size();
  if (bytes.empty()) data_error(name_, 0, "a PNG or JPEG image", "an empty file");
  image_ = decode_image(bytes, colour_, name_, [this](std::int64_t rows, std::int64_t cols, std::int64_t channels) {
    check_header(rows, cols * channels,
                 name_ + ": its header declares a " + grouped(rows) + " × " + grouped(cols) + " image");
  });
  loaded_ = true;
}

void ImageReader::start(std::uint64_t seed) {
  if (!loaded_) load();
  order_.resize(static_cast<std::size_t>(image_.rows * image_.cols * image_.channels));
  std::iota(order_.begin(), order_.end(), std::int64_t{0});
  Rng rng(seed);
  std::shuffle(order_.begin(), order_.end(), rng);
  at_ = 0;
}

bool ImageReader::next(Record& record) {
  if (at_ >= order_.size()) return false;
  const std::int64_t position = order_[at_++];
  // Position in the rows × (channels·cols) matrix, row-major.
  const std::int64_t width = image_.cols * image_.channels;
  const std::int64_t row = position / width;
  const std::int64_t column = position % width;
  const std::int64_t channel = column / image_.cols;
  const std::int64_t pixel_col = column % image_.cols;
  record.clear();
  record.number = position;
  record.line = position + 1;
  record.row = row;
  record.col = column;
  const auto offset = static_cast<std::size_t>((row * image_.cols + pixel_col) * image_.channels + channel);
  record.target = value_scale_ * image_.pixels[offset];
  return true;
}

RecordLayout ImageReader::layout() const {
  RecordLayout l;
  l.entries = true;
  return l;  // rows and columns are detected by the scan pass (every entry is visited)
}

namespace {

std::unique_ptr<Component> make_image(const Params& p, const BuildContext& ctx) {
  std::string operator_name;
  auto op = make_operator(p, ctx, operator_name);
  auto reader = std::make_unique<ImageReader>(file_opener(resolve_param_path(p, "file")),
                                              p.string("colour") == "rgb", p.number("value_scale"));
  FileSourceConfig config = read_common_parameters(p, *op, operator_name, reader->layout());
  return std::make_unique<FileSource>("image", config, std::move(reader), std::move(op));
}

}  // namespace

Registration image_registration() {
  Registration r;
  r.kind = Kind::data_source;
  r.name = "image";
  r.summary = "A PNG/JPEG image as a matrix whose pixels are observed entries (completion demos), held-out pixels "
              "as test set";
  r.citation = "";
  r.doc_page = "docs/plugins/file_sources.md";
  Schema& s = r.schema;
  s.string("file", std::nullopt, "PNG or JPEG file").make_required();
  s.choice("colour", "grey", {"grey", "rgb"}, "grey: a rows × cols matrix of luminance; rgb: the three channels "
                                              "side by side (rows × 3·cols)");
  s.number("value_scale", 1.0 / 255.0, "multiplies every pixel value (default maps bytes to [0, 1])");
  declare_common_parameters(s, "entry");
  r.example = {{"file", "plugins/sources/examples/tiny.png"}};
  r.factory = make_image;
  r.footprint = image_footprint;
  return r;
}

}  // namespace rankone::sources
