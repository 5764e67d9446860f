// Checkpoints when poreflow is built without HDF5: every use says so.
#include "core/base/error.hpp"
#include "core/io/checkpoint.hpp"

namespace poreflow::io {

namespace {
[[noreturn]] void unsupported() {
  throw ConfigError("built without checkpoint support (HDF5): install libhdf5-dev and rebuild to use --checkpoint-every, "
                    "--restart or a checkpoint on interruption");
}
}  // namespace

bool checkpoints_supported() { return false; }
std::string checkpoint_library() { return ""; }
std::size_t write_checkpoint(const std::filesystem::path&, const Checkpoint&) { unsupported(); }
Checkpoint read_checkpoint(const std::filesystem::path&) { unsupported(); }

}  // namespace poreflow::io
