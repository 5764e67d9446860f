#include "apps/app.hpp"

int main(int argc, char** argv) { return poreflow::app::main(argc, argv); }
