#include "core/io/outputs/maps.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/outputs/outputs.hpp"

namespace poreflow::io {

namespace {

// the maps kept to be redrawn at the end with the run's ranges: at most this many values
constexpr std::size_t kKeepValues = std::size_t{8} << 20;

struct Range {
  double lo = INFINITY, hi = -INFINITY;
  bool fixed = false;  // the case's
  void add(const std::vector<double>& v) {
    if (fixed) return;
    for (double x : v)
      if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  bool empty() const { return !(lo <= hi); }
};

class MapPlots final : public Observer {
 public:
  MapPlots(std::filesystem::path dir, MapSet maps, MapDraw draw, const std::map<std::string, std::array<double, 2>>& ranges)
      : dir_(std::move(dir)), maps_(std::move(maps)), draw_(std::move(draw)) {
    if (!draw_) draw_ = [](const std::filesystem::path& png, const MapPlot& p) { write_map_png(png, p); };
    for (const auto& [key, r] : ranges) {
      if (std::find(maps_.keys.begin(), maps_.keys.end(), key) == maps_.keys.end()) {
        std::string known;
        for (const auto& k : maps_.keys) known += (known.empty() ? "" : ", ") + k;
        throw ConfigError("output.range." + key + ": " + maps_.model + " has no map '" + key + "' (its maps: " + known + ")");
      }
      ranges_[key] = {r[0], r[1], true};
    }
  }

  void snapshot(const Model& m, int index) override {
    const std::string stem = snapshot_stem(m.name(), index);
    auto figs = maps_.make(m);
    for (const auto& f : figs) ranges_[f.key].add(f.plot.values);
    for (auto& f : figs) {
      set_range(f);
      const auto png = dir_ / (stem + f.suffix + ".png");
      draw_(png, f.plot);
      if (ranges_[f.key].fixed) continue;
      if (kept_values_ + f.plot.values.size() > kKeepValues) {
        if (!dropped_)
          spdlog::warn("maps: too many to keep for drawing again at the end; those from {} on keep the colour range of "
                       "the run so far (output.range.{} = [low, high] fixes it)", png.filename().string(), f.key);
        dropped_ = true;
        continue;
      }
      kept_values_ += f.plot.values.size();
      kept_.push_back({png, std::move(f)});
    }
  }

  // the maps drawn with a narrower range than the run's, again with the run's
  void end(const Model&) override {
    std::size_t again = 0;
    for (auto& [png, f] : kept_) {
      const double lo = f.plot.vmin, hi = f.plot.vmax;
      set_range(f);
      if (f.plot.vmin == lo && f.plot.vmax == hi) continue;
      draw_(png, f.plot);
      ++again;
    }
    if (again) spdlog::debug("maps: {} drawn again with the run's colour ranges", again);
    kept_.clear();
  }

  void save(ModelState& s) const override {
    for (const auto& [key, r] : ranges_)
      if (!r.fixed && !r.empty()) s.put("map_range_" + key, std::vector<double>{r.lo, r.hi});
  }
  void resume(const ModelState& s) override {
    for (const auto& key : maps_.keys)
      if (!ranges_[key].fixed && s.has("map_range_" + key)) {
        const auto v = s.doubles("map_range_" + key, 2);
        ranges_[key].lo = v[0];
        ranges_[key].hi = v[1];
      }
  }

 private:
  void set_range(MapFigure& f) {
    const Range& r = ranges_[f.key];
    f.plot.vmin = r.empty() ? 0 : r.lo;  // no finite value: any range
    f.plot.vmax = r.empty() ? 1 : r.hi;
  }

  std::filesystem::path dir_;
  MapSet maps_;
  MapDraw draw_;
  std::map<std::string, Range> ranges_;
  std::vector<std::pair<std::filesystem::path, MapFigure>> kept_;
  std::size_t kept_values_ = 0;
  bool dropped_ = false;
};

}  // namespace

std::unique_ptr<Observer> map_plots(const std::filesystem::path& dir, MapSet maps, MapDraw draw,
                                    const std::map<std::string, std::array<double, 2>>& ranges) {
  return std::make_unique<MapPlots>(dir, std::move(maps), std::move(draw), ranges);
}

}  // namespace poreflow::io
