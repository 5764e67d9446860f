#pragma once
// fluids3d: Stam-style stable fluids on an N x N x N box with closed walls (paper 001's solver).
// Each step: the velocity step (forces, diffusion of each component, projection, advection of
// each component, projection) and the density step (sources, diffusion, advection), every linear
// solve a red-black lin_solve with the stop decided on the device. See docs/fluids3d.md.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/models/fluids3d_config.hpp"
#include "core/models/fluids3d_step.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"

namespace poreflow {

// processes: the grid cut into that many slabs along z (docs/mpi.md); the need is one process's
MemoryNeed fluids3d_need(const Fluids3DConfig& cfg, Precision prec, bool host, int processes = 1);


// What fluids3d's PNG maps read, whatever its precision: the density of the plane `at` across
// axis `axis` (1: y, 2: z; n x n, the lower remaining axis fastest); decomposed, on process 0 as
// before_output(true, Gather::Maps) gathered it (the maps' two planes only), empty elsewhere.
class Fluids3DPlanes {
 public:
  virtual ~Fluids3DPlanes() = default;
  virtual std::vector<double> density_plane(int axis, long at) const = 0;
};

template <class T>
class Fluids3D final : public Model, public Fluids3DPlanes {
 public:
  Fluids3D(Backend& be, const Fluids3DConfig& cfg, const Communicator& comm = self_communicator());

  std::string name() const override { return "fluids3d"; }
  std::string summary() const override;
  GridInfo grid() const override;
  const TimeController& clock() const override { return clock_; }
  double end_time() const override { return double(cfg_.steps) * cfg_.dt; }
  void step(double t_stop) override;
  const State& state() const override { return state_; }
  std::string progress() const override;

  std::vector<NamedField> fields() const override;
  std::vector<std::string> series_columns() const override;
  std::vector<double> series_row() const override;
  std::map<std::string, double> final_stats() const override;
  void before_output(bool fields, Gather gather = Gather::Whole) override;
  std::vector<double> density_plane(int axis, long at) const override;
  ImagePiece image_piece() const override { return piece_; }

  // the parts: the state's fields and the scheme that steps them
  FluidsFields<T>& flow() { return flow_; }
  const FluidsFields<T>& flow() const { return flow_; }
  StableFluids<T>& scheme() { return scheme_; }
  const StableFluids<T>& scheme() const { return scheme_; }

 private:
  void check_finite() const;
  void bind_state();
  // the CSV row's values; over several processes every process calls it (sums and maxima)
  std::vector<double> row() const;
  bool cut() const { return !comm_.single(); }

  Backend& be_;
  const Communicator& comm_;
  Fluids3DConfig cfg_;
  FluidsCut cut_;  // over several processes: this process's slab of the grid
  FluidsFields<T> flow_;
  StableFluids<T> scheme_;
  TimeController clock_;  // time.steps steps of time.dt
  State state_;
  // over several processes, what before_output gathered for process 0's observers
  std::vector<double> row_;
  std::vector<NamedField> gathered_;
  std::vector<double> planes_[2];  // the maps' planes (y = n / 2, z = n / 2), gathered
  ImagePiece piece_;  // this process's piece of the last snapshot
  void make_piece();
};

}  // namespace poreflow
