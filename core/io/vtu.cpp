#include "core/io/vtu.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <set>
#include <string>
#include <utility>

#include "core/base/error.hpp"
#include "core/io/vtk_xml.hpp"

namespace poreflow::io {
namespace fs = std::filesystem;

using detail::byte_order;
using detail::close_checked;
using detail::num;
using detail::open_for_write;
using detail::xml_escape;

namespace {

constexpr std::uint8_t kVtkHexahedron = 12;

std::uint64_t fmix(std::uint64_t h) {  // MurmurHash3's finalizer
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

// The distinct points of a grid, appended to `points` in the order first seen. An open-addressing
// table keyed on the coordinates' bit patterns (+0.0 and -0.0 would differ, so callers avoid
// -0.0); the keys live in `points` itself. A slot holds 1 + the point's index in its low 40 bits
// (0: empty) and the top 24 bits of the point's hash above them, so a probe past another point
// rarely has to read that point's coordinates.
class PointSet {
 public:
  PointSet(std::vector<double>& points, std::size_t expected) : points_(points) {
    std::size_t cap = 16;
    while (cap < 2 * expected) cap *= 2;
    slots_.assign(cap, 0);
    points_.reserve(3 * expected);
  }

  static std::uint64_t hash(double x, double y, double z) {
    return fmix(fmix(fmix(std::bit_cast<std::uint64_t>(x)) ^ std::bit_cast<std::uint64_t>(y)) ^
                std::bit_cast<std::uint64_t>(z));
  }

  // Brings the slot for hash h towards the cache ahead of insert().
  void prefetch(std::uint64_t h) const {
#if defined(__GNUC__)
    __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
#endif
  }

  // The index of point (x, y, z) with hash h, added if new.
  std::int64_t insert(double x, double y, double z, std::uint64_t h) {
    const std::size_t mask = slots_.size() - 1;
    const std::uint64_t tag = h & ~kIndexMask;
    for (std::size_t s = h & mask;; s = (s + 1) & mask) {
      const std::uint64_t slot = slots_[s];
      if (slot == 0) {
        const std::size_t p = points_.size() / 3;
        if (p + 1 > kIndexMask) throw Error("hex grid: too many points");
        points_.insert(points_.end(), {x, y, z});
        slots_[s] = tag | (p + 1);
        if (2 * (p + 1) > slots_.size()) grow();
        return static_cast<std::int64_t>(p);
      }
      const auto p = static_cast<std::int64_t>((slot & kIndexMask) - 1);
      if ((slot & ~kIndexMask) == tag && is(p, x, y, z)) return p;
    }
  }

  // Whether point p is exactly (x, y, z).
  bool is(std::int64_t p, double x, double y, double z) const {
    const double* q = &points_[3 * static_cast<std::size_t>(p)];
    return std::bit_cast<std::uint64_t>(q[0]) == std::bit_cast<std::uint64_t>(x) &&
           std::bit_cast<std::uint64_t>(q[1]) == std::bit_cast<std::uint64_t>(y) &&
           std::bit_cast<std::uint64_t>(q[2]) == std::bit_cast<std::uint64_t>(z);
  }

 private:
  static constexpr std::uint64_t kIndexMask = (std::uint64_t{1} << 40) - 1;

  void grow() {
    slots_.assign(2 * slots_.size(), 0);
    const std::size_t mask = slots_.size() - 1;
    const std::size_t n = points_.size() / 3;
    for (std::size_t p = 0; p < n; ++p) {
      const double* q = &points_[3 * p];
      const std::uint64_t h = hash(q[0], q[1], q[2]);
      std::size_t s = h & mask;
      while (slots_[s] != 0) s = (s + 1) & mask;
      slots_[s] = (h & ~kIndexMask) | (p + 1);
    }
  }

  std::vector<double>& points_;
  std::vector<std::uint64_t> slots_;
};

// One appended array: a UInt64 byte count, then the raw values.
template <class T>
void write_block(std::ofstream& out, const T* data, std::size_t count) {
  const std::uint64_t bytes = count * sizeof(T);
  out.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

}  // namespace

HexGrid hex_grid_cartesian(int nx, int ny, int nz, const std::vector<double>& dx, const std::vector<double>& dy,
                           const std::vector<double>& dz, const std::vector<double>& tops,
                           const std::vector<int>& active) {
  const std::string ctx = "hex_grid_cartesian: ";
  const std::pair<const char*, int> dims[] = {{"nx", nx}, {"ny", ny}, {"nz", nz}};
  for (const auto& [name, v] : dims)
    if (v < 1) throw ConfigError(ctx + name + " = " + std::to_string(v) + " must be at least 1");
  const auto ux = static_cast<std::size_t>(nx), uy = static_cast<std::size_t>(ny), uz = static_cast<std::size_t>(nz);
  if (ux * uy > std::numeric_limits<std::size_t>::max() / 8 / uz)
    throw ConfigError(ctx + "nx*ny*nz is too large");
  const std::size_t n = ux * uy * uz;
  const std::string expected = " values, expected nx*ny*nz = " + std::to_string(n);

  const std::pair<const char*, const std::vector<double>*> arrays[] = {
      {"dx", &dx}, {"dy", &dy}, {"dz", &dz}, {"tops", &tops}};
  for (const auto& [name, a] : arrays) {
    if (a->size() != n) throw ConfigError(ctx + name + " has " + std::to_string(a->size()) + expected);
    const bool size = name != std::string("tops");
    for (std::size_t c = 0; c < n; ++c) {
      double v = (*a)[c];
      if (!std::isfinite(v) || (size && v <= 0))
        throw ConfigError(ctx + name + "[" + std::to_string(c) + "] = " + num(v) + " must be finite" +
                          (size ? " and positive" : ""));
    }
  }
  if (!active.empty() && active.size() != n)
    throw ConfigError(ctx + "active has " + std::to_string(active.size()) + expected + " (or none: all active)");

  const std::size_t nactive =
      active.empty() ? n : n - static_cast<std::size_t>(std::count(active.begin(), active.end(), 0));
  HexGrid g;
  g.connectivity.reserve(8 * nactive);
  g.cell_index.reserve(nactive);
  PointSet set(g.points, std::min(8 * nactive, (ux + 1) * (uy + 1) * (uz + 1)));

  // Most corners are shared with the cells around the same logical node (i, j, k), so each node of
  // the two node layers around the current cell layer remembers the last point found there; the
  // hash table (which also finds equal points elsewhere) is asked only when that one differs.
  // Those lookups wait in a short queue while their slots are prefetched: a lookup in a table of
  // millions of points is a cache miss, and the queue lets several overlap.
  const std::size_t px = ux + 1;
  std::vector<std::int64_t> upper(px * (uy + 1), -1), lower(px * (uy + 1), -1);  // node layers k, k+1
  const std::size_t node[4] = {0, 1, px + 1, px};  // corners 0-3 (and 4-7) around node (i, j)
  struct Lookup {
    double x, y, z;
    std::uint64_t hash;
    std::size_t at;      // in connectivity
    std::int64_t* last;  // the node's remembered point
  };
  constexpr std::size_t depth = 32;
  std::array<Lookup, depth> queue;
  std::size_t head = 0, queued = 0;
  auto resolve = [&] {
    const Lookup& q = queue[head];
    const std::int64_t p = set.insert(q.x, q.y, q.z, q.hash);
    g.connectivity[q.at] = p;
    *q.last = p;
    head = (head + 1) % depth;
    --queued;
  };

  std::vector<double> ynext(ux);  // per i: where the next cell of the column in j starts
  for (std::size_t k = 0; k < uz; ++k) {
    std::fill(ynext.begin(), ynext.end(), 0.0);
    for (std::size_t j = 0; j < uy; ++j) {
      double xnext = 0;
      for (std::size_t i = 0; i < ux; ++i) {
        const std::size_t c = i + ux * (j + uy * k);
        const double x0 = xnext, x1 = x0 + dx[c], y0 = ynext[i], y1 = y0 + dy[c];
        xnext = x1;
        ynext[i] = y1;
        if (!active.empty() && active[c] == 0) continue;
        // z = -depth; 0.0 - d is +0.0 for a depth of 0, keeping the bit-pattern keys unique.
        const double ztop = 0.0 - tops[c], zbot = 0.0 - (tops[c] + dz[c]);
        const double corner[8][3] = {{x0, y0, zbot}, {x1, y0, zbot}, {x1, y1, zbot}, {x0, y1, zbot},
                                     {x0, y0, ztop}, {x1, y0, ztop}, {x1, y1, ztop}, {x0, y1, ztop}};
        for (int v = 0; v < 8; ++v) {
          const double* p = corner[v];
          std::int64_t& last = (v < 4 ? lower : upper)[i + px * j + node[v % 4]];
          if (last >= 0 && set.is(last, p[0], p[1], p[2])) {
            g.connectivity.push_back(last);
            continue;
          }
          if (queued == depth) resolve();
          const std::uint64_t h = PointSet::hash(p[0], p[1], p[2]);
          set.prefetch(h);
          queue[(head + queued++) % depth] = {p[0], p[1], p[2], h, g.connectivity.size(), &last};
          g.connectivity.push_back(-1);
        }
        g.cell_index.push_back(static_cast<std::int64_t>(c));
      }
    }
    while (queued > 0) resolve();  // before the node layers move on
    std::swap(upper, lower);
    std::fill(lower.begin(), lower.end(), -1);
  }
  g.points.shrink_to_fit();
  return g;
}

void write_vtu(const fs::path& file, const HexGrid& grid, const std::vector<VtkField>& cell_data, double time) {
  // Check everything before creating the file, so a bad call leaves no half-written snapshot.
  const std::string ctx = "write_vtu '" + file.string() + "': ";
  if (grid.points.size() % 3 != 0) throw Error(ctx + "the number of point coordinates is not a multiple of 3");
  for (double v : grid.points)
    if (!std::isfinite(v)) throw Error(ctx + "point coordinates must be finite");
  const std::size_t npoints = grid.point_count(), ncells = grid.cells();
  if (grid.connectivity.size() != 8 * ncells)
    throw Error(ctx + "connectivity has " + std::to_string(grid.connectivity.size()) + " entries, expected 8 per cell (" +
                std::to_string(8 * ncells) + ")");
  for (std::int64_t p : grid.connectivity)
    if (p < 0 || static_cast<std::uint64_t>(p) >= npoints)
      throw Error(ctx + "connectivity refers to point " + std::to_string(p) + " of " + std::to_string(npoints));
  if (!std::isnan(time) && !std::isfinite(time)) throw Error(ctx + "time must be finite");
  std::set<std::string> names{"cell_index"};
  for (const auto& f : cell_data) {
    if (f.name.empty() || !names.insert(f.name).second)
      throw Error(ctx + "field names must be unique, non-empty and not 'cell_index'");
    if (f.components < 1) throw Error(ctx + "field '" + f.name + "' needs at least one component");
    if (f.values.size() != ncells * static_cast<std::size_t>(f.components))
      throw Error(ctx + "field '" + f.name + "' has " + std::to_string(f.values.size()) + " values, expected " +
                  std::to_string(ncells * static_cast<std::size_t>(f.components)));
  }

  std::string xml;
  xml += "<?xml version=\"1.0\"?>\n";
  xml += std::string("<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"") + byte_order() +
         "\" header_type=\"UInt64\">\n";
  xml += "  <UnstructuredGrid>\n";
  if (!std::isnan(time)) {
    // ParaView's XML readers take the time of a lone file from this entry.
    xml += "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">" +
           num(time) + "</DataArray>\n    </FieldData>\n";
  }
  xml += "    <Piece NumberOfPoints=\"" + std::to_string(npoints) + "\" NumberOfCells=\"" + std::to_string(ncells) +
         "\">\n      <PointData/>\n      <CellData>\n";
  // Offsets count from the byte after the '_' that opens the appended block; each array there is
  // a UInt64 byte count followed by the raw values.
  std::uint64_t offset = 0;
  auto array = [&](const char* type, const std::string& name, int components, std::size_t bytes) {
    xml += std::string("        <DataArray type=\"") + type + "\" Name=\"" + xml_escape(name) + "\"";
    if (components > 0) xml += " NumberOfComponents=\"" + std::to_string(components) + "\"";
    xml += " format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
    offset += sizeof(std::uint64_t) + bytes;
  };
  for (const auto& f : cell_data) array("Float64", f.name, f.components, f.values.size() * sizeof(double));
  array("Int64", "cell_index", 1, ncells * sizeof(std::int64_t));
  xml += "      </CellData>\n      <Points>\n";
  array("Float64", "Points", 3, grid.points.size() * sizeof(double));
  xml += "      </Points>\n      <Cells>\n";
  array("Int64", "connectivity", 0, grid.connectivity.size() * sizeof(std::int64_t));
  array("Int64", "offsets", 0, ncells * sizeof(std::int64_t));
  array("UInt8", "types", 0, ncells);
  xml += "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n";
  xml += "  <AppendedData encoding=\"raw\">\n   _";

  auto out = open_for_write(file);
  out.write(xml.data(), static_cast<std::streamsize>(xml.size()));
  for (const auto& f : cell_data) write_block(out, f.values.data(), f.values.size());
  write_block(out, grid.cell_index.data(), ncells);
  write_block(out, grid.points.data(), grid.points.size());
  write_block(out, grid.connectivity.data(), grid.connectivity.size());
  // offsets (the end of each cell in connectivity) and types: generated in chunks, one block each.
  constexpr std::size_t chunk = 1 << 16;
  std::uint64_t bytes = ncells * sizeof(std::int64_t);
  out.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
  std::vector<std::int64_t> offsets(std::min(ncells, chunk));
  for (std::size_t c0 = 0; c0 < ncells; c0 += chunk) {
    const std::size_t m = std::min(chunk, ncells - c0);
    for (std::size_t c = 0; c < m; ++c) offsets[c] = static_cast<std::int64_t>(8 * (c0 + c + 1));
    out.write(reinterpret_cast<const char*>(offsets.data()), static_cast<std::streamsize>(m * sizeof(std::int64_t)));
  }
  bytes = ncells;
  out.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
  const std::vector<std::uint8_t> types(std::min(ncells, chunk), kVtkHexahedron);
  for (std::size_t c0 = 0; c0 < ncells; c0 += chunk)
    out.write(reinterpret_cast<const char*>(types.data()), static_cast<std::streamsize>(std::min(chunk, ncells - c0)));
  out << "\n  </AppendedData>\n</VTKFile>\n";
  close_checked(out, file);
}

void write_pvtu(const fs::path& file, const std::vector<VtkField>& cell_fields, const std::vector<std::string>& pieces) {
  const std::string ctx = "write_pvtu '" + file.string() + "': ";
  if (pieces.empty()) throw Error(ctx + "no pieces");
  std::string xml = "<?xml version=\"1.0\"?>\n";
  xml += std::string("<VTKFile type=\"PUnstructuredGrid\" version=\"1.0\" byte_order=\"") + byte_order() +
         "\" header_type=\"UInt64\">\n  <PUnstructuredGrid GhostLevel=\"0\">\n    <PPointData/>\n    <PCellData>\n";
  for (const auto& f : cell_fields)
    xml += "      <PDataArray type=\"Float64\" Name=\"" + xml_escape(f.name) + "\" NumberOfComponents=\"" +
           std::to_string(f.components) + "\"/>\n";
  xml += "      <PDataArray type=\"Int64\" Name=\"cell_index\" NumberOfComponents=\"1\"/>\n    </PCellData>\n";
  xml += "    <PPoints>\n      <PDataArray type=\"Float64\" Name=\"Points\" NumberOfComponents=\"3\"/>\n    </PPoints>\n";
  for (const auto& p : pieces) xml += "    <Piece Source=\"" + xml_escape(p) + "\"/>\n";
  xml += "  </PUnstructuredGrid>\n</VTKFile>\n";
  auto out = open_for_write(file);
  out << xml;
  close_checked(out, file);
}

}  // namespace poreflow::io
