#include "core/comm/staged_combine.hpp"

#include <cstdint>
#include <vector>

namespace poreflow {

void StagedCombine::max_words(Buffer& words, std::size_t offset, std::size_t count) const {
  if (count == 0) return;
  std::vector<std::uint64_t> h(count);
  be_.download(words, h.data(), count * sizeof(std::uint64_t), offset * sizeof(std::uint64_t));
  comm_.max(std::span<std::uint64_t>(h));
  be_.upload(words, h.data(), count * sizeof(std::uint64_t), offset * sizeof(std::uint64_t));
}

void StagedCombine::sum_values(Buffer& values, Precision prec, std::size_t offset, std::size_t count) const {
  if (count == 0) return;
  with_type(prec, [&](auto t) {
    using T = decltype(t);
    std::vector<T> h(count);
    be_.download(values, h.data(), count * sizeof(T), offset * sizeof(T));
    // summed in double whatever the precision, so every process gets the same rounding
    std::vector<double> d(h.begin(), h.end());
    comm_.sum(std::span<double>(d));
    for (std::size_t i = 0; i < count; ++i) h[i] = static_cast<T>(d[i]);
    be_.upload(values, h.data(), count * sizeof(T), offset * sizeof(T));
  });
}

}  // namespace poreflow
