#pragma once
// A model that asks for SIGTERM's stop after its k-th step, as a signal arriving then would: the
// driver then writes a checkpoint and returns (tests of checkpoints and restarts).
#include <csignal>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/models/interrupt.hpp"
#include "core/models/model.hpp"

namespace poreflow::test {

class StopAfter final : public Model {
 public:
  StopAfter(Model& m, long k) : m_(m), k_(k) {}
  std::string name() const override { return m_.name(); }
  std::string summary() const override { return m_.summary(); }
  GridInfo grid() const override { return m_.grid(); }
  double time() const override { return m_.time(); }
  double end_time() const override { return m_.end_time(); }
  long steps() const override { return m_.steps(); }
  void step(double t_stop) override {
    m_.step(t_stop);
    if (m_.steps() == k_) request_interrupt(SIGTERM);
  }
  std::string progress() const override { return m_.progress(); }
  std::vector<NamedField> fields() const override { return m_.fields(); }
  std::vector<std::string> series_columns() const override { return m_.series_columns(); }
  std::vector<double> series_row() const override { return m_.series_row(); }
  void write_plot(const std::filesystem::path& png) const override { m_.write_plot(png); }
  std::map<std::string, double> final_stats() const override { return m_.final_stats(); }
  std::vector<double> report_times() const override { return m_.report_times(); }
  std::string write_snapshot(const std::filesystem::path& dir, const std::string& stem) const override {
    return m_.write_snapshot(dir, stem);
  }
  void save_state(ModelState& s) const override { m_.save_state(s); }
  void load_state(const ModelState& s) override { m_.load_state(s); }
  void open_outputs(const std::filesystem::path& dir) override { m_.open_outputs(dir); }

 private:
  Model& m_;
  long k_;
};

}  // namespace poreflow::test
