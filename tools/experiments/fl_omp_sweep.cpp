// Experiment (not part of the build): what limits the omp lin_solve sweep of fluids3d
// (backends/host/fluids3d.cpp) at 0.4-0.5x of the copy rate (issue 11). One red-black iteration
// on the colour-packed layout, timed as the sweep's loop is built up piece by piece, against a
// parallel copy of the same bytes:
//   stream   the sweep's loads and store (own colour, x0, the other colour's six neighbours) as
//            one flat loop over a colour's cells, no rows
//   rows     the same, row by row (the loop nest of the real sweep, walls skipped)
//   rows+max rows, with the max |change| reduction of the real sweep
//   real     the library's sweep (HostFluids3D via the omp backend)
// g++ -O3 -fopenmp -std=c++20 -I. tools/experiments/fl_omp_sweep.cpp -o /tmp/fl_omp_sweep
//   (links nothing of poreflow: "real" is timed by `poreflow bench fluids3d --backends omp`)
#include <omp.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/physics/fluids3d.h"

namespace ph = poreflow::phys;

template <class F>
double best_seconds(F&& f, int reps) {
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// rows: the real sweep's loop nest over (k, j), the row's cells off the walls; with_max: its max |change|
// level 0: plain; 1: + max; 2: + NaN flag as the real sweep (rn || d != d); 3: + NaN from a sum
// Each level's loop is written out: with the update in a shared lambda gcc no longer vectorised
// the reductions (rows+max fell from 0.90x to 0.36x copy), which would measure something else.
static float rows(float* x, const float* x0, long n, long m, float a, float inv_c, int level) {
  const bool with_max = level >= 1;
  const long hx = (n + 1) / 2, plane = n * hx;
  float mx = 0;
  for (int c = 0; c < 2; ++c) {
#pragma omp parallel for collapse(2) schedule(static) reduction(max : mx)
    for (long k = 1; k < n - 1; ++k)
      for (long j = 1; j < n - 1; ++j) {
        const long s = ph::pf_rb_shift(c, j, k), row = (k * n + j) * hx;
        float* xr = x + c * m + row;
        const float* x0r = x0 + c * m + row;
        const float* o = x + (1 - c) * m + row;
        float rm = 0;
        if (level == 2) {
          bool rn = false;
#pragma omp simd reduction(max : rm) reduction(|| : rn)
          for (long ih = 1; ih < hx - 1; ++ih) {
            const float old = xr[ih];
            const float v = ph::fl_lin_point<float>(x0r[ih], o[ih - 1 + s], o[ih + s], o[ih - hx], o[ih + hx], o[ih - plane],
                                                    o[ih + plane], a, inv_c);
            xr[ih] = v;
            const float d = std::fabs(v - old);
            rm = d > rm ? d : rm;
            rn = rn || d != d;
          }
          if (rn) rm = NAN;
        } else if (level == 3) {
          float sum = 0;
#pragma omp simd reduction(max : rm) reduction(+ : sum)
          for (long ih = 1; ih < hx - 1; ++ih) {
            const float old = xr[ih];
            const float v = ph::fl_lin_point<float>(x0r[ih], o[ih - 1 + s], o[ih + s], o[ih - hx], o[ih + hx], o[ih - plane],
                                                    o[ih + plane], a, inv_c);
            xr[ih] = v;
            const float d = std::fabs(v - old);
            rm = d > rm ? d : rm;
            sum += d;
          }
          if (sum != sum) rm = NAN;
        } else if (with_max) {
#pragma omp simd reduction(max : rm)
          for (long ih = 1; ih < hx - 1; ++ih) {
            const float old = xr[ih];
            const float v = ph::fl_lin_point<float>(x0r[ih], o[ih - 1 + s], o[ih + s], o[ih - hx], o[ih + hx], o[ih - plane],
                                                    o[ih + plane], a, inv_c);
            xr[ih] = v;
            const float d = std::fabs(v - old);
            rm = d > rm ? d : rm;
          }
        } else {
#pragma omp simd
          for (long ih = 1; ih < hx - 1; ++ih)
            xr[ih] = ph::fl_lin_point<float>(x0r[ih], o[ih - 1 + s], o[ih + s], o[ih - hx], o[ih + hx], o[ih - plane],
                                             o[ih + plane], a, inv_c);
        }
        mx = rm > mx ? rm : mx;
      }
  }
  return mx;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::atol(argv[1]) : 192;
  // argv[2]: values of padding after each colour's half (the distance between the colours, and
  // between x and x0, then is not a multiple of the cache's set stride at power-of-two N)
  const long pad = argc > 2 ? std::atol(argv[2]) : 0;
  const long hx = (n + 1) / 2, plane = n * hx, m = plane * n + pad;
  // both colours, with a plane of slack on each side so that the flat loop may read past the ends
  std::vector<float> xs(2 * m + 2 * plane), x0s(2 * m + 2 * plane + pad);
  float* x = xs.data() + plane;
  float* x0 = x0s.data() + plane;
#pragma omp parallel for schedule(static)
  for (long q = 0; q < 2 * m + 2 * plane; ++q) xs[q] = 0.001f * float(q % 1000), x0s[q] = 1.0f;
  const float a = 0.1f, inv_c = 1.0f / (1 + 6 * a);
  const double bytes = 4.0 * double(n) * n * n * sizeof(float);  // the bench's model: 4 N^3 values an iteration

  std::vector<float> src(2 * m), dst(2 * m);
#pragma omp parallel for schedule(static)
  for (long q = 0; q < 2 * m; ++q) src[q] = 1, dst[q] = 0;
  const double tc = best_seconds(
      [&] {
#pragma omp parallel for schedule(static)
        for (long q = 0; q < 2 * m; ++q) dst[q] = src[q];
      },
      7);
  const double copy = 2.0 * 2 * m * sizeof(float) / tc / 1e9;
  std::printf("N=%ld pad %ld threads %d: copy %.1f GB/s\n", n, pad, omp_get_max_threads(), copy);
  auto report = [&](const char* name, double t) {
    std::printf("  %-10s %8.1f us %6.1f GB/s %.2fx copy\n", name, t * 1e6, bytes / t / 1e9, bytes / t / 1e9 / copy);
  };

  // stream: every cell of a colour as one flat loop (the neighbours' offsets as the real sweep's)
  report("stream", best_seconds(
                       [&] {
                         for (int c = 0; c < 2; ++c) {
                           float* own = x + c * m;
                           const float* own0 = x0 + c * m;
                           const float* o = x + (1 - c) * m;
#pragma omp parallel for simd schedule(static)
                           for (long q = 0; q < m; ++q)
                             own[q] = ph::fl_lin_point<float>(own0[q], o[q - 1], o[q], o[q - hx], o[q + hx], o[q - plane],
                                                              o[q + plane], a, inv_c);
                         }
                       },
                       7));
  report("rows", best_seconds([&] { rows(x, x0 + pad, n, m, a, inv_c, 0); }, 7));
  report("rows+max", best_seconds([&] { rows(x, x0 + pad, n, m, a, inv_c, 1); }, 7));
  report("+nan ||", best_seconds([&] { rows(x, x0 + pad, n, m, a, inv_c, 2); }, 7));
  report("+nan sum", best_seconds([&] { rows(x, x0 + pad, n, m, a, inv_c, 3); }, 7));
  return 0;
}
