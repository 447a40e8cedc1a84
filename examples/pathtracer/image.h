//===- image.h - The path tracer's film and image files ---------*- C++ -*-===//
//
// docs/pathtracer.md section 6: the fixed-point film (i64, 2^24 per unit of
// radiance, summed over the samples) as a linear f32 image, written as a PFM
// (and read back) or as an 8-bit sRGB PNG (libpng). Images are row-major with
// row 0 the top of the picture; the PFM writer and reader flip rows, since a
// PFM stores the bottom row first.
//
//===----------------------------------------------------------------------===//
#ifndef SLUICE_EXAMPLES_PATHTRACER_IMAGE_H
#define SLUICE_EXAMPLES_PATHTRACER_IMAGE_H

#include "sluice/runtime/admission/status.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace sluice::pathtracer {

using runtime::Status;

// One fixed-point unit of the film: a contribution c adds int64(c * 2^24 +
// 0.5).
inline constexpr double kFilmScale = 16777216.0; // 2^24

struct Image {
  uint32_t width = 0, height = 0;
  std::vector<float> rgb; // 3 per pixel, pixel y * width + x, y = 0 on top
};

// film * 2^-24 / spp per channel (in double, stored as f32). `film` holds
// 3 * width * height values; spp >= 1.
Status filmToImage(std::span<const int64_t> film, uint32_t width,
                   uint32_t height, uint32_t spp, Image &out);

// The sRGB transfer function of a linear value (12.92 v up to 0.0031308,
// else 1.055 v^(1/2.4) - 0.055), not clamped.
float srgbEncode(float linear);
// round(255 * clamp(srgbEncode(linear), 0, 1)).
uint8_t srgbByte(float linear);

// "PF", little-endian (scale -1), bottom row first.
Status writePfm(const std::string &path, const Image &image);
// Reads a colour PFM ("PF") of either byte order.
Status readPfm(const std::string &path, Image &out);
// An 8-bit RGB PNG of srgbByte of every channel.
Status writePng(const std::string &path, const Image &image);

} // namespace sluice::pathtracer

#endif // SLUICE_EXAMPLES_PATHTRACER_IMAGE_H
