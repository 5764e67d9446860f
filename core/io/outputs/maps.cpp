#include "core/io/outputs/maps.hpp"

#include "core/io/outputs/outputs.hpp"

namespace poreflow::io {

namespace {

class MapPlots final : public Observer {
 public:
  MapPlots(std::filesystem::path dir, MapSet maps, MapDraw draw)
      : dir_(std::move(dir)), maps_(std::move(maps)), draw_(std::move(draw)) {
    if (!draw_) draw_ = [](const std::filesystem::path& png, const MapPlot& p) { write_map_png(png, p); };
  }
  void snapshot(const Model& m, int index) override {
    const std::string stem = snapshot_stem(m.name(), index);
    for (const auto& f : maps_.make(m)) draw_(dir_ / (stem + f.suffix + ".png"), f.plot);
  }

 private:
  std::filesystem::path dir_;
  MapSet maps_;
  MapDraw draw_;
};

}  // namespace

std::unique_ptr<Observer> map_plots(const std::filesystem::path& dir, MapSet maps, MapDraw draw) {
  return std::make_unique<MapPlots>(dir, std::move(maps), std::move(draw));
}

}  // namespace poreflow::io
