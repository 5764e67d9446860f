#pragma once
// paper 003's scheme of the reservoir model (core/models/impes3d.hpp composes it with the arrays of
// core/models/reservoir_arrays.hpp):
//   - ImpesStep: paper 003's IMPES scheme as one attempt of a step of dt: properties, the pressure
//     rows with the wells' terms, the red-black SOR solve decided on the device, the wells' rates
//     at the new pressure, the explicit mass update, and its acceptance (NaN, S_w out of [0, 1], a
//     negative mass). It owns its work arrays and the solver's statistics.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/models/impes3d_input.hpp"
#include "core/models/impes3d_krylov.hpp"
#include "core/models/impes3d_setup.hpp"
#include "core/models/reservoir_arrays.hpp"
#include "core/models/reservoir_scheme.hpp"
#include "core/physics/impes3d.h"

namespace poreflow {

class State;

// A step's pressure rows on the host: sor3d's colour-packed W E S N B T D R of the pressure
// increment on the model's box (D dp - sum T dp_n = R, each row divided by its cell's pore
// volume), and the cells' pore volumes (pv0), by which the Krylov path multiplies the rows back
struct ImpesPressureRows {
  Box3 box;
  std::vector<double> sor, pv;
};

template <class T>
class ImpesStep final : public ReservoirScheme<T> {
 public:
  using Attempt = SchemeAttempt;
  ImpesStep(Backend& be, const Communicator& comm, ReservoirArrays<T>& a, ImpesNumerics& nm, const ImpesInput& in, const ImpesGeometry& geo,
            const std::vector<double>& prm_host, const ImpesState& initial, double dt_first);

  // One attempt of a step of dt from the state in the arrays: the new pressure in place, the new
  // masses and S_w aside, result() what the step did (the wells' rates, the step's statistics);
  // not ok when the pressure solve failed. prev_dt: the last accepted step (0: none), whose
  // pressure increment scaled by dt / prev_dt is the solve's first guess.
  Attempt solve(double dt, double prev_dt) override;
  // whether the solved step holds: no NaN, S_w within [0, 1], no negative mass
  Attempt check() const override;
  // An attempt the caller accepts is commit()ed (the new masses become the state); one it refuses
  // is undone by restore() (the pressure at the start of the step).
  void commit() override;
  void restore() override;
  const ImpesStepResult& result() const override { return result_; }
  // IMPES reads the wells' parameters from the device arrays each step: nothing to do
  void well_changed(std::size_t, const WellSetting&, bool) override {}
  std::string describe() const override;
  std::string progress() const override;
  void add_stats(std::map<std::string, double>& s, long steps) const override;
  long linear_total() const override { return sor_total_; }
  const std::vector<LinearSolveRecord>* solves() const override { return krylov_ ? &log_.records() : nullptr; }
  void clear_solves() override { log_.clear(); }

  // the pressure solve
  long sor_total() const { return sor_total_; }
  long last_sor() const { return last_sor_; }
  double last_residual() const { return last_residual_; }
  double omega() const { return omega_; }
  // The pressure rows of a step of dt from the present state, as SOR takes them between its
  // updates of the rate wells' BHPs (each completion's own share of its well on the diagonal); the
  // state is not changed (for `bench linalg`'s impes3d systems)
  ImpesPressureRows pressure_rows(double dt);
  // the pressure solver in words (the run's log)
  std::string describe_solver() const;
  double seconds_pressure() const { return seconds_pressure_; }
  double seconds_other() const { return seconds_other_; }
  const ImpesNumerics& numerics() const { return nm_; }

  // the records a restart needs: the last pressure increment and the solver's counters
  void bind(State& s) override;

 private:
  double omega_for(double dt) const;
  Impes3DWellArgs prepare(double dt);
  // the pressure increment into dp_ by SOR or the Krylov solver; not ok when it failed
  Attempt solve_pressure(double dt, const Impes3DWellArgs& wells);

  Backend& be_;
  const Communicator& comm_;
  ReservoirArrays<T>& a_;
  ImpesNumerics& nm_;
  std::size_t E_;
  Field<T> p_old_, dp_, dp_prev_, mw2_, mo2_, props_, coef_, comp_, scratch_;
  std::unique_ptr<Buffer> words_, ctrl_;
  AmgReuseCounts amg_counts_;  // restart state of krylov_'s kept AMG levels (zeros with SOR)
  std::unique_ptr<ImpesKrylovPressure<T>> krylov_;  // pressure.solver = cg | bicgstab
  std::unique_ptr<Sor3DSplit> split_;               // SOR cut between processes (core/comm/sor_split.hpp)
  ImpesStepResult result_;
  SolveLog log_;  // the Krylov pressure solves (none by SOR)
  long sor_total_ = 0, last_sor_ = 0;
  double last_residual_ = 0, omega_ = 1;
  double seconds_pressure_ = 0, seconds_other_ = 0;
  double coupling_[3] = {0, 0, 0}, compress_c_ = 0;  // the design and omega = auto (omega_for)
};

}  // namespace poreflow
