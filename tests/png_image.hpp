#pragma once
// A PNG read back by stb_image (written independently of the writer), for the plot tests.
#include <doctest/doctest.h>
#include <stb_image.h>  // the implementation is in Debian's libstb

#include <array>
#include <cstddef>
#include <filesystem>
#include <vector>

namespace poreflow::test {

struct Image {
  int w = 0, h = 0;
  std::vector<unsigned char> rgb;
  std::array<unsigned char, 3> at(int x, int y) const {
    auto p = &rgb[(static_cast<std::size_t>(y) * w + x) * 3];
    return {p[0], p[1], p[2]};
  }
  long count(std::array<unsigned char, 3> c, int x0 = 0, int x1 = -1) const {
    long n = 0;
    for (int y = 0; y < h; ++y)
      for (int x = x0; x < (x1 < 0 ? w : x1); ++x) n += at(x, y) == c;
    return n;
  }
};

inline Image load_png(const std::filesystem::path& p) {
  Image img;
  int channels = 0;
  unsigned char* data = stbi_load(p.string().c_str(), &img.w, &img.h, &channels, 3);
  REQUIRE_MESSAGE(data != nullptr, "stbi_load failed on " << p);
  img.rgb.assign(data, data + static_cast<std::size_t>(img.w) * img.h * 3);
  stbi_image_free(data);
  return img;
}

}  // namespace poreflow::test
