#pragma once
// run_batches and BatchSizes moved down to core/kernels/batches.hpp (core/linalg uses them too).
#include "core/kernels/batches.hpp"
