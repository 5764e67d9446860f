#pragma once
// Host versions of the tridiagonal algorithms, one system at a time, for any n:
//   a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i,  i = 0..n-1  (a_0 and c_{n-1} are ignored).
// Element i of the system lives at base[i * stride] (stride 1: contiguous; stride = batch:
// interleaved). The serial and omp backends run these; the GPU kernels follow the same
// arithmetic, so every algorithm on every backend is checked against Thomas in double.
//
// No pivoting: the systems of the models are diagonally dominant (M-matrices).
#include <cstddef>
#include <vector>

namespace poreflow::tridiag_host {

// A strided view of one system's four coefficient arrays, copied into contiguous scratch.
template <class T>
struct System {
  std::vector<T> a, b, c, d;
  void load(std::size_t n, const T* a0, const T* b0, const T* c0, const T* d0, std::size_t stride) {
    a.resize(n);
    b.resize(n);
    c.resize(n);
    d.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = i == 0 ? T(0) : a0[i * stride];  // couplings outside the system are zero
      b[i] = b0[i * stride];
      c[i] = i + 1 == n ? T(0) : c0[i * stride];
      d[i] = d0[i * stride];
    }
  }
};

// Thomas (the papers' sequential algorithm): forward elimination, back substitution.
// cp is scratch of n values; x may be strided.
template <class T>
void thomas(std::size_t n, const T* a, const T* b, const T* c, const T* d, T* x, std::size_t stride, T* cp) {
  if (n == 0) return;
  T bet = b[0];
  cp[0] = n > 1 ? c[0] / bet : T(0);
  x[0] = d[0] / bet;
  for (std::size_t i = 1; i < n; ++i) {
    const T ai = a[i * stride];
    bet = b[i * stride] - ai * cp[i - 1];
    cp[i] = i + 1 < n ? c[i * stride] / bet : T(0);
    x[i * stride] = (d[i * stride] - ai * x[(i - 1) * stride]) / bet;
  }
  for (std::size_t i = n - 1; i-- > 0;) x[i * stride] -= cp[i] * x[(i + 1) * stride];
}

// One reduction of equation i against its neighbours at distance s (cyclic reduction's step,
// shared by CR and PCR). Neighbours outside [0, n) are the identity equation x = 0.
template <class T>
struct Eq {
  T a, b, c, d;
};
template <class T>
inline Eq<T> reduce_eq(const Eq<T>& e, const Eq<T>* l, const Eq<T>* r) {
  T k1 = l ? e.a / l->b : T(0);
  T k2 = r ? e.c / r->b : T(0);
  Eq<T> o;
  o.a = l ? -l->a * k1 : T(0);
  o.c = r ? -r->c * k2 : T(0);
  o.b = e.b - (l ? l->c * k1 : T(0)) - (r ? r->a * k2 : T(0));
  o.d = e.d - (l ? l->d * k1 : T(0)) - (r ? r->d * k2 : T(0));
  return o;
}

template <class T>
std::vector<Eq<T>> to_eqs(const System<T>& s) {
  std::vector<Eq<T>> e(s.b.size());
  for (std::size_t i = 0; i < e.size(); ++i) e[i] = {s.a[i], s.b[i], s.c[i], s.d[i]};
  return e;
}

// PCR on the equations with indices first + k * step (k = 0..m-1): every equation is reduced at
// every level until all are decoupled; returns their solutions in x (by k).
template <class T>
void pcr_on(std::vector<Eq<T>>& e, std::size_t first, std::size_t step, std::size_t m, std::vector<T>& x) {
  std::vector<Eq<T>> cur(m), nxt(m);
  for (std::size_t k = 0; k < m; ++k) cur[k] = e[first + k * step];
  for (std::size_t s = 1; s < m; s *= 2) {
    for (std::size_t k = 0; k < m; ++k)
      nxt[k] = reduce_eq(cur[k], k >= s ? &cur[k - s] : nullptr, k + s < m ? &cur[k + s] : nullptr);
    cur.swap(nxt);
  }
  x.resize(m);
  for (std::size_t k = 0; k < m; ++k) x[k] = cur[k].d / cur[k].b;
}

// Cyclic reduction down to at most `stop` active equations (1: plain CR), those solved by PCR
// (the Zhang-Cohen-Owens hybrid when stop > 1), then back substitution.
template <class T>
void cr(const System<T>& sys, T* x, std::size_t stride, std::size_t stop = 1) {
  const std::size_t n = sys.b.size();
  auto e = to_eqs(sys);
  // level L: active equations are i with (i + 1) % 2^L == 0
  std::size_t s = 1;
  auto active = [&](std::size_t span) { return n / span; };  // count of i < n with (i + 1) % span == 0
  while (active(2 * s) >= 1 && active(s) > stop) {
    for (std::size_t i = 2 * s - 1; i < n; i += 2 * s)
      e[i] = reduce_eq(e[i], &e[i - s], i + s < n ? &e[i + s] : nullptr);
    s *= 2;
  }
  std::vector<T> xs(n, T(0));
  std::vector<T> top;
  const std::size_t m = active(s);
  pcr_on(e, s - 1, s, m, top);
  for (std::size_t k = 0; k < m; ++k) xs[s - 1 + k * s] = top[k];
  // back substitution: the equations eliminated at level L hold their level L-1 coefficients
  for (; s > 1; s /= 2) {
    const std::size_t h = s / 2;
    for (std::size_t i = h - 1; i < n; i += s) {
      T left = i >= h ? xs[i - h] : T(0);
      T right = i + h < n ? xs[i + h] : T(0);
      xs[i] = (e[i].d - e[i].a * left - e[i].c * right) / e[i].b;
    }
  }
  for (std::size_t i = 0; i < n; ++i) x[i * stride] = xs[i];
}

// PCR for `levels` steps (2^levels interleaved subsystems), then Thomas on each subsystem.
template <class T>
void pcr_thomas(const System<T>& sys, T* x, std::size_t stride, int levels) {
  const std::size_t n = sys.b.size();
  auto e = to_eqs(sys);
  std::vector<Eq<T>> nxt(n);
  std::size_t s = 1;
  for (int l = 0; l < levels && s < n; ++l, s *= 2) {
    for (std::size_t i = 0; i < n; ++i)
      nxt[i] = reduce_eq(e[i], i >= s ? &e[i - s] : nullptr, i + s < n ? &e[i + s] : nullptr);
    e.swap(nxt);
  }
  // subsystem r: indices r, r + s, r + 2s, ... coupled only among themselves
  std::vector<T> a, b, c, d, xs, cp;
  for (std::size_t r = 0; r < s && r < n; ++r) {
    const std::size_t m = (n - r + s - 1) / s;
    a.resize(m);
    b.resize(m);
    c.resize(m);
    d.resize(m);
    xs.resize(m);
    cp.resize(m);
    for (std::size_t k = 0; k < m; ++k) {
      const auto& q = e[r + k * s];
      a[k] = q.a;
      b[k] = q.b;
      c[k] = q.c;
      d[k] = q.d;
    }
    thomas<T>(m, a.data(), b.data(), c.data(), d.data(), xs.data(), 1, cp.data());
    for (std::size_t k = 0; k < m; ++k) x[(r + k * s) * stride] = xs[k];
  }
}

}  // namespace poreflow::tridiag_host
