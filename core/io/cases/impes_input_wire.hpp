#pragma once
// An ImpesInput as bytes and back: over several MPI processes one process reads an Eclipse deck and
// sends what it filled to the others (docs/mpi.md, impes3d's "Reading"). Every member of
// ImpesInput and of what it holds is written, in declaration order; a member added there must be
// added here (tests/test_input_wire.cpp compares a deck's input member by member).
#include <functional>
#include <span>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/models/impes3d_input.hpp"

namespace poreflow::io {

std::vector<char> pack_impes_input(const ImpesInput& in);
// Error when the bytes are not what pack_impes_input wrote (short, long, a count past their end)
ImpesInput unpack_impes_input(std::span<const char> bytes);

// Process 0 calls read and sends its input to the others, which return it (one process: read()).
// An error in read ends process 0 with its message; the others end with it (MPI_Abort).
ImpesInput share_impes_input(const Communicator& comm, const std::function<ImpesInput()>& read);

}  // namespace poreflow::io
