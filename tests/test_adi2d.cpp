// The adi2d family kernel by kernel: each one on every backend against the serial double reference,
// from the same random physical state, on a grid larger than the omp threshold (97 x 101 nodes:
// the omp loops really run in parallel, and neither side is a power of two or a multiple of a
// block). Outputs are poisoned first. The whole model over runs is tests/test_adi2d_model.cpp.
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "core/io/cases/cases.hpp"
#include "core/io/case_file.hpp"
#include "core/kernels/adi2d.hpp"
#include "core/kernels/control.hpp"
#include "core/models/adi2d.hpp"
#include "core/physics/adi2d.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

constexpr std::size_t kNx = 97, kNy = 101, kNodes = kNx * kNy;

// A random but physical state in double: masses and pressures scattered around the default case's
// initial state, wells at random nodes, every physical term on (capillarity, diffusion, K3(p)).
struct NodeState {
  Adi2DGeom g{kNx, kNy, 1.0 / 96};
  std::vector<double> prm;
  std::map<std::string, std::vector<double>> a;  // named node arrays
  double p_bh = 0.9, dt = 2e-4;
};

NodeState random_state() {
  auto cf = io::CaseFile::parse("model = \"adi2d\"\n", "test");
  cf.set("fluid.diffusion=0.001");
  cf.set("fluid.k3_beta=2.0");
  (void)cf.get_string("model", "");
  auto cfg = read_adi2d_config(cf, reference());
  NodeState s;
  s.prm.assign(cfg.prm.begin(), cfg.prm.end());
  const double h = s.g.h, poro = s.prm[ADI_PORO];
  auto noise = [&](double lo, double hi) { return random_vector<double>(kNodes, lo, hi); };
  // component masses of the default saturations and compositions, each node its own mix; gas
  // saturations of 0.05 and more: the flash's share of component 3 in the gas, (u3 - x o) / m_g,
  // cancels as the gas vanishes (0.8% in float at s_g = 1e-3), which a float comparison at a
  // fixed tolerance cannot follow
  auto sw = noise(0.1, 0.7), sg = noise(0.05, 0.15), co3 = noise(0.1, 0.5), p = noise(0.9, 1.1);
  for (const char* m : {"m1", "m2", "m3", "m4"}) s.a[m].resize(kNodes);
  for (std::size_t k = 0; k < kNodes; ++k) {
    const std::size_t i = k % kNx, j = k / kNx;
    const double area = h * h * ((i == 0 || i == kNx - 1) ? 0.5 : 1.0) * ((j == 0 || j == kNy - 1) ? 0.5 : 1.0);
    const double so = 1 - sw[k] - sg[k], v = poro * area;
    s.a["m1"][k] = s.prm[ADI_RHO_W] * sw[k] * v;
    s.a["m2"][k] = s.prm[ADI_RHO_G] * sg[k] * 0.7 * v;
    s.a["m3"][k] = (s.prm[ADI_RHO_O] * so * co3[k] + s.prm[ADI_RHO_G] * sg[k] * 0.3) * v;
    s.a["m4"][k] = s.prm[ADI_RHO_O] * so * (1 - co3[k]) * v;
  }
  s.a["p"] = p;
  // wells at a few random nodes
  s.a["inj"].assign(kNodes, 0.0);
  s.a["prod"].assign(kNodes, 0.0);
  auto where = random_vector<double>(40, 0, double(kNodes) - 1);
  for (int w = 0; w < 40; ++w) s.a[w < 20 ? "inj" : "prod"][static_cast<std::size_t>(where[w])] = w < 20 ? 0.01 : 5.0;
  return s;
}

// Node fields of one backend in T, made from double values.
template <class T>
struct Fields {
  Backend& be;
  std::map<std::string, Field<T>> f;
  explicit Fields(Backend& b) : be(b) {}
  Field<T>& in(const std::string& name, const std::vector<double>& v) {
    return f.insert_or_assign(name, make_field(be, convert<T>(v))).first->second;
  }
  Field<T>& out(const std::string& name, std::size_t n = kNodes) {
    Field<T> x(be, n);
    x.fill(T(kNaN));  // poison: every value must be written
    return f.insert_or_assign(name, std::move(x)).first->second;
  }
  Buffer* b(const std::string& name) { return &f.at(name).buffer(); }
  std::vector<double> get(const std::string& name) { return convert<double>(f.at(name).download()); }
};

