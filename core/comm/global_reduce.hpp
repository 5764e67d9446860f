#pragma once
// A reduction of a field over the whole run: this process's part on its device (the reduce
// family), then the communicator's combine of the processes' results by the same operation.
#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow {

inline double global_reduce(Backend& be, const Communicator& comm, const ReduceArgs& a) {
  const double local = be.reduce().run(a);
  switch (a.op) {
    case ReduceOp::Sum: return comm.sum(local);
    case ReduceOp::Min: return comm.min(local);
    default: return comm.max(local);  // max, max|a|, max|a - b|
  }
}

// the same over a whole field with the backend's default variant
template <class T>
double global_reduce(Backend& be, const Communicator& comm, ReduceOp op, const Field<T>& f) {
  ReduceArgs r;
  r.prec = precision_of<T>();
  r.op = op;
  r.cfg = {be.reduce().default_variant()};
  r.a = &f.buffer();
  r.n = f.size();
  return global_reduce(be, comm, r);
}

}  // namespace poreflow
