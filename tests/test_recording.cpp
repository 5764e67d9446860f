// Recording (Backend::begin_recording; CUDA graphs on cuda): nothing recorded runs before a replay;
// a replay runs the launches, fills and copies in their order with the values they had when
// recorded, also after the same kernel was launched with other arguments; a second recording of
// the same launches with other values updates the first in place; a wait or a transfer while
// recording throws BackendError, abort_recording() ends it and the backend goes on. The backends
// that do not record (the host ones, OpenCL) refuse to begin or end one. The reference is the
// host's arithmetic on the same random values.
#include <cstddef>
#include <memory>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/vec.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

// y = a x + b y on the device
void axpby(Backend& be, double a, double b, const Field<double>& x, Field<double>& y) {
  be.vec().axpby({Precision::Double, x.size(), VecCoef::constant(a), VecCoef::constant(b), &x.buffer(), &y.buffer()});
}

// ends a recording that a failed check or a throw leaves open, so that the backend (shared by the
// later tests) is not left recording
struct RecordingGuard {
  Backend& be;
  ~RecordingGuard() { be.abort_recording(); }
};

std::vector<double> scaled(const std::vector<double>& x, double a, double plus = 0) {
  std::vector<double> y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = a * x[i] + plus;
  return y;
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE("recording: a replay runs what was recorded, as it was, and nothing runs before it") {
  for_each_backend([](Backend& be) {
    std::unique_ptr<Backend::Recording> rec;
    if (!be.can_record()) {
      CHECK_THROWS_AS(be.begin_recording(), BackendError);
      CHECK_THROWS_AS(be.end_recording(rec), BackendError);
      return;
    }
    const RecordingGuard guard{be};
    const std::size_t n = 4097 + 17;  // several blocks, not a power of two
    const auto xs = random_vector<double>(n, -1, 1);
    const std::vector<double> poison(n, -777.0);
    const Field<double> x = make_field(be, xs);
    Field<double> y = make_field(be, poison), z = make_field(be, poison), w = make_field(be, poison),
                  v = make_field(be, poison);
    be.begin_recording();
    axpby(be, 2, 0, x, y);                                        // y = 2 x
    be.copy(y.buffer(), z.buffer(), n * sizeof(double));          // z = y
    be.fill(w.buffer(), Precision::Double, 3.0, n);               // w = 3
    axpby(be, 1, 1, x, w);                                        // w = x + w: the same kernel, other values
    be.end_recording(rec);
    REQUIRE(rec);
    CHECK(y.download() == poison);  // recorded, not run
    CHECK(z.download() == poison);
    CHECK(w.download() == poison);
    axpby(be, 7, 0, x, v);  // the recorded kernel launched with other arguments in between
    rec->replay();
    CHECK(max_rel_diff(y.download(), scaled(xs, 2)) == 0);
    CHECK(max_rel_diff(z.download(), scaled(xs, 2)) == 0);
    CHECK(max_rel_diff(w.download(), scaled(xs, 1, 3)) <= 1e-15);
    CHECK(max_rel_diff(v.download(), scaled(xs, 7)) == 0);
    // a replay runs again
    y.fill(-1.0), z.fill(-1.0);
    rec->replay();
    CHECK(max_rel_diff(z.download(), scaled(xs, 2)) == 0);

    // the same launches with other values: the recording is updated where it is
    const Backend::Recording* first = rec.get();
    be.begin_recording();
    axpby(be, 5, 0, x, y);
    be.copy(y.buffer(), z.buffer(), n * sizeof(double));
    be.fill(w.buffer(), Precision::Double, -2.0, n);
    axpby(be, 1, 1, x, w);
    be.end_recording(rec);
    CHECK(rec.get() == first);
    rec->replay();
    CHECK(max_rel_diff(z.download(), scaled(xs, 5)) == 0);
    CHECK(max_rel_diff(w.download(), scaled(xs, 1, -2)) <= 1e-15);

    // a wait or a transfer while recording is refused; abort ends the recording
    std::vector<double> host(n);
    be.begin_recording();
    CHECK_THROWS_AS(be.download(y.buffer(), host.data(), n * sizeof(double)), BackendError);
    be.abort_recording();
    be.begin_recording();
    CHECK_THROWS_AS(be.upload(y.buffer(), xs.data(), n * sizeof(double)), BackendError);
    be.abort_recording();
    be.begin_recording();
    CHECK_THROWS_AS(be.sync(), BackendError);
    be.abort_recording();
    // and the backend goes on as before
    axpby(be, 3, 0, x, y);
    CHECK(max_rel_diff(y.download(), scaled(xs, 3)) == 0);
    rec->replay();
    CHECK(max_rel_diff(y.download(), scaled(xs, 5)) == 0);
  });
}

}  // TEST_SUITE