// The arrays each kernel reads, filled from the reference state.
template <class T>
void load_state(Fields<T>& x, const NodeState& s, const std::map<std::string, std::vector<double>>& flashed) {
  x.in("prm", s.prm);
  for (const auto& [name, v] : s.a) x.in(name, v);
  for (const auto& [name, v] : flashed) x.in(name, v);
}

template <class T>
Adi2DPhaseState phase(Fields<T>& x) {
  return {x.b("p"), x.b("sw"), x.b("so"), x.b("sg"), x.b("co3"), x.b("cg3"), x.b("props")};
}

// Runs every kernel on `be` in T from the state (and from the reference's flash outputs for the
// kernels after the flash) and returns every output by name.
template <class T>
std::map<std::string, std::vector<double>> run_kernels(Backend& be, const NodeState& s,
                                                       const std::map<std::string, std::vector<double>>& flashed) {
  std::map<std::string, std::vector<double>> out;
  const Precision prec = precision_of<T>();
  auto k = be.adi2d();
  {  // flash
    Fields<T> x(be);
    load_state(x, s, {});
    const char* outs[] = {"sw", "so", "sg", "co3", "cg3", "vol"};
    for (const char* o : outs) x.out(o);
    x.out("props", kAdi2DProps * kNodes);
    k.flash({prec, s.g, x.b("prm"), {x.b("m1"), x.b("m2"), x.b("m3"), x.b("m4")}, x.b("p"), x.b("sw"), x.b("so"),
             x.b("sg"), x.b("co3"), x.b("cg3"), x.b("vol"), x.b("props")});
    for (const char* o : outs) out[std::string("flash ") + o] = x.get(o);
    out["flash props"] = x.get("props");
  }
  if (flashed.empty()) return out;  // the reference's first pass: only the flash
  Fields<T> x(be);
  load_state(x, s, flashed);
  Adi2DWells wells{x.b("inj"), x.b("prod"), s.p_bh};
  {  // coefficients
    const char* outs[] = {"aw", "ae", "as", "an", "d0", "rhs"};
    for (const char* o : outs) x.out(o);
    k.coefficients({prec, s.g, x.b("prm"), s.dt, phase(x), x.b("vol"), {x.b("m1"), x.b("m2"), x.b("m3"), x.b("m4")},
                    wells, x.b("aw"), x.b("ae"), x.b("as"), x.b("an"), x.b("d0"), x.b("rhs")});
    for (const char* o : outs) out[std::string("coefficients ") + o] = x.get(o);
  }
  // sweeps, with ADI's residual check into a control block
  auto ctrl = be.alloc(kControlBytes);
  for (bool xs : {true, false}) {
    const std::string tag = xs ? "sweep x " : "sweep y ";
    const char* outs[] = {"a", "b", "c", "d"};
    for (const char* o : outs) x.out(o);
    be.control().reset(*ctrl);
    Adi2DSweepArgs sa{prec, s.g, xs, 0.37, x.b("aw"), x.b("ae"), x.b("as"), x.b("an"), x.b("d0"), x.b("rhs"), x.b("p"),
                      x.b("a"), x.b("b"), x.b("c"), x.b("d"), {}};
    sa.ctl = check_slots(*ctrl, 4);  // slot 1, clearing slot 2
    k.sweep(sa);
    for (const char* o : outs) out[tag + o] = x.get(o);
    unsigned long long w[PF_CV_WORDS];
    be.download(*ctrl, w, sizeof w);
    out[tag + "check"] = {prec == Precision::Float ? double(phys::pf_from_word<float>(w[PF_CV_SLOT0 + 1]))
                                                    : phys::pf_from_word<double>(w[PF_CV_SLOT0 + 1])};
  }
  {  // total velocity
    x.out("ux");
    x.out("uy");
    k.total_velocity({prec, s.g, x.b("prm"), phase(x), x.b("ux"), x.b("uy")});
    out["velocity ux"] = x.get("ux");
    out["velocity uy"] = x.get("uy");
  }
  {  // rate, from the reference's velocities
    x.in("ux", flashed.at("ux"));
    x.in("uy", flashed.at("uy"));
    x.out("rate");
    k.rate({prec, s.g, x.b("prm"), phase(x), x.b("ux"), x.b("uy"), x.b("vol"), wells, x.b("rate")});
    out["rate"] = x.get("rate");
  }
  {  // transport
    Adi2DTransportArgs ta;
    ta.prec = prec;
    ta.g = s.g;
    ta.prm = x.b("prm");
    ta.dt = s.dt;
    ta.st = phase(x);
    ta.ux = x.b("ux");
    ta.uy = x.b("uy");
    ta.wells = wells;
    for (int c = 0; c < 4; ++c) {
      const std::string n = std::to_string(c + 1);
      x.out("o" + n);
      x.in("acc" + n, std::vector<double>(kNodes, 0.0));
      ta.mass_in[c] = x.b("m" + n);
      ta.mass_out[c] = x.b("o" + n);
      ta.acc[c] = x.b("acc" + n);
    }
    k.transport(ta);
    for (const char* c : {"1", "2", "3", "4"}) {
      out[std::string("transport mass ") + c] = x.get(std::string("o") + c);
      out[std::string("transport acc ") + c] = x.get(std::string("acc") + c);
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("adi2d: every kernel against the serial double reference at 97 x 101 nodes", T, float, double) {
  // the reference runs on the inputs as T holds them: a float run then differs from it by the
  // kernels' rounding only, not by an upwind or phase choice that the inputs' rounding flipped
  NodeState s = random_state();
  auto as_t = [](std::vector<double>& v) {
    for (double& x : v) x = double(static_cast<T>(x));
  };
  as_t(s.prm);
  for (auto& [name, v] : s.a) as_t(v);
  // the reference: the flash, then every other kernel from its outputs (and its velocities)
  auto first = run_kernels<double>(reference(), s, {});
  std::map<std::string, std::vector<double>> flashed;
  for (const char* o : {"sw", "so", "sg", "co3", "cg3", "vol", "props"}) flashed[o] = first.at(std::string("flash ") + o);
  {
    Fields<double> x(reference());
    load_state(x, s, flashed);
    x.out("ux");
    x.out("uy");
    reference().adi2d().total_velocity({Precision::Double, s.g, x.b("prm"), phase(x), x.b("ux"), x.b("uy")});
    flashed["ux"] = x.get("ux");
    flashed["uy"] = x.get("uy");
  }
  for (auto& [name, v] : flashed) as_t(v);
  const auto ref = run_kernels<double>(reference(), s, flashed);
  // the check is the residual the sweep wrote
  for (const char* tag : {"sweep x ", "sweep y "}) {
    double m = 0;
    for (double v : ref.at(std::string(tag) + "d")) m = std::max(m, std::fabs(v));
    REQUIRE(m > 0);
    REQUIRE(ref.at(std::string(tag) + "check")[0] == m);
  }
  for_each_backend([&](Backend& be) {
    const auto got = run_kernels<T>(be, s, flashed);
    REQUIRE(got.size() == ref.size());
    for (const auto& kv : ref) {  // no structured binding: CAPTURE's lambda cannot take one (clang 14)
      const std::string& name = kv.first;
      const std::vector<double>& want = kv.second;
      CAPTURE(name);
      // float: pow, exp and the flash's iterations round at a few 1e-7 of each node's scale (the
      // flash's c_g3 up to 3.6e-5: measured over 7 runs of random states on serial, omp and PoCL,
      // no node beyond 5e-5). Where two phase potentials of a face nearly tie, float may upwind the
      // other way than double (a different, equally right mobility) and move that face's two
      // nodes by more: at most one such face, 2 nodes, none beyond 50%. (It allowed 1/500 of the
      // nodes, 19, before: a kernel wrong at a few nodes passed.)
      if (sizeof(T) == 8) {
        CHECK(max_rel_diff(got.at(name), want) <= 1e-11);
      } else {
        std::vector<double> g = got.at(name), want_here = want;
        if (name == "flash props") {
          // Parker's capillary slope jumps from 0 to its value where the effective saturation
          // crosses ADI_PC_SMIN: a node within float's rounding of that kink may land on either
          // side (seed 950273803: S_w 0.108000017 in double, 0.107999995 in float, slope 4.3 or 0).
          // Such nodes are left out of the props, every other node is held as below.
          const auto& sw = ref.at("flash sw");
          const auto& sg = ref.at("flash sg");
          const double denom = 1 - s.prm[ADI_SWR] - s.prm[ADI_SOR] - s.prm[ADI_SGR], smin = s.prm[ADI_PC_SMIN];
          std::vector<double> gk, wk;
          long kinks = 0;
          for (std::size_t k = 0; k < kNodes; ++k) {
            const double we = (sw[k] - s.prm[ADI_SWR]) / denom, ge = (sg[k] - s.prm[ADI_SGR]) / denom;
            const bool kink = std::fabs(we - smin) < 1e-6 || std::fabs(1 - ge - smin) < 1e-6;
            kinks += kink;
            for (std::size_t q = 0; q < ADI_NPROPS; ++q)
              if (!kink) gk.push_back(g[q * kNodes + k]), wk.push_back(want[q * kNodes + k]);
          }
          CHECK(kinks <= 2);  // a handful at most: else the state generator should avoid the kink
          g = gk, want_here = wk;
        }
        double scale = 0;
        for (double v : want_here) scale = std::max(scale, std::fabs(v));
        std::size_t over = 0;
        for (std::size_t q = 0; q < want_here.size(); ++q)
          if (!(std::fabs(g[q] - want_here[q]) <= 5e-5 * scale)) ++over;  // max_rel_diff's measure, node by node
        CHECK(over <= 2);
        CHECK(max_rel_diff(g, want_here) <= 0.5);
      }
    }
  });
}

TEST_CASE("adi2d: a sweep under a control that says stop writes nothing") {
  for_each_backend([](Backend& be) {
    const Adi2DGeom g{kNx, kNy, 0.01};
    std::vector<Field<double>> f;
    for (int i = 0; i < 11; ++i) f.push_back(make_field(be, random_vector<double>(kNodes, 0.5, 1.0)));
    auto ctrl = be.alloc(kControlBytes);
    be.control().reset(*ctrl);
    const unsigned long long stop = PF_CV_CONVERGED;
    be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof stop);
    for (int i = 7; i < 11; ++i) f[i].fill(-2.0);
    Adi2DSweepArgs sa{Precision::Double, g, true, 0.5, &f[0].buffer(), &f[1].buffer(), &f[2].buffer(), &f[3].buffer(),
                      &f[4].buffer(), &f[5].buffer(), &f[6].buffer(), &f[7].buffer(), &f[8].buffer(), &f[9].buffer(),
                      &f[10].buffer(), {}};
    for (int check : {0, 1}) {
      sa.ctl = check ? check_slots(*ctrl, 0) : IterationControl{ctrl.get()};
      be.adi2d().sweep(sa);
      for (int i = 7; i < 11; ++i) CHECK(f[i].download() == std::vector<double>(kNodes, -2.0));
    }
  });
}

TEST_CASE("adi2d: a checking sweep keeps its iterate in the candidate buffer that does not hold the best") {
  for_each_backend([](Backend& be) {
    const Adi2DGeom g{kNx, kNy, 0.01};
    std::vector<Field<double>> f;
    for (int i = 0; i < 11; ++i) f.push_back(make_field(be, random_vector<double>(kNodes, 0.5, 1.0)));
    Field<double> cand[2] = {Field<double>(be, kNodes), Field<double>(be, kNodes)};
    auto ctrl = be.alloc(kControlBytes);
    const auto p = f[6].download();
    for (unsigned long long best : {0ull, 1ull}) {
      be.control().reset(*ctrl);
      be.upload(*ctrl, &best, sizeof best, PF_CV_BEST_BUF * sizeof best);
      cand[0].fill(-1.0);
      cand[1].fill(-1.0);
      Adi2DSweepArgs sa{Precision::Double, g, true, 0.5, &f[0].buffer(), &f[1].buffer(), &f[2].buffer(), &f[3].buffer(),
                        &f[4].buffer(), &f[5].buffer(), &f[6].buffer(), &f[7].buffer(), &f[8].buffer(), &f[9].buffer(),
                        &f[10].buffer(), check_slots(*ctrl, 1)};
      sa.candidates[0] = &cand[0].buffer();
      sa.candidates[1] = &cand[1].buffer();
      be.adi2d().sweep(sa);
      CAPTURE(best);
      CHECK(cand[1 - best].download() == p);
      CHECK(cand[best].download() == std::vector<double>(kNodes, -1.0));
    }
  });
}

}  // TEST_SUITE
