#pragma once
// One exception hierarchy for the whole program. main() turns any of them into a
// one-line message and a non-zero exit; nothing else catches them silently.
#include <stdexcept>
#include <string>

namespace poreflow {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad user input: an option, a case key or value, a file that does not exist.
class ConfigError : public Error {
 public:
  using Error::Error;
};

// A device API call failed, or a backend cannot do what was asked.
class BackendError : public Error {
 public:
  using Error::Error;
};

// The backend exists in poreflow but was not built into this binary.
class NotCompiled : public BackendError {
 public:
  using BackendError::BackendError;
};

// NaN, divergence, a solver that did not converge.
class NumericalError : public Error {
 public:
  using Error::Error;
};

// "what (at file:line)" for errors raised by the CHECK macros.
std::string where(const char* what, const char* file, int line);

}  // namespace poreflow

#define PF_THROW(Type, msg) throw Type(::poreflow::where((msg), __FILE__, __LINE__))
