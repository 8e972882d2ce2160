// Prints the backend "auto" picks on this machine (cuda where a GPU is usable, else openmp): one
// call into decgpe's solvers, through the CUDA runtime where decgpe was built with one.

#include "solvers/backend_registry.hpp"

#include <cstdio>

int main() {
  std::printf("auto = %s\n", decgpe::resolve_backend("auto").c_str());
}
