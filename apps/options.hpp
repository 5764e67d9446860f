#pragma once
// The command line's own rules: its exit codes, usage errors, the checks of option values (with
// messages in plain numbers: CLI11's NonNegativeNumber prints DBL_MAX as a 309-digit bound), and
// the warnings for options that cannot do what they say.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "core/base/error.hpp"

namespace poreflow::app {

// docs/reliability.md, "Exit codes"
enum ExitCode : int {
  kExitOk = 0,
  kExitError = 1,     // bad input (a case, a deck, a checkpoint), a failed run, compare or bench beyond tolerance
  kExitUsage = 2,     // the command line itself: an unknown subcommand or option, a missing or bad option value
  kExitInternal = 3,  // an error poreflow did not expect (a bug)
};

// A mistake in the command line (main exits with kExitUsage).
class UsageError : public ConfigError {
 public:
  using ConfigError::ConfigError;
};

// Option checks. Each message starts with the value; CLI11 puts "--option: " before it.
CLI::Validator int_in(long lo, long hi);  // an integer in [lo, hi]
CLI::Validator int_at_least(long lo);     // an integer >= lo
CLI::Validator number_in(double lo, double hi);
CLI::Validator positive_number();  // a finite number > 0
CLI::Validator not_empty();        // a name or path: not ''

// Throws UsageError for a word where a subcommand belongs that is not one ("poreflow frobnicate",
// "poreflow bench frobnicate"), or for a command that needs a subcommand and has none.
void check_subcommands(const CLI::App& app, int argc, char** argv);

// The message and hint for a CLI11 parse error: one line, naming the subcommand's help.
std::string usage_message(const CLI::App& app, const CLI::ParseError& e);

// Warnings for device options given to `sub` that the backends in use cannot take: --threads
// beyond the hardware's threads, or without the omp backend; --cl-device/--cl-platform without
// opencl; --device without cuda. `used`: the backends the run uses (after auto's choice).
void warn_device_options(const CLI::App& sub, int omp_threads, const std::vector<std::string>& used);

}  // namespace poreflow::app
