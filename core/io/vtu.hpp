#pragma once
// Reservoir grids for ParaView: VTK XML UnstructuredGrid (.vtu) files of hexahedral cells with
// cell data, in the same "appended raw" encoding as the ImageData writer (vtk.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <vector>

#include "core/io/vtk.hpp"

namespace poreflow::io {

// Unstructured hexahedra: the points, and 8 point indices per cell in VTK_HEXAHEDRON order (the
// bottom face counter-clockwise seen from above, then the top face in the same order).
struct HexGrid {
  std::vector<double> points;              // 3 per point: x, y, z
  std::vector<std::int64_t> connectivity;  // 8 point indices per cell
  std::vector<std::int64_t> cell_index;    // per written cell: its index i + nx*(j + ny*k) in the full grid
  std::size_t cells() const { return cell_index.size(); }
  std::size_t point_count() const { return points.size() / 3; }
};

// A Cartesian reservoir grid as Eclipse describes it (DX, DY, DZ, TOPS, ACTNUM): per-cell sizes
// dx, dy, dz (metres, finite and positive) and the depth of each cell's top face `tops` (metres,
// positive downward), nx*ny*nz values each with i fastest (index i + nx*(j + ny*k)). Cells with
// active[c] == 0 are left out; an empty `active` means all cells are active.
// A cell's x range starts at the sum of dx over the cells before it in its row (same j, k; inactive
// cells count), y likewise over its column in j (same i, k), and its depth range is
// [tops, tops + dz]. VTK's z axis points up: z = -depth. Corner points with exactly equal
// coordinates are written once, so a regular grid has (nx+1)(ny+1)(nz+1) points.
// Throws poreflow::ConfigError naming the array on a size mismatch or a bad value.
HexGrid hex_grid_cartesian(int nx, int ny, int nz, const std::vector<double>& dx, const std::vector<double>& dy,
                           const std::vector<double>& dz, const std::vector<double>& tops,
                           const std::vector<int>& active);

// Writes a .vtu file: the grid's points (Float64), its hexahedra (Int64 connectivity and offsets,
// UInt8 types = 12), the given cell data (Float64; each field holds cells()*components values, the
// components of a cell adjacent) and an Int64 cell array "cell_index" (grid.cell_index, mapping
// back to i, j, k). time: stored as the TimeValue field data entry when not NaN.
// Checks everything before creating the file; throws poreflow::Error naming the path on failure.
void write_vtu(const std::filesystem::path& file, const HexGrid& grid, const std::vector<VtkField>& cell_data,
               double time = std::numeric_limits<double>::quiet_NaN());

// Writes a .pvtu file: a grid in pieces, each a .vtu that write_vtu wrote with the same fields
// (names and components, in order; cell_index added as there). pieces: the pieces' paths
// relative to the .pvtu's folder. A run over several processes writes one piece a process
// (docs/mpi.md). Throws poreflow::Error naming the path on failure.
void write_pvtu(const std::filesystem::path& file, const std::vector<VtkField>& cell_fields,
                const std::vector<std::string>& pieces);

}  // namespace poreflow::io
