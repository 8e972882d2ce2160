#pragma once

#include <CLI/CLI.hpp>

namespace decgpe::cli {
/// `decgpe isotropy [--directions N] [--kh a,b,…] [--out file.h5]`: the Bloch dispersion error
/// λ₀(k)/|k|² − 1 over directions on the sphere for every lattice at equal cell density.
void add_isotropy_command(CLI::App& app);
} // namespace decgpe::cli
