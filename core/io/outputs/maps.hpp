#pragma once
// The colour maps of a run (adi2d's fields, impes3d's layer, fluids3d's slices): each model says
// which maps it has (MapSet: their keys, and the figures of a snapshot), and one observer writes
// them at every snapshot as <dir>/<snapshot stem><suffix>.png.
//
// The maps of one key share one colour range over the run: the case's output.range.<key>, else
// the range of every snapshot's values so far; at the end of the run the maps drawn with a
// narrower range are drawn again with the run's (a restarted run continues the range of the run
// before it, but redraws only its own maps).
#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/io/png_map.hpp"
#include "core/models/observer.hpp"

namespace poreflow::io {

struct MapFigure {
  std::string key;     // the map's quantity ("sw", "p", "density"); the maps of one key share a colour range
  std::string suffix;  // added to the snapshot's stem ("_sw"; "" for the stem itself)
  MapPlot plot;
};

struct MapSet {
  std::string model;              // for messages
  std::vector<std::string> keys;  // every key make() may return
  std::function<std::vector<MapFigure>(const Model&)> make;
};

// How a map is drawn: write_map_png when empty (tests record the plots instead).
using MapDraw = std::function<void(const std::filesystem::path& png, const MapPlot& plot)>;

// ranges: the case's output.range.<key>; a key the set does not have is a ConfigError naming it
std::unique_ptr<Observer> map_plots(const std::filesystem::path& dir, MapSet maps, MapDraw draw = nullptr,
                                    const std::map<std::string, std::array<double, 2>>& ranges = {});

// adi2d: p, sw, so, sg (<stem>_p.png, _sw, _so, _sg)
MapSet adi2d_maps();
// fluids3d: the density on the centre slices z (<stem>.png) and y (<stem>_xz.png)
MapSet fluids3d_maps();
// impes3d: S_w in the case's output.layer (<stem>_sw_layerK.png)
MapSet impes3d_maps();

}  // namespace poreflow::io
