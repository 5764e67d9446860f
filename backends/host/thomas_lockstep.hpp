#pragma once
// Thomas on W contiguous systems at once (the omp and serial backends' `thomas`): the W systems
// are eliminated in lockstep, row by row, so W independent division chains overlap (one system
// alone waits on each division's latency: 0.25x of copy bandwidth on 16 cores). The arithmetic of
// every system is Thomas's, in Thomas's order. Two ways through memory:
//  - direct: reads a, b, c, d and writes x in place; best while the W systems stay in cache
//    between the forward and the backward pass;
//  - blocked: for long systems. The W systems lie n apart, and a, b, c, d, x are separate
//    allocations: for n near a multiple of the page all 5 W streams fall into the same cache sets
//    and evict each other (4097^2 floats ran at a third of the speed of the direct loop on 2049^2).
//    Rows are copied in R at a time per system (each cache line used whole as soon as it arrives),
//    c' and d' kept with the W systems side by side, and x written back R rows at a time.
#include <algorithm>
#include <cstddef>

namespace poreflow::tridiag_host {

template <class T, std::size_t W>
struct Lockstep {
  std::size_t w = 0;  // systems in this group, <= W
  const T *a[W], *b[W], *c[W], *d[W];
  T* x[W];
};

// cp: n * W scratch
template <class T, std::size_t W>
void thomas_lockstep_direct(std::size_t n, const Lockstep<T, W>& g, T* cp) {
  // local copies of the pointers: the stores to x then cannot be taken to change them
  const std::size_t w = g.w;
  const T *a[W], *b[W], *c[W], *d[W];
  T* x[W];
  for (std::size_t k = 0; k < w; ++k) a[k] = g.a[k], b[k] = g.b[k], c[k] = g.c[k], d[k] = g.d[k], x[k] = g.x[k];
  for (std::size_t k = 0; k < w; ++k) {
    cp[k] = c[k][0] / b[k][0];
    x[k][0] = d[k][0] / b[k][0];
  }
  for (std::size_t i = 1; i < n; ++i) {
    const bool last = i + 1 == n;
    for (std::size_t k = 0; k < w; ++k) {
      const T ai = a[k][i];
      const T bt = b[k][i] - ai * cp[(i - 1) * W + k];
      cp[i * W + k] = last ? T(0) : c[k][i] / bt;
      x[k][i] = (d[k][i] - ai * x[k][i - 1]) / bt;
    }
  }
  for (std::size_t i = n - 1; i-- > 0;)
    for (std::size_t k = 0; k < w; ++k) x[k][i] -= cp[i * W + k] * x[k][i + 1];
}

// cp, dp: n * W scratch each
template <class T, std::size_t W, std::size_t R = 16>
void thomas_lockstep_blocked(std::size_t n, const Lockstep<T, W>& g, T* cp, T* dp) {
  T in[4][R][W], out[R][W];
  const T* const* src[4] = {g.a, g.b, g.c, g.d};
  for (std::size_t i0 = 0; i0 < n; i0 += R) {
    const std::size_t rows = std::min(R, n - i0);
    for (int q = 0; q < 4; ++q)
      for (std::size_t k = 0; k < g.w; ++k)
        for (std::size_t e = 0; e < rows; ++e) in[q][e][k] = src[q][k][i0 + e];
    for (std::size_t e = 0; e < rows; ++e) {
      const std::size_t i = i0 + e;
      if (i == 0) {
        for (std::size_t k = 0; k < g.w; ++k) {
          cp[k] = in[2][0][k] / in[1][0][k];
          dp[k] = in[3][0][k] / in[1][0][k];
        }
        continue;
      }
      const bool last = i + 1 == n;
      for (std::size_t k = 0; k < g.w; ++k) {
        const T ai = in[0][e][k];
        const T bt = in[1][e][k] - ai * cp[(i - 1) * W + k];
        cp[i * W + k] = last ? T(0) : in[2][e][k] / bt;
        dp[i * W + k] = (in[3][e][k] - ai * dp[(i - 1) * W + k]) / bt;
      }
    }
  }
  // back substitution from the last row, R rows at a time
  T next[W] = {};
  for (std::size_t end = n; end > 0;) {
    const std::size_t i0 = end > R ? end - R : 0, rows = end - i0;
    for (std::size_t e = rows; e-- > 0;) {
      const std::size_t i = i0 + e;
      for (std::size_t k = 0; k < g.w; ++k) {
        const T xi = i + 1 == n ? dp[i * W + k] : dp[i * W + k] - cp[i * W + k] * next[k];
        out[e][k] = xi;
        next[k] = xi;
      }
    }
    for (std::size_t k = 0; k < g.w; ++k)
      for (std::size_t e = 0; e < rows; ++e) g.x[k][i0 + e] = out[e][k];
    end = i0;
  }
}

}  // namespace poreflow::tridiag_host
