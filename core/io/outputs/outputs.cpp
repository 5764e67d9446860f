#include "core/io/outputs/outputs.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>

#include "core/base/error.hpp"
#include "core/io/csv.hpp"
#include "core/io/vtk.hpp"

namespace poreflow::io {

std::string snapshot_stem(const std::string& name, int index) {
  char stem[64];
  std::snprintf(stem, sizeof stem, "%s_%04d", name.c_str(), index);
  return stem;
}

namespace {

// A CSV file that a restart continues where its checkpoint left it: the rows written then and the
// last of them, saved under the records <name>_rows and <name>_last_row (csv_rows and
// csv_last_row for the series, as checkpoints have them)
class ResumableCsv {
 public:
  explicit ResumableCsv(std::string records) : records_(std::move(records)) {}
  // optional: a checkpoint without the records (written before the file existed) starts it anew
  void resume(const ModelState& s, bool optional) {
    if (optional && !s.has(records_ + "_rows")) return;
    rows_ = static_cast<std::size_t>(s.integer(records_ + "_rows"));
    if (rows_) last_ = s.doubles(records_ + "_last_row");
    resumed_ = true;
  }
  void open(const std::filesystem::path& file, std::vector<std::string> columns) {
    if (resumed_ && std::filesystem::exists(file)) {
      csv_ = std::make_unique<CsvWriter>(CsvWriter::resume(file, std::move(columns), rows_, last_));
      return;
    }
    if (resumed_ && rows_ > 0)
      spdlog::warn("'{}' is missing: its first {} rows (before the checkpoint) are not in the new one", file.string(), rows_);
    csv_ = std::make_unique<CsvWriter>(file, std::move(columns));
  }
  void save(ModelState& s) const {
    if (!csv_) return;
    s.set_int(records_ + "_rows", static_cast<long>(csv_->rows()));
    if (csv_->rows() > 0) s.put(records_ + "_last_row", csv_->last_row());
  }
  CsvWriter* writer() const { return csv_.get(); }

 private:
  std::string records_;
  std::unique_ptr<CsvWriter> csv_;
  bool resumed_ = false;
  std::size_t rows_ = 0;
  std::vector<double> last_;
};

// <dir>/<model>_series.csv
class CsvSeries final : public Observer {
 public:
  explicit CsvSeries(std::filesystem::path dir) : dir_(std::move(dir)) {}
  void resume(const ModelState& s) override { csv_.resume(s, false); }
  void begin(const Model& m, bool) override { csv_.open(dir_ / (m.name() + "_series.csv"), m.series_columns()); }
  void series(const Model& m) override { csv_.writer()->row(m.series_row()); }
  void save(ModelState& s) const override { csv_.save(s); }

 private:
  std::filesystem::path dir_;
  ResumableCsv csv_{"csv"};
};

// <dir>/linear_solves.csv: every Krylov solve of every step (Model::linear_solves), one row per
// iteration of a solve: the step, the time it reached, the step's attempt (its solve() calls: a
// cut's retry, or a redo after a well was stopped), the Newton iteration, the solve's index in the
// step (a solve retried with a fresh preconditioner has its own), the iteration k and the
// relative residual after k (k = 0: the start). Nothing for a model without them. Flushed once a
// step.
class LinearSolves final : public Observer {
 public:
  explicit LinearSolves(std::filesystem::path dir) : dir_(std::move(dir)) {}
  void resume(const ModelState& s) override { csv_.resume(s, true); }
  void begin(const Model& m, bool) override {
    if (m.linear_solves())
      csv_.open(dir_ / "linear_solves.csv", {"step", "time", "attempt", "newton", "solve", "iteration", "relative_residual"});
  }
  void step(const Model& m) override {
    const auto* solves = m.linear_solves();
    CsvWriter* csv = csv_.writer();
    if (!csv || !solves || solves->empty()) return;
    const double step = double(m.steps()), t = m.time();
    for (std::size_t i = 0; i < solves->size(); ++i) {
      const auto& s = (*solves)[i];
      for (std::size_t k = 0; k < s.history.size(); ++k)
        csv->row({step, t, double(s.attempt), double(s.newton), double(i), double(k), s.history[k]}, false);
    }
    csv->flush();
  }
  void save(ModelState& s) const override { csv_.save(s); }

