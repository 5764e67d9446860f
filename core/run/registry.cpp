#include "core/run/registry.hpp"

#include <memory>

#include "core/base/error.hpp"
#include "core/io/cases/cases.hpp"
#include "core/io/outputs/maps.hpp"
#include "core/io/outputs/model_outputs.hpp"
#include "core/io/outputs/outputs.hpp"

namespace poreflow {

namespace {

template <template <class> class M, class Config>
std::unique_ptr<Model> build(Backend& be, Precision prec, const Config& cfg) {
  if (prec == Precision::Float) return std::make_unique<M<float>>(be, cfg);
  return std::make_unique<M<double>>(be, cfg);
}

std::size_t completions_of(const ImpesInput& in) {
  std::size_t n = 0;
  for (const auto& w : in.wells) n += w.completions.size();
  return n;
}

// The standard observers in the order they write: the CSV series, the snapshots, the plots (the
// model's own, then its colour maps); then what the case adds. The other processes of a
// decomposed run write nothing, or (pieces: the snapshot writer writes one a process) their
// pieces of the snapshots.
using Extra = std::function<void(Observers&, const OutputOptions&)>;
using Plots = std::function<void(Observers&, const OutputOptions&)>;
std::function<Observers(const OutputOptions&)> outputs(io::SnapshotWriter snapshot, Plots plots, Extra extra = nullptr,
                                                       bool pieces = false) {
  return [snapshot, plots, extra, pieces](const OutputOptions& o) {
    Observers obs;
    if (!o.enabled) return obs;
    if (!o.writer) {
      if (pieces && o.vtk) obs.push_back(io::vtk_pieces(o.dir, snapshot));
      return obs;
    }
    if (o.csv) obs.push_back(io::csv_series(o.dir));
    if (o.csv) obs.push_back(io::linear_solves(o.dir));
    if (o.vtk) obs.push_back(io::vtk_snapshots(o.dir, snapshot));
    if (o.png) plots(obs, o);
    if (extra) extra(obs, o);
    return obs;
  };
}

Plots maps_of(io::MapSet (*maps)()) {
  return [maps](Observers& obs, const OutputOptions& o) { obs.push_back(io::map_plots(o.dir, maps(), nullptr, o.ranges)); };
}

}  // namespace

// Every model's need is computed from its configuration and checked before it allocates.
Simulation make_simulation(io::CaseFile& cf, Backend& be, Precision prec, MemoryNeed* need_only, const Communicator& comm) {
  auto name = cf.get_string("model", "");
  if (name.empty()) cf.fail("model", "is missing (expected model = \"bl1d\", \"adi2d\", \"impes3d\" or \"fluids3d\")");
  if (!comm.single() && name != "impes3d" && name != "fluids3d")
    cf.fail("model", "= '" + name + "' runs in one process only so far; over " + std::to_string(comm.size()) +
                         " MPI processes impes3d and fluids3d do (docs/mpi.md)");
  Simulation sim;
  auto go = [&](auto make, const MemoryNeed& need) {
    if (need_only) {
      *need_only = need;
      return;
    }
    check_memory(need, prec, be);
    sim.model = make();
  };
  if (name == "bl1d") {
    const auto cfg = read_bl1d_config(cf, be);
    go([&] { return build<BL1D>(be, prec, cfg); }, bl1d_need(cfg, prec, be.is_host()));
    const auto draw = io::bl1d_plot("poreflow " + be.name());
    sim.outputs = outputs(io::write_image_snapshot,
                          [draw](Observers& obs, const OutputOptions& o) { obs.push_back(io::png_plots(o.dir, draw)); });
  } else if (name == "adi2d") {
    const auto cfg = read_adi2d_config(cf, be);
    go([&] { return build<Adi2D>(be, prec, cfg); }, adi2d_need(cfg, prec, be.is_host()));
    sim.outputs = outputs(io::write_image_snapshot, maps_of(io::adi2d_maps));
  } else if (name == "impes3d") {
    // its reader checks the grid's need before it builds per-cell arrays from the case
    const auto c = read_impes3d_case(cf, be, prec, comm);
    const auto& in = c.config.input;
    go(
        [&]() -> std::unique_ptr<Model> {
          if (prec == Precision::Float) return std::make_unique<Impes3D<float>>(be, c.config, comm);
          return std::make_unique<Impes3D<double>>(be, c.config, comm);
        },
       impes3d_need(in.grid, completions_of(in), in.wells.size(), prec, be.is_host(), c.config.numerics.scheme, comm.size(),
                    c.config.numerics.solver, c.config.numerics.preconditioner));
    const auto deck = c.deck;
    sim.outputs = outputs(io::impes3d_snapshot(),
                          [](Observers& obs, const OutputOptions& o) {
                            obs.push_back(io::impes3d_plots(o.dir));
                            obs.push_back(io::map_plots(o.dir, io::impes3d_maps(), nullptr, o.ranges));
                          },
                          [deck](Observers& obs, const OutputOptions& o) {
                            if (deck) obs.push_back(io::eclipse_summary(deck, o.dir, o.series_every));
                          },
                          true);
  } else if (name == "fluids3d") {
    const auto cfg = read_fluids3d_config(cf);
    go(
        [&]() -> std::unique_ptr<Model> {
          if (prec == Precision::Float) return std::make_unique<Fluids3D<float>>(be, cfg, comm);
          return std::make_unique<Fluids3D<double>>(be, cfg, comm);
        },
        fluids3d_need(cfg, prec, be.is_host(), comm.size()));
    sim.outputs = outputs(io::fluids3d_snapshot, maps_of(io::fluids3d_maps), nullptr, true);
  } else {
    cf.fail("model", "= '" + name + "' is not a known model (expected: bl1d, adi2d, impes3d, fluids3d)");
  }
  return sim;
}

std::unique_ptr<Model> make_model(io::CaseFile& cf, Backend& be, Precision prec, MemoryNeed* need_only) {
  return make_simulation(cf, be, prec, need_only).model;
}

RunReport run_simulation(Simulation& sim, const OutputOptions& out, bool progress, const CheckpointOptions& ck) {
  Observers obs = sim.outputs(out);
  return run_model(*sim.model, obs, out, progress, ck);
}

}  // namespace poreflow
