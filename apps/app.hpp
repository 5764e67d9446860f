#pragma once
namespace poreflow::app {
// The whole command line; returns the exit code (apps/options.hpp). Errors become one line on stderr.
int main(int argc, char** argv);
}  // namespace poreflow::app
