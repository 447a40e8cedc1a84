// compare-images: compares linear PFM images for the path tracer's tests.
//
//   compare-images A.pfm B.pfm [--epsilon E] [--max-differing-percent P]
//   [--max-mae M]
//       Prints the share of pixels where some channel differs by more than E
//       (absolute, in linear radiance), the mean absolute error over all
//       channels and the largest difference. Fails when that share exceeds P
//       percent or the MAE exceeds M (each checked only when given;
//       --max-differing-percent needs --epsilon).
//
//   compare-images A.pfm --expect-mean R,G,B (--tolerance T |
//   --relative-tolerance R | --sigmas K)
//       Prints each channel's image mean, its standard error estimated from the
//       spread of the pixels (valid when every pixel has the same expected
//       value, as in a furnace), and fails when a mean is further from the
//       expected value than T, than R times the expected value, or than K
//       standard errors.
//
//   compare-images A.pfm --expect-uniform R,G,B --epsilon E
//       Fails unless every pixel's every channel is within E of the value (E =
//       0: exactly).
//
// A non-finite pixel always fails. Exit status: 0 pass, 1 fail, 2 bad command
// line or file.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char *const kTool = "compare-images";

[[noreturn]] void usage(const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", kTool, message.c_str());
  std::fprintf(stderr,
               "usage: %s A.pfm B.pfm [--epsilon E] [--max-differing-percent "
               "P] [--max-mae M]\n"
               "       %s A.pfm --expect-mean R,G,B (--tolerance T | "
               "--relative-tolerance R |"
               " --sigmas K)\n"
               "       %s A.pfm --expect-uniform R,G,B --epsilon E\n",
               kTool, kTool, kTool);
  std::exit(2);
}

[[noreturn]] void fileError(const std::string &path,
                            const std::string &message) {
  std::fprintf(stderr, "%s: error: %s: %s\n", kTool, path.c_str(),
               message.c_str());
  std::exit(2);
}

// An image, top row first, 3 channels (a grey "Pf" image is widened to 3 equal
// channels).
struct Image {
  int width = 0, height = 0;
  std::vector<float> rgb;
  float at(int x, int y, int c) const {
    return rgb[(size_t(y) * width + x) * 3 + c];
  }
};

