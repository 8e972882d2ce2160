#pragma once
// What visualisation tools read. ψ stays in full precision as a compound {r, i} under /state and
// /snapshots, which XDMF cannot address; /viz holds what ParaView and VisIt need instead: the cell
// centres as points, the cells themselves (polyhedra) and, per state, the real fields density,
// phase, Re ψ and Im ψ, each with its units. The XDMF sidecar <results>.xmf (XDMF 3: ParaView's
// "XDMF3 Reader", whose Mixed topology holds polyhedra) names those datasets: a temporal
// collection over the snapshots and the final state, the fields on the cells, named with their
// units ("density [a_ho^-3]"). The vortex lines
// have a sidecar of their own, <results>.lines.xmf: a temporal collection of polylines over the
// samples of /vortex_lines, so that ParaView opens both side by side.

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

/// /viz/vertices (V × 3, a_ho) and /viz/cells: the primal 3-cells that ψ's values belong to, in
/// memory order, as XDMF's Mixed topology (32-bit: a tetrahedron as type 6 and its four vertices,
/// any other cell as a polyhedron, type 16: face count, then per face its vertex count and
/// vertices, anticlockwise seen from outside), the vertices shared between cells so that ParaView
/// can interpolate between them; attribute `vertices` is V. Built from the whole domain's grid by
/// the first rank into its file alone.
void write_viz_cells(ResultsFile& file, const Grid& whole);

/// /viz/<name>/{density, phase, re_psi, im_psi} of ψ at time t (attribute t of the group), from
/// each rank's owned values of ψ. Collective.
void write_viz_fields(DomainOutput& out, const std::string& name, double t,
                      std::span<const Complex> owned);

/// The sidecar of a results file: run.h5 → run.xmf.
std::filesystem::path xdmf_path(const std::filesystem::path& results);

/// Writes the sidecar of the results file `results` from what its /viz holds (the snapshots in
/// step order, then the final state), under a temporary name renamed into place. Writes nothing
/// when /viz/cells is absent. Throws std::runtime_error "cannot write output '<path>': …".
void write_xdmf(const std::filesystem::path& results);

/// The lines' sidecar of a results file: run.h5 → run.lines.xmf.
std::filesystem::path lines_xdmf_path(const std::filesystem::path& results);

/// Writes the lines' sidecar of `results` from its /vortex_lines: per sample with lines, one
/// polyline cell per line (a closed line's first point repeated at its end) with its charge and
/// closed flag as cell data; samples without lines have no grid. When no sample has a line it
/// writes none, and removes an earlier run's. Throws as write_xdmf.
void write_lines_xdmf(const std::filesystem::path& results);

} // namespace decgpe::io
