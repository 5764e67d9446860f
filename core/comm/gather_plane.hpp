#pragma once
// One plane of a field cut into a decomposition's boxes, gathered on process 0: what a PNG map
// draws, without the whole field on one process (docs/mpi.md, "Output").
#include <array>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/comm/decomposition.hpp"

namespace poreflow {

// The plane `at` (local to the box) across axis `axis` (0: x, 1: y, 2: z) of a box of n cells a
// side holding `box` (x fastest, then y, then z): its values, the lower remaining axis fastest.
std::vector<double> plane_of(const std::array<long, 3>& n, int axis, long at, const std::vector<double>& box);

// The plane `at` across axis `axis` (0: x, 1: y, 2: z). `mine` holds this process's box, x fastest
// then y then z; a process whose box does not cross the plane sends nothing. On process 0 the
// plane's values, its lower remaining axis fastest (z = at: nx x ny, i fastest; y = at: nx x nz;
// x = at: ny x nz); empty elsewhere. Collective.
std::vector<double> gather_plane(const Communicator& comm, const Decomposition& dec, int axis, long at,
                                 const std::vector<double>& mine);

}  // namespace poreflow