Image readPfm(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fileError(path, "cannot open the file");
  std::string bytes((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
  // Header: "PF" or "Pf", width, height, scale, each separated by whitespace;
  // exactly one whitespace character follows the scale, then the raster, bottom
  // row first.
  size_t pos = 0;
  auto token = [&]() {
    while (pos < bytes.size() && std::isspace((unsigned char)bytes[pos]))
      ++pos;
    size_t start = pos;
    while (pos < bytes.size() && !std::isspace((unsigned char)bytes[pos]))
      ++pos;
    return bytes.substr(start, pos - start);
  };
  std::string magic = token();
  int channels = magic == "PF" ? 3 : magic == "Pf" ? 1 : 0;
  if (channels == 0)
    fileError(path, "not a PFM file (it does not start with PF or Pf)");
  std::string w = token(), h = token(), s = token();
  char *end = nullptr;
  long width = std::strtol(w.c_str(), &end, 10);
  bool ok = !w.empty() && *end == 0;
  long height = std::strtol(h.c_str(), &end, 10);
  ok = ok && !h.empty() && *end == 0;
  double scale = std::strtod(s.c_str(), &end);
  ok = ok && !s.empty() && *end == 0 && scale != 0 && std::isfinite(scale);
  if (!ok || width <= 0 || height <= 0 || width > (1 << 20) ||
      height > (1 << 20) || pos >= bytes.size() ||
      !std::isspace((unsigned char)bytes[pos]))
    fileError(path, "malformed PFM header");
  ++pos;
  size_t count = size_t(width) * size_t(height) * channels;
  if (bytes.size() - pos != count * 4)
    fileError(path, "the PFM raster has " + std::to_string(bytes.size() - pos) +
                        " bytes, expected " + std::to_string(count * 4));
  bool littleEndian = scale < 0;
  Image image;
  image.width = int(width);
  image.height = int(height);
  image.rgb.resize(size_t(width) * height * 3);
  for (long row = 0; row < height; ++row) { // file row 0 is the bottom row
    long y = height - 1 - row;
    for (long x = 0; x < width; ++x)
      for (int c = 0; c < 3; ++c) {
        size_t at = pos + ((size_t(row) * width + x) * channels +
                           (channels == 3 ? c : 0)) *
                              4;
        uint32_t word;
        std::memcpy(&word, bytes.data() + at, 4);
        if (littleEndian != (std::endian::native == std::endian::little))
          word = __builtin_bswap32(word);
        image.rgb[(size_t(y) * width + x) * 3 + c] = std::bit_cast<float>(word);
      }
  }
  return image;
}

double parseNumber(const std::string &option, const char *text) {
  char *end = nullptr;
  double v = std::strtod(text, &end);
  if (*text == 0 || *end != 0 || !std::isfinite(v) || v < 0)
    usage(option + ": expected a non-negative number, got '" + text + "'");
  return v;
}

std::vector<double> parseTriple(const std::string &option, const char *text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    char *end = nullptr;
    double v = std::strtod(part.c_str(), &end);
    if (part.empty() || *end != 0 || !std::isfinite(v))
      usage(option + ": expected R,G,B, got '" + text + "'");
    out.push_back(v);
  }
  if (out.size() != 3)
    usage(option + ": expected R,G,B, got '" + text + "'");
  return out;
}

// Fails (returns false) when some pixel is not finite, naming the first.
bool allFinite(const Image &image, const std::string &name) {
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      for (int c = 0; c < 3; ++c)
        if (!std::isfinite(image.at(x, y, c))) {
          std::printf(
              "FAIL: %s: pixel (%d, %d) channel %d is not finite (%g)\n",
              name.c_str(), x, y, c, double(image.at(x, y, c)));
          return false;
        }
  return true;
}

const char *const kChannel[3] = {"r", "g", "b"};

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> files;
  std::optional<double> epsilon, maxPercent, maxMae, tolerance, relative,
      sigmas;
  std::optional<std::vector<double>> expectMean, expectUniform;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc)
        usage(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--epsilon")
      epsilon = parseNumber(arg, value());
    else if (arg == "--max-differing-percent")
      maxPercent = parseNumber(arg, value());
    else if (arg == "--max-mae")
      maxMae = parseNumber(arg, value());
    else if (arg == "--tolerance")
      tolerance = parseNumber(arg, value());
    else if (arg == "--relative-tolerance")
      relative = parseNumber(arg, value());
    else if (arg == "--sigmas")
      sigmas = parseNumber(arg, value());
    else if (arg == "--expect-mean")
      expectMean = parseTriple(arg, value());
    else if (arg == "--expect-uniform")
      expectUniform = parseTriple(arg, value());
    else if (arg.size() > 1 && arg[0] == '-')
      usage("unknown option '" + arg + "'");
    else
      files.push_back(arg);
  }

  if (expectMean || expectUniform) {
    if (files.size() != 1)
      usage("--expect-mean and --expect-uniform take exactly one image");
    if (expectMean && expectUniform)
      usage("--expect-mean and --expect-uniform exclude each other");
    Image image = readPfm(files[0]);
    if (!allFinite(image, files[0]))
      return 1;
    size_t n = size_t(image.width) * image.height;
    std::printf("image: %s, %d x %d\n", files[0].c_str(), image.width,
                image.height);
    bool pass = true;
    if (expectUniform) {
      if (!epsilon)
        usage("--expect-uniform needs --epsilon");
      for (int c = 0; c < 3; ++c) {
        double worst = 0;
        int wx = 0, wy = 0;
        size_t off = 0;
        for (int y = 0; y < image.height; ++y)
          for (int x = 0; x < image.width; ++x) {
            double d =
                std::fabs(double(image.at(x, y, c)) - (*expectUniform)[c]);
            if (d > *epsilon)
              ++off;
            if (d > worst) {
              worst = d;
              wx = x;
              wy = y;
            }
          }
        std::printf("channel %s: expected %.9g everywhere; %zu of %zu pixels "
                    "further than %g; "
                    "largest difference %.9g at (%d, %d)\n",
                    kChannel[c], (*expectUniform)[c], off, n, *epsilon, worst,
                    wx, wy);
        pass = pass && off == 0;
      }
    } else {
      if (int(tolerance.has_value()) + int(relative.has_value()) +
              int(sigmas.has_value()) !=
          1)
        usage("--expect-mean needs exactly one of --tolerance, "
              "--relative-tolerance and --sigmas");
      for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int y = 0; y < image.height; ++y)
          for (int x = 0; x < image.width; ++x)
            sum += image.at(x, y, c);
        double mean = sum / double(n);
        double squares = 0;
        for (int y = 0; y < image.height; ++y)
          for (int x = 0; x < image.width; ++x) {
            double d = image.at(x, y, c) - mean;
            squares += d * d;
          }
        double se = n > 1 ? std::sqrt(squares / double(n - 1) / double(n)) : 0;
        double diff = mean - (*expectMean)[c];
        double allowed = tolerance  ? *tolerance
                         : relative ? *relative * std::fabs((*expectMean)[c])
                                    : *sigmas * se;
        bool ok = std::fabs(diff) <= allowed;
        std::printf("channel %s: mean %.9g, expected %.9g, difference %.3g "
                    "(%.2f standard errors "
                    "of %.3g), allowed %.3g: %s\n",
                    kChannel[c], mean, (*expectMean)[c], diff,
                    se > 0 ? diff / se : 0.0, se, allowed,
                    ok ? "ok" : "too far");
        pass = pass && ok;
      }
    }
    std::printf("%s\n", pass ? "PASS" : "FAIL");
    return pass ? 0 : 1;
  }

  if (files.size() != 2)
    usage(
        "expected two images (or one with --expect-mean or --expect-uniform)");
  if (tolerance || relative || sigmas)
    usage(
        "--tolerance, --relative-tolerance and --sigmas go with --expect-mean");
  if (maxPercent && !epsilon)
    usage("--max-differing-percent needs --epsilon");
  Image a = readPfm(files[0]), b = readPfm(files[1]);
  if (a.width != b.width || a.height != b.height) {
    std::fprintf(stderr, "%s: error: %s is %d x %d but %s is %d x %d\n", kTool,
                 files[0].c_str(), a.width, a.height, files[1].c_str(), b.width,
                 b.height);
    return 2;
  }
  if (!allFinite(a, files[0]) || !allFinite(b, files[1]))
    return 1;
  size_t n = size_t(a.width) * a.height, differing = 0;
  double absSum = 0, worst = 0;
  int wx = 0, wy = 0, wc = 0;
  double eps = epsilon.value_or(0);
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) {
      bool differs = false;
      for (int c = 0; c < 3; ++c) {
        double d = std::fabs(double(a.at(x, y, c)) - double(b.at(x, y, c)));
        absSum += d;
        differs = differs || d > eps;
        if (d > worst) {
          worst = d;
          wx = x;
          wy = y;
          wc = c;
        }
      }
      differing += differs;
    }
  double percent = 100.0 * double(differing) / double(n);
  double mae = absSum / double(3 * n);
  std::printf("images: %s and %s, %d x %d\n", files[0].c_str(),
              files[1].c_str(), a.width, a.height);
  std::printf("differing pixels (some channel differs by more than %g): %zu of "
              "%zu = %.4f%%\n",
              eps, differing, n, percent);
  std::printf("mean absolute error: %.6g\n", mae);
  std::printf(
      "max difference: %.6g at pixel (%d, %d) channel %s (%.9g vs %.9g)\n",
      worst, wx, wy, kChannel[wc], double(a.at(wx, wy, wc)),
      double(b.at(wx, wy, wc)));
  bool pass = true;
  if (maxPercent && percent > *maxPercent) {
    std::printf("FAIL: %.4f%% of the pixels differ by more than %g (at most "
                "%g%% allowed)\n",
                percent, eps, *maxPercent);
    pass = false;
  }
  if (maxMae && mae > *maxMae) {
    std::printf("FAIL: the mean absolute error %.6g exceeds %g\n", mae,
                *maxMae);
    pass = false;
  }
  if (pass)
    std::printf("PASS\n");
  return pass ? 0 : 1;
}
