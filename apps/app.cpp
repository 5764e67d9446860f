#include "apps/app.hpp"
namespace poreflow::app {
int main(int, char**) { return 0; }
}
