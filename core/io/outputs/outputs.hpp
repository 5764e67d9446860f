#pragma once
// The observers that write a run's standard output into its folder (core/models/observer.hpp):
// the CSV series, the VTK snapshots with their .pvd collection, and the PNG plots. The snapshot
// and plot files of snapshot `index` are named <model>_<index as 4 digits>.vti/.vtu/.png.
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "core/models/observer.hpp"

namespace poreflow::io {

// the stem of snapshot `index` of model `name`: "impes3d_0007"
std::string snapshot_stem(const std::string& name, int index);

// <dir>/<model>_series.csv: the model's series_columns(), one series_row() per series()
std::unique_ptr<Observer> csv_series(const std::filesystem::path& dir);

// <dir>/linear_solves.csv: every iteration's relative residual of the model's Krylov solves
// (Model::linear_solves), written after each step; no file for a model that makes none
std::unique_ptr<Observer> linear_solves(const std::filesystem::path& dir);

// Writes a snapshot of the model into dir as dir/(stem + extension) and returns the file's name.
using SnapshotWriter = std::function<std::string(const Model& m, const std::filesystem::path& dir, const std::string& stem)>;
// the default: VTK ImageData (.vti) of grid() with fields() as point data
std::string write_image_snapshot(const Model& m, const std::filesystem::path& dir, const std::string& stem);
// <dir>/<model>.pvd and one file per snapshot() made by `write`
std::unique_ptr<Observer> vtk_snapshots(const std::filesystem::path& dir, SnapshotWriter write = write_image_snapshot);
// the other processes of a decomposed run whose writer writes pieces (docs/mpi.md): each
// snapshot() calls `write` for this process's piece, and keeps no collection
std::unique_ptr<Observer> vtk_pieces(const std::filesystem::path& dir, SnapshotWriter write);

// Draws the model's plots for snapshot `stem` (<dir>/<stem>.png and any others it adds).
using PlotWriter = std::function<void(const Model& m, const std::filesystem::path& png)>;
std::unique_ptr<Observer> png_plots(const std::filesystem::path& dir, PlotWriter draw);

}  // namespace poreflow::io
