#pragma once
// Snapshots for ParaView: VTK XML ImageData (.vti) files and a .pvd collection that ties them to
// simulation times. Point data is Float64 in the "appended raw" encoding: compact, exact, and
// read by every VTK since 2004 without zlib.
#include <array>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace poreflow::io {

// One point-data array: nx*ny*nz*components values, x fastest, then y, then z (VTK's order);
// the components of a point are adjacent.
struct VtkField {
  std::string name;
  std::vector<double> values;
  int components = 1;
};

// Writes a .vti file. points: nx, ny, nz (>= 1 each; nz = 1 for 2D). time: stored as the
// TimeValue field data entry when not NaN. Throws poreflow::Error naming the path on any failure,
// or on a field whose size does not match.
// first: the indices of the file's first point in a larger image it is a piece of (its extent
// starts there; origin and spacing are the whole image's).
void write_vti(const std::filesystem::path& file, std::array<int, 3> points, std::array<double, 3> origin,
               std::array<double, 3> spacing, const std::vector<VtkField>& point_data,
               double time = std::numeric_limits<double>::quiet_NaN(), std::array<int, 3> first = {0, 0, 0});

// A .pvti file: an image of `points` in pieces, each a .vti that write_vti wrote with the same
// fields (names and components, in order; their values are not read) at its extent (x0 x1 y0 y1
// z0 z1, inclusive point indices). A run over several processes writes one piece a process
// (docs/mpi.md). Throws poreflow::Error naming the path on failure.
struct VtiPiece {
  std::array<int, 6> extent;
  std::string source;  // relative to the .pvti's folder
};
void write_pvti(const std::filesystem::path& file, std::array<int, 3> points, std::array<double, 3> origin,
                std::array<double, 3> spacing, const std::vector<VtkField>& point_fields, const std::vector<VtiPiece>& pieces);

// A .pvd time series. The file is rewritten (to a temporary, then renamed) after every add, so a
// run that stops at any point leaves a valid collection of the snapshots written so far.
class PvdCollection {
 public:
  struct Entry {
    double time;
    std::string file;
  };
  explicit PvdCollection(std::filesystem::path file);
  // a restarted run's collection: the entries its checkpoint recorded, written at once (any
  // written after the checkpoint are dropped)
  PvdCollection(std::filesystem::path file, std::vector<Entry> entries);
  // file: the snapshot's path relative to the .pvd's folder (as ParaView resolves it).
  void add(double time, const std::filesystem::path& file);
  void write() const;
  std::size_t size() const { return entries_.size(); }
  const std::vector<Entry>& entries() const { return entries_; }
  const std::filesystem::path& path() const { return file_; }

 private:
  std::filesystem::path file_;
  std::vector<Entry> entries_;
};

}  // namespace poreflow::io
