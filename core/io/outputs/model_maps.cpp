// Each model's colour maps (maps.hpp); their colour ranges are the observer's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/base/error.hpp"
#include "core/io/outputs/maps.hpp"
#include "core/models/fluids3d.hpp"
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
    // the nodes at 0, h, ..., (n - 1) h each drawn as the square of side h around it
    auto map = [&](const char* key, std::size_t field, const std::string& title, const char* bar) {
      MapFigure fig{key, std::string("_") + key, {}};
      auto& p = fig.plot;
      p.nx = g.points[0];
      p.ny = g.points[1];
      p.values = f[field].values;
      p.title = title + t;
      p.x0 = g.origin[0] - g.spacing[0] / 2;
      p.x1 = p.x0 + g.spacing[0] * p.nx;
      p.y0 = g.origin[1] - g.spacing[1] / 2;
      p.y1 = p.y0 + g.spacing[1] * p.ny;
      p.xlabel = "x (nondimensional)";
      p.ylabel = "y (nondimensional)";
      p.bar_label = bar;
      return fig;
    };
    std::vector<MapFigure> out;
    out.push_back(map("sw", 1, "water saturation", "S_w"));
    out.push_back(map("so", 2, "oil saturation", "S_o"));
    out.push_back(map("sg", 3, "gas saturation", "S_g"));
    out.push_back(map("p", 0, "pressure", "p (nondimensional)"));
    return out;
  };
  return s;
}

MapSet fluids3d_maps() {
  MapSet s;
  s.model = "fluids3d";
  s.keys = {"density"};
  s.make = [](const Model& m) {
    const auto* f = dynamic_cast<const Fluids3DPlanes*>(&m);
    if (!f) throw Error("a fluids3d output was given a " + m.name() + " model");
    const long n = m.grid().points[0], kc = n / 2, jc = n / 2;
    // the two planes alone (decomposed: gathered on process 0)
    const auto xy_plane = f->density_plane(2, kc), xz_plane = f->density_plane(1, jc);
    for (const auto* q : {&xy_plane, &xz_plane})
      if (q->size() != static_cast<std::size_t>(n * n))
        throw Error("the density maps: a plane of " + std::to_string(q->size()) + " values, not n^2 (a decomposed run " +
                    "gathers them in before_output(true, Gather::Maps))");
    MapFigure xy{"density", "", {}}, xz{"density", "_xz", {}};
    for (auto* fig : {&xy, &xz}) {
      auto& p = fig->plot;
      p.nx = p.ny = static_cast<int>(n);
      p.values.resize(static_cast<std::size_t>(n * n));
      p.x0 = p.y0 = -0.5;  // cell i (0-based, as the case's sources name them) around i
      p.x1 = p.y1 = static_cast<double>(n) - 0.5;
      p.whole_ticks = true;
      p.xlabel = "x (cells)";
      p.bar_label = "density";
    }
    xy.plot.ylabel = "y (cells)";
    xz.plot.ylabel = "z (cells)";
    xy.plot.values = xy_plane;
    xz.plot.values = xz_plane;  // row j of the map is layer k = j
    char title[160];
    std::snprintf(title, sizeof title, "density, slice z = %ld (the centre), step %ld, t = %.3g", kc, m.steps(), m.time());
    xy.plot.title = title;
    std::snprintf(title, sizeof title, "density, slice y = %ld (the centre), step %ld, t = %.3g", jc, m.steps(), m.time());
    xz.plot.title = title;
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
    const auto sat = r->map_layer_saturation();  // the layer alone (decomposed: gathered on process 0)
    const int k = r->config().map_layer;
    if (sat.size() != static_cast<std::size_t>(g.nx) * static_cast<std::size_t>(g.ny))
      throw Error("the S_w map: layer " + std::to_string(k + 1) + " has " + std::to_string(sat.size()) +
                  " values, not nx ny (a decomposed run gathers it in before_output(true, Gather::Maps))");
    MapFigure fig{"sw", "_sw_layer" + std::to_string(k + 1), {}};
    auto& p = fig.plot;
    p.nx = g.nx;
    p.ny = g.ny;
    p.x0 = p.y0 = 0.5;  // cell I (1-based, as in the case and the deck) around I
    p.x1 = g.nx + 0.5;
    p.y1 = g.ny + 0.5;
    p.whole_ticks = true;
    p.xlabel = "I (cells)";
    p.ylabel = "J (cells)";
    p.bar_label = "S_w";
    // each well at its first completion's column: filled where it is completed in this layer
    for (const auto& w : r->config().input.wells) {
      if (w.completions.empty()) continue;
      MapMarker mk{static_cast<double>(w.completions[0].i + 1), static_cast<double>(w.completions[0].j + 1), w.name, false};
      for (const auto& c : w.completions) mk.filled = mk.filled || c.k == k;
      p.markers.push_back(mk);
    }
    fig.plot.values.resize(static_cast<std::size_t>(g.nx) * g.ny);
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) {
        const std::size_t c = static_cast<std::size_t>(j) * g.nx + i;
        fig.plot.values[c] = r->geometry().pv0[r->geometry().at(i, j, k)] > 0 ? sat[c] : NAN;
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
