//===- image.cpp - Film to image; PFM and PNG files -----------------------===//

#include "image.h"

#include <png.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace sluice::pathtracer {
namespace {

Status invalid(std::string message) {
  return Status::error(runtime::ErrorKind::InvalidArgument, std::move(message));
}

Status checkImage(const std::string &path, const Image &image) {
  if (image.width == 0 || image.height == 0 ||
      image.rgb.size() != 3 * uint64_t(image.width) * image.height)
    return invalid(path + ": the image is " + std::to_string(image.width) +
                   " x " + std::to_string(image.height) + " pixels with " +
                   std::to_string(image.rgb.size()) + " channel values");
  return Status::success();
}

uint32_t byteSwap(uint32_t v) {
  return (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
}

} // namespace

Status filmToImage(std::span<const int64_t> film, uint32_t width,
                   uint32_t height, uint32_t spp, Image &out) {
  uint64_t values = 3 * uint64_t(width) * height;
  if (film.size() != values)
    return invalid("the film holds " + std::to_string(film.size()) +
                   " values; a " + std::to_string(width) + " x " +
                   std::to_string(height) + " image needs " +
                   std::to_string(values));
  if (spp == 0)
    return invalid("the film of 0 samples per pixel has no image");
  out.width = width;
  out.height = height;
  out.rgb.resize(values);
  for (uint64_t i = 0; i < values; ++i)
    out.rgb[i] = float(double(film[i]) / kFilmScale / double(spp));
  return Status::success();
}

float srgbEncode(float linear) {
  if (linear <= 0.0031308f)
    return 12.92f * linear;
  return 1.055f * std::pow(linear, 1.0f / 2.4f) - 0.055f;
}

uint8_t srgbByte(float linear) {
  float v = std::clamp(srgbEncode(linear), 0.0f, 1.0f);
  if (std::isnan(v))
    v = 0;
  return uint8_t(std::round(255.0f * v));
}

Status writePfm(const std::string &path, const Image &image) {
  if (Status status = checkImage(path, image); !status.ok())
    return status;
  std::ofstream out(path, std::ios::binary);
  if (!out)
    return invalid(path + ": cannot open for writing");
  out << "PF\n" << image.width << " " << image.height << "\n-1.0\n";
  std::vector<unsigned char> row(12 * size_t(image.width));
  for (uint32_t y = image.height; y-- > 0;) {
    const float *src = &image.rgb[3 * size_t(y) * image.width];
    for (size_t i = 0; i < 3 * size_t(image.width); ++i) {
      uint32_t bits = std::bit_cast<uint32_t>(src[i]);
      if constexpr (std::endian::native == std::endian::big)
        bits = byteSwap(bits);
      std::memcpy(&row[4 * i], &bits, 4);
    }
    out.write(reinterpret_cast<const char *>(row.data()),
              std::streamsize(row.size()));
  }
  if (!out.flush())
    return invalid(path + ": cannot write");
  return Status::success();
}

Status readPfm(const std::string &path, Image &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return invalid(path + ": cannot open");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  size_t at = 0;
  // The three header tokens after "PF", each ended by one whitespace byte.
  auto token = [&](std::string &text) {
    while (at < bytes.size() && std::isspace(bytes[at]))
      ++at;
    text.clear();
    while (at < bytes.size() && !std::isspace(bytes[at]))
      text.push_back(char(bytes[at++]));
    if (at >= bytes.size() || text.empty())
      return false;
    ++at; // the single whitespace byte that ends the token
    return true;
  };
  std::string magic, widthText, heightText, scaleText;
  if (!token(magic) || magic != "PF")
    return invalid(path + ": not a colour PFM (it does not start with 'PF')");
  if (!token(widthText) || !token(heightText) || !token(scaleText))
    return invalid(path + ": truncated PFM header");
  char *end = nullptr;
  unsigned long width = std::strtoul(widthText.c_str(), &end, 10);
  bool bad = *end != '\0';
  unsigned long height = std::strtoul(heightText.c_str(), &end, 10);
  bad |= *end != '\0';
  double scale = std::strtod(scaleText.c_str(), &end);
  bad |= *end != '\0' || scale == 0 || !std::isfinite(scale);
  if (bad || width == 0 || height == 0 || width > (1u << 20) ||
      height > (1u << 20))
    return invalid(path + ": bad PFM header '" + widthText + " " + heightText +
                   " " + scaleText + "'");
  uint64_t values = 3 * uint64_t(width) * height;
  if (bytes.size() - at != 4 * values)
    return invalid(path + ": a " + widthText + " x " + heightText +
                   " PFM holds " + std::to_string(4 * values) +
                   " bytes of pixels, the file " +
                   std::to_string(bytes.size() - at));
  bool little = scale < 0;
  bool swap = little != (std::endian::native == std::endian::little);
  out.width = uint32_t(width);
  out.height = uint32_t(height);
  out.rgb.resize(values);
  for (uint64_t i = 0; i < values; ++i) {
    uint64_t row = i / (3 * width), column = i % (3 * width);
    uint32_t bits;
    std::memcpy(&bits, &bytes[at + 4 * i], 4);
    if (swap)
      bits = byteSwap(bits);
    out.rgb[(height - 1 - row) * 3 * width + column] =
        std::bit_cast<float>(bits);
  }
  return Status::success();
}

Status writePng(const std::string &path, const Image &image) {
  if (Status status = checkImage(path, image); !status.ok())
    return status;
  std::vector<uint8_t> pixels(image.rgb.size());
  for (size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = srgbByte(image.rgb[i]);
  png_image png;
  std::memset(&png, 0, sizeof png);
  png.version = PNG_IMAGE_VERSION;
  png.width = image.width;
  png.height = image.height;
  png.format = PNG_FORMAT_RGB;
  if (!png_image_write_to_file(&png, path.c_str(), 0, pixels.data(), 0,
                               nullptr)) {
    std::string message = png.message;
    png_image_free(&png);
    return invalid(path + ": cannot write the PNG: " + message);
  }
  return Status::success();
}

} // namespace sluice::pathtracer
