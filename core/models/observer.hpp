#pragma once
// An observer of a run: what writes its output (core/io: the CSV series, VTK snapshots, PNG plots,
// a deck's Eclipse summary) or watches it (a test that stops a run after a step). The time loop
// (core/run/driver.hpp) calls, in this order: begin() once (also after a restart), then after
// every accepted step step(), series() where a row of the series is due (also once before the
// first step) and snapshot() where a snapshot is due (also before the first step), and end() once.
// An observer that keeps something a restart must continue from (the rows written so far) saves
// it with the checkpoint (save/resume, under the records it names).
#include <filesystem>

#include "core/models/model.hpp"
#include "core/models/state.hpp"

namespace poreflow {

class Observer {
 public:
  virtual ~Observer() = default;
  // restart: the run continues from a checkpoint (resume() was called before)
  virtual void begin(const Model& m, bool restart) {}
  virtual void step(const Model& m) {}
  virtual void series(const Model& m) {}
  virtual void snapshot(const Model& m, int index) {}
  virtual void end(const Model& m) {}
  virtual void save(ModelState& s) const {}
  virtual void resume(const ModelState& s) {}
};

}  // namespace poreflow
