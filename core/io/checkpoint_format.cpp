#include "core/io/checkpoint.hpp"

namespace poreflow::io {

const char* checkpoint_format_change(int format) {
  if (format == 1) return " (format 1 kept positional arrays such as 'counters' and 'dt', format 2 names every record)";
  return "";
}

}  // namespace poreflow::io
