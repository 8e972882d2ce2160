#pragma once
// What visualisation tools read. ψ stays in full precision as a compound {r, i} under /state and
// /snapshots, which XDMF cannot address; /viz holds what ParaView and VisIt need instead: the cell
// centres as points and, per state, the real fields density, phase, Re ψ and Im ψ, each with its
// units. The XDMF sidecar <results>.xmf names those datasets: a temporal collection over the
// snapshots and the final state, one point (a vertex cell) per cell of the grid.

#include "hdf5/hdf5_file.hpp"
#include "io/domain_output.hpp"
#include "solvers/grid.hpp"

#include <filesystem>
#include <span>
#include <string>

namespace decgpe::io {

/// /viz/points: the circumcentres of all cells (N × 3, memory order), in trap lengths a_ho; each
/// rank writes its owned cells'. Collective.
void write_viz_points(DomainOutput& out);

/// /viz/<name>/{density, phase, re_psi, im_psi} of ψ at time t (attribute t of the group), from
/// each rank's owned values of ψ. Collective.
void write_viz_fields(DomainOutput& out, const std::string& name, double t,
                      std::span<const Complex> owned);

/// The sidecar of a results file: run.h5 → run.xmf.
std::filesystem::path xdmf_path(const std::filesystem::path& results);

/// Writes the sidecar of the results file `results` from what its /viz holds (the snapshots in
/// step order, then the final state), under a temporary name renamed into place. Writes nothing
/// when /viz/points is absent. Throws std::runtime_error "cannot write output '<path>': …".
void write_xdmf(const std::filesystem::path& results);

} // namespace decgpe::io
