#include "backends/opencl/box3.hpp"

namespace poreflow::ocl {

BoxLaunchCl box_launch(long nx, long ny, long nz, const BoxShape& s) {
  const bool march = s.kind == BoxLaunch::March;
  const int bz = march ? 1 : s.bz;
  auto up = [](long n, int b) { return static_cast<std::size_t>(std::max<long>(1, (n + b - 1) / b) * b); };
  BoxLaunchCl l;
  l.defines = "#define PF_BOX_BX " + std::to_string(s.bx) + "\n#define PF_BOX_BY " + std::to_string(s.by) +
              "\n#define PF_BOX_BZ " + std::to_string(bz) + "\n";
  l.threads = s.bx * s.by * bz;
  l.global = cl::NDRange(up(nx, s.bx), up(ny, s.by), static_cast<std::size_t>(box_blocks_z(nz, s)) * bz);
  l.local = cl::NDRange(s.bx, s.by, bz);
  return l;
}

BoxLaunchCl box_launch_cells(const pf_box3& b, const BoxShape& s) {
  BoxLaunchCl l = box_launch(b.nx, b.ny, b.nz, s);
  l.defines += box_narrow_index(b, s) ? "#define PF_BOX_INDEX int\n" : "#define PF_BOX_INDEX long\n";
  return l;
}

}  // namespace poreflow::ocl
