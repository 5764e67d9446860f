// Each model's colour maps (maps.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/base/error.hpp"
#include "core/io/outputs/maps.hpp"
#include "core/models/impes3d.hpp"

namespace poreflow::io {

namespace {

std::string at_time(const Model& m) {
  std::ostringstream t;
  t.precision(4);
  t << " at t = " << m.time();
  return t.str();
}

}  // namespace

MapSet adi2d_maps() {
  MapSet s;
  s.model = "adi2d";
  s.keys = {"p", "sw", "so", "sg"};
  s.make = [](const Model& m) {
    const auto f = m.fields();  // pressure, sw, so, sg, ...
    const auto g = m.grid();
    const std::string t = at_time(m);
    auto map = [&](const char* key, std::size_t field, const std::string& title) {
      MapFigure fig{key, std::string("_") + key, {}};
      fig.plot.nx = g.points[0];
      fig.plot.ny = g.points[1];
      fig.plot.values = f[field].values;
      fig.plot.title = title + t;
      return fig;
    };
    std::vector<MapFigure> out;
    out.push_back(map("sw", 1, "water saturation"));
    out.push_back(map("so", 2, "oil saturation"));
    out.push_back(map("sg", 3, "gas saturation"));
    out.push_back(map("p", 0, "pressure"));
    const auto& p = out.back().plot.values;
    out.back().plot.vmin = *std::min_element(p.begin(), p.end());
    out.back().plot.vmax = *std::max_element(p.begin(), p.end());
    return out;
  };
  return s;
}

MapSet fluids3d_maps() {
  MapSet s;
  s.model = "fluids3d";
  s.keys = {"density"};
  s.make = [](const Model& m) {
    const auto dens = m.fields()[0].values;
    const long n = m.grid().points[0], kc = n / 2, jc = n / 2;
    MapFigure xy{"density", "", {}}, xz{"density", "_xz", {}};
    for (auto* f : {&xy, &xz}) {
      f->plot.nx = f->plot.ny = static_cast<int>(n);
      f->plot.values.resize(static_cast<std::size_t>(n * n));
    }
    double hi = 0;
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) {
        xy.plot.values[j * n + i] = dens[(kc * n + j) * n + i];
        xz.plot.values[j * n + i] = dens[(j * n + jc) * n + i];  // row j of the map is layer k = j
        hi = std::max({hi, xy.plot.values[j * n + i], xz.plot.values[j * n + i]});
      }
    char title[160];
    std::snprintf(title, sizeof title, "density, slice z = centre (x right, y up), step %ld, t = %.3g", m.steps(), m.time());
    xy.plot.title = title;
    std::snprintf(title, sizeof title, "density, slice y = centre (x right, z up), step %ld, t = %.3g", m.steps(), m.time());
    xz.plot.title = title;
    for (auto* f : {&xy, &xz}) {
      f->plot.vmin = 0;
      f->plot.vmax = hi > 0 ? hi : 1;
    }
    return std::vector<MapFigure>{xy, xz};
  };
  return s;
}

MapSet impes3d_maps() {
  MapSet s;
  s.model = "impes3d";
  s.keys = {"sw"};
  s.make = [](const Model& m) {
    const auto* r = dynamic_cast<const Reservoir*>(&m);
    if (!r) throw Error("an impes3d output was given a " + m.name() + " model");
    const auto& g = r->config().input.grid;
    const auto sat = r->saturation();
    const int k = r->config().map_layer;
    MapFigure fig{"sw", "_sw_layer" + std::to_string(k + 1), {}};
    fig.plot.nx = g.nx;
    fig.plot.ny = g.ny;
    fig.plot.values.resize(static_cast<std::size_t>(g.nx) * g.ny);
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) {
        const std::size_t c = g.index(i, j, k);
        fig.plot.values[static_cast<std::size_t>(j) * g.nx + i] =
            r->geometry().pv0[r->geometry().at(i, j, k)] > 0 ? sat[c] : NAN;
      }
    std::ostringstream t;
    t.precision(4);
    t << "water saturation, layer " << k + 1 << ", t = " << r->time() << " days";
    fig.plot.title = t.str();
    return std::vector<MapFigure>{fig};
  };
  return s;
}

}  // namespace poreflow::io
