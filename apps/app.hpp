#pragma once
namespace poreflow::app {
// The whole command line; returns the exit code. Errors become one line on stderr and exit 1.
int main(int argc, char** argv);
}  // namespace poreflow::app
