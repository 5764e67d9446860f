#include "tests/harness.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace poreflow::test {

std::vector<char*> take_options(int argc, char** argv, std::string& backends) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* key) { return a.substr(std::string(key).size()); };
    if (a.rfind("--pf-backend=", 0) == 0) backends = value("--pf-backend=");
    else if (a.rfind("--pf-cl-platform=", 0) == 0) env().opts.cl_platform = value("--pf-cl-platform=");
    else if (a.rfind("--pf-cl-device=", 0) == 0) env().opts.cl_device = std::stoi(value("--pf-cl-device="));
    else if (a.rfind("--pf-device=", 0) == 0) env().opts.cuda_device = std::stoi(value("--pf-device="));
    else rest.push_back(argv[i]);
  }
  return rest;
}

Env& env() {
  static Env e;
  return e;
}

namespace {
std::map<std::string, std::unique_ptr<Backend>>& cache() {
  static std::map<std::string, std::unique_ptr<Backend>> c;
  return c;
}
}  // namespace

Backend& backend(const std::string& name) {
  auto& c = cache();
  auto it = c.find(name);
  if (it == c.end()) it = c.emplace(name, make_backend(name, env().opts)).first;
  return *it->second;
}

void release_backends() { cache().clear(); }

std::vector<ReduceConfig> reduce_configs(Backend& be) {
  std::vector<ReduceConfig> out;
  for (auto v : be.reduce().variants()) {
    const bool paper = is_paper_variant(v);
    for (auto c : {Combine::Atomic, Combine::Host}) {
      if (!paper && c == Combine::Host) continue;
      for (int block : {512, 128}) {
        if (!paper && block != 512) continue;
        out.push_back({v, c, block});
      }
    }
  }
  return out;
}

Backend& reference() { return backend("serial"); }

std::mt19937_64& rng() {
  static std::mt19937_64 g(env().seed);
  return g;
}

double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b, double scale) {
  if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
  double m = 0, ref = scale;
  for (double x : b) ref = std::max(ref, std::fabs(x));
  if (ref == 0) ref = 1;
  for (std::size_t i = 0; i < a.size(); ++i) {
    double d = std::fabs(a[i] - b[i]);
    if (!(d == d) || std::isinf(d)) return std::numeric_limits<double>::infinity();
    m = std::max(m, d);
  }
  return m / ref;
}

}  // namespace poreflow::test