 private:
  std::filesystem::path dir_;
  ResumableCsv csv_{"linear_solves"};
};

// The collection continues with the entries a restart's checkpoint recorded (pvd_times, pvd_files).
class VtkSnapshots final : public Observer {
 public:
  VtkSnapshots(std::filesystem::path dir, SnapshotWriter write) : dir_(std::move(dir)), write_(std::move(write)) {}

  void resume(const ModelState& s) override {
    const auto times = s.doubles("pvd_times");
    const auto names = s.text("pvd_files");
    std::size_t from = 0;
    for (double t : times) {
      const std::size_t to = names.find('\n', from);
      entries_.push_back({t, names.substr(from, to - from)});
      from = to == std::string::npos ? names.size() : to + 1;
    }
    resumed_ = true;
  }
  void begin(const Model& m, bool) override {
    const auto file = dir_ / (m.name() + ".pvd");
    pvd_ = resumed_ ? std::make_unique<PvdCollection>(file, std::move(entries_)) : std::make_unique<PvdCollection>(file);
  }
  void snapshot(const Model& m, int index) override {
    const auto file = write_(m, dir_, snapshot_stem(m.name(), index));
    pvd_->add(m.time(), file);  // rewrites the .pvd, so a crashed run leaves a valid collection
  }
  void save(ModelState& s) const override {
    std::vector<double> times;
    std::string names;
    for (const auto& e : pvd_->entries()) {
      times.push_back(e.time);
      names += (names.empty() ? "" : "\n") + e.file;
    }
    s.put("pvd_times", times);
    s.set_text("pvd_files", names);
  }

 private:
  std::filesystem::path dir_;
  SnapshotWriter write_;
  std::unique_ptr<PvdCollection> pvd_;
  bool resumed_ = false;
  std::vector<PvdCollection::Entry> entries_;
};

class VtkPieces final : public Observer {
 public:
  VtkPieces(std::filesystem::path dir, SnapshotWriter write) : dir_(std::move(dir)), write_(std::move(write)) {}
  void snapshot(const Model& m, int index) override { (void)write_(m, dir_, snapshot_stem(m.name(), index)); }

 private:
  std::filesystem::path dir_;
  SnapshotWriter write_;
};

class PngPlots final : public Observer {
 public:
  PngPlots(std::filesystem::path dir, PlotWriter draw) : dir_(std::move(dir)), draw_(std::move(draw)) {}
  void snapshot(const Model& m, int index) override { draw_(m, dir_ / (snapshot_stem(m.name(), index) + ".png")); }

 private:
  std::filesystem::path dir_;
  PlotWriter draw_;
};

}  // namespace

std::string write_image_snapshot(const Model& m, const std::filesystem::path& dir, const std::string& stem) {
  const auto g = m.grid();
  std::vector<VtkField> fs;
  for (auto& f : m.fields()) fs.push_back({f.name, std::move(f.values)});
  const std::string file = stem + ".vti";
  write_vti(dir / file, g.points, g.origin, g.spacing, fs, m.time());
  return file;
}

std::unique_ptr<Observer> csv_series(const std::filesystem::path& dir) { return std::make_unique<CsvSeries>(dir); }
std::unique_ptr<Observer> linear_solves(const std::filesystem::path& dir) { return std::make_unique<LinearSolves>(dir); }
std::unique_ptr<Observer> vtk_snapshots(const std::filesystem::path& dir, SnapshotWriter write) {
  return std::make_unique<VtkSnapshots>(dir, std::move(write));
}
std::unique_ptr<Observer> vtk_pieces(const std::filesystem::path& dir, SnapshotWriter write) {
  return std::make_unique<VtkPieces>(dir, std::move(write));
}
std::unique_ptr<Observer> png_plots(const std::filesystem::path& dir, PlotWriter draw) {
  return std::make_unique<PngPlots>(dir, std::move(draw));
}

}  // namespace poreflow::io
