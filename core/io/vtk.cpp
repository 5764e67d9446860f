#include "core/io/vtk.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <set>
#include <system_error>

#include "core/base/error.hpp"
#include "core/io/vtk_xml.hpp"

namespace poreflow::io {
namespace fs = std::filesystem;

using detail::byte_order;
using detail::close_checked;
using detail::num;
using detail::open_for_write;
using detail::xml_escape;

void write_vti(const fs::path& file, std::array<int, 3> points, std::array<double, 3> origin,
               std::array<double, 3> spacing, const std::vector<VtkField>& point_data, double time, std::array<int, 3> first) {
  // Check everything before creating the file, so a bad call leaves no half-written snapshot.
  const std::string ctx = "write_vti '" + file.string() + "': ";
  std::size_t npoints = 1;
  for (int d = 0; d < 3; ++d) {
    if (points[d] < 1) throw Error(ctx + "every dimension needs at least one point");
    if (!std::isfinite(origin[d]) || !std::isfinite(spacing[d]) || spacing[d] <= 0)
      throw Error(ctx + "origin must be finite and spacing finite and positive");
    npoints *= static_cast<std::size_t>(points[d]);
  }
  if (!std::isnan(time) && !std::isfinite(time)) throw Error(ctx + "time must be finite");
  std::set<std::string> names;
  for (const auto& f : point_data) {
    if (f.name.empty() || !names.insert(f.name).second) throw Error(ctx + "field names must be unique and non-empty");
    if (f.components < 1) throw Error(ctx + "field '" + f.name + "' needs at least one component");
    if (f.values.size() != npoints * static_cast<std::size_t>(f.components))
      throw Error(ctx + "field '" + f.name + "' has " + std::to_string(f.values.size()) + " values, expected " +
                  std::to_string(npoints * static_cast<std::size_t>(f.components)));
  }

  std::string extent;
  for (int d = 0; d < 3; ++d) {
    if (first[d] < 0) throw Error(ctx + "a piece's first point has a negative index");
    extent += (d ? " " : "") + std::to_string(first[d]) + " " + std::to_string(first[d] + points[d] - 1);
  }
  std::string xml;
  xml += "<?xml version=\"1.0\"?>\n";
  xml += std::string("<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"") + byte_order() +
         "\" header_type=\"UInt64\">\n";
  xml += "  <ImageData WholeExtent=\"" + extent + "\" Origin=\"" + num(origin[0]) + " " + num(origin[1]) + " " +
         num(origin[2]) + "\" Spacing=\"" + num(spacing[0]) + " " + num(spacing[1]) + " " + num(spacing[2]) + "\">\n";
  if (!std::isnan(time)) {
    // ParaView's XML readers take the time of a lone file from this entry.
    xml += "    <FieldData>\n      <DataArray type=\"Float64\" Name=\"TimeValue\" NumberOfTuples=\"1\" format=\"ascii\">" +
           num(time) + "</DataArray>\n    </FieldData>\n";
  }
  xml += "    <Piece Extent=\"" + extent + "\">\n      <PointData>\n";
  // Offsets count from the byte after the '_' that opens the appended block; each array there is
  // a UInt64 byte count followed by the raw values.
  std::uint64_t offset = 0;
  for (const auto& f : point_data) {
    xml += "        <DataArray type=\"Float64\" Name=\"" + xml_escape(f.name) + "\" NumberOfComponents=\"" +
           std::to_string(f.components) + "\" format=\"appended\" offset=\"" + std::to_string(offset) + "\"/>\n";
    offset += sizeof(std::uint64_t) + f.values.size() * sizeof(double);
  }
  xml += "      </PointData>\n      <CellData/>\n    </Piece>\n  </ImageData>\n";
  xml += "  <AppendedData encoding=\"raw\">\n   _";

  auto out = open_for_write(file);
  out.write(xml.data(), static_cast<std::streamsize>(xml.size()));
  for (const auto& f : point_data) {
    std::uint64_t bytes = f.values.size() * sizeof(double);
    out.write(reinterpret_cast<const char*>(&bytes), sizeof bytes);
    out.write(reinterpret_cast<const char*>(f.values.data()), static_cast<std::streamsize>(bytes));
  }
  out << "\n  </AppendedData>\n</VTKFile>\n";
  close_checked(out, file);
}

PvdCollection::PvdCollection(fs::path file) : file_(std::move(file)) {}

PvdCollection::PvdCollection(fs::path file, std::vector<Entry> entries) : file_(std::move(file)), entries_(std::move(entries)) {
  write();
}

void PvdCollection::add(double time, const fs::path& file) {
  if (!std::isfinite(time)) throw Error("PvdCollection '" + file_.string() + "': time must be finite");
  entries_.push_back({time, file.generic_string()});
  write();
}

void PvdCollection::write() const {
  std::string xml = "<?xml version=\"1.0\"?>\n";
  xml += std::string("<VTKFile type=\"Collection\" version=\"1.0\" byte_order=\"") + byte_order() + "\">\n";
  xml += "  <Collection>\n";
  for (const auto& e : entries_)
    xml += "    <DataSet timestep=\"" + num(e.time) + "\" group=\"\" part=\"0\" file=\"" + xml_escape(e.file) + "\"/>\n";
  xml += "  </Collection>\n</VTKFile>\n";

  // Write aside and rename over the old file: a crash mid-write never leaves a truncated .pvd.
  fs::path tmp = file_;
  tmp += ".tmp";
  auto out = open_for_write(tmp);
  out.write(xml.data(), static_cast<std::streamsize>(xml.size()));
  close_checked(out, tmp);
  std::error_code ec;
  fs::rename(tmp, file_, ec);
  if (ec) throw Error("cannot write '" + file_.string() + "': " + ec.message());
}

void write_pvti(const fs::path& file, std::array<int, 3> points, std::array<double, 3> origin, std::array<double, 3> spacing,
                const std::vector<VtkField>& point_fields, const std::vector<VtiPiece>& pieces) {
  const std::string ctx = "write_pvti '" + file.string() + "': ";
  if (pieces.empty()) throw Error(ctx + "no pieces");
  auto text = [](const std::array<int, 6>& e) {
    std::string s;
    for (int d = 0; d < 6; ++d) s += (d ? " " : "") + std::to_string(e[static_cast<std::size_t>(d)]);
    return s;
  };
  std::string xml = "<?xml version=\"1.0\"?>\n";
  xml += std::string("<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"") + byte_order() + "\" header_type=\"UInt64\">\n";
  xml += "  <PImageData WholeExtent=\"" + text({0, points[0] - 1, 0, points[1] - 1, 0, points[2] - 1}) + "\" GhostLevel=\"0\" Origin=\"" +
         num(origin[0]) + " " + num(origin[1]) + " " + num(origin[2]) + "\" Spacing=\"" + num(spacing[0]) + " " + num(spacing[1]) +
         " " + num(spacing[2]) + "\">\n    <PPointData>\n";
  for (const auto& f : point_fields)
    xml += "      <PDataArray type=\"Float64\" Name=\"" + xml_escape(f.name) + "\" NumberOfComponents=\"" +
           std::to_string(f.components) + "\"/>\n";
  xml += "    </PPointData>\n";
  for (const auto& p : pieces) xml += "    <Piece Extent=\"" + text(p.extent) + "\" Source=\"" + xml_escape(p.source) + "\"/>\n";
  xml += "  </PImageData>\n</VTKFile>\n";
  auto out = open_for_write(file);
  out << xml;
  close_checked(out, file);
}

}  // namespace poreflow::io
