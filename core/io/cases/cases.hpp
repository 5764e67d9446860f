#pragma once
// Case files into model configurations: each model's keys read and validated where they are read
// (core/io/case_file.hpp), the configuration a model is built from. An impes3d case may name an
// Eclipse deck (input.deck), which gives the grid, fluid, wells, schedule and report times.
#include <memory>

#include "core/io/case_file.hpp"
#include "core/models/adi2d.hpp"
#include "core/models/bl1d.hpp"
#include "core/models/fluids3d.hpp"
#include "core/models/impes3d.hpp"

namespace poreflow {

namespace eclipse {
class Deck;
}

BL1DConfig read_bl1d_config(io::CaseFile& cf, Backend& be);
Adi2DConfig read_adi2d_config(io::CaseFile& cf, Backend& be);
Fluids3DConfig read_fluids3d_config(io::CaseFile& cf);

struct ImpesCase {
  Impes3DConfig config;
  std::shared_ptr<const eclipse::Deck> deck;  // when the input came from an Eclipse deck: its summary files
};
// The grid's memory need in prec is checked against the backend before any per-cell array is built.
// comm: a run cut between its processes checks each device for its share, and a deck is read by
// process 0 alone and sent to the others (docs/mpi.md); only process 0 holds the Deck
ImpesCase read_impes3d_case(io::CaseFile& cf, Backend& be, Precision prec, const Communicator& comm = self_communicator());

}  // namespace poreflow
