// The backends' memory operations: upload, download, copy and fill, whole and at offsets.
#include <limits>
#include <vector>

#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("memory: upload, download, copy and fill round trip", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65536 + 5)}) {
      auto host = random_vector<T>(n, -1, 1);
      auto f = make_field(be, host);
      CHECK(f.download() == host);
      Field<T> g(be, n);
      g.fill(std::numeric_limits<T>::quiet_NaN());
      be.copy(f.buffer(), g.buffer(), n * sizeof(T));
      CHECK(g.download() == host);
      g.fill(T(2.5));
      CHECK(g.download() == std::vector<T>(n, T(2.5)));
      // partial upload/download at an offset
      std::vector<T> part = {T(7), T(8)};
      if (n >= 4) {
        be.upload(g.buffer(), part.data(), 2 * sizeof(T), sizeof(T));
        std::vector<T> back(2);
        be.download(g.buffer(), back.data(), 2 * sizeof(T), sizeof(T));
        CHECK(back == part);
      }
      // a copy between offsets: only the destination's bytes there change
      if (n >= 8) {
        Field<T> h(be, n);
        h.fill(T(-3));
        be.copy(f.buffer(), h.buffer(), 3 * sizeof(T), 2 * sizeof(T), 4 * sizeof(T));
        const auto back = h.download();
        for (std::size_t i = 0; i < n; ++i) CHECK(back[i] == (i >= 4 && i < 7 ? host[i - 2] : T(-3)));
        CHECK_THROWS(be.copy(f.buffer(), h.buffer(), 3 * sizeof(T), 0, (n - 2) * sizeof(T)));
      }
    }
  });
}

}  // TEST_SUITE
