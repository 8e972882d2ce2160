#include "cli/list_command.hpp"

#include "lattices/cell_complex.hpp"
#include "lattices/crystal.hpp"
#include "solvers/backend_registry.hpp"
#include "solvers/schemes/registry.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace decgpe::cli {

namespace {

using nlohmann::ordered_json;

int most_faces(const lattices::CellComplex& complex) {
  std::size_t most = 0;
  for (const lattices::Cell& cell : complex.cells) {
    most = std::max(most, cell.faces.size());
  }
  return static_cast<int>(most);
}

/// The mean faces a cell of the structure (the flop model's faces per update) and the shortest
/// dual edge |E*| in structure edges.
std::pair<double, double> faces_and_shortest_dual_edge(const lattices::CellComplex& complex) {
  std::size_t faces = 0;
  double shortest = std::numeric_limits<double>::infinity();
  for (const lattices::Cell& cell : complex.cells) {
    faces += cell.faces.size();
    for (const lattices::Face& f : cell.faces) {
      shortest = std::min(shortest, f.dual_length);
    }
  }
  return {static_cast<double>(faces) / static_cast<double>(complex.cells.size()), shortest};
}

/// Names, and per entry what a script or report may need to know of it.
std::pair<std::vector<std::string>, ordered_json> lattice_list(bool crystals_only) {
  std::vector<std::string> names;
  ordered_json details = ordered_json::array();
  const auto crystals = lattices::crystal_names();
  for (const std::string_view name : crystals_only ? crystals : lattices::lattice_names()) {
    const lattices::CellComplex& complex = lattices::cell_complex(name);
    const auto [faces_per_cell, shortest_dual_edge] = faces_and_shortest_dual_edge(complex);
    names.emplace_back(name);
    details.push_back({{"name", name},
                       {"crystal", std::ranges::find(crystals, name) != crystals.end()},
                       {"cells_per_structure", complex.cells_per_structure()},
                       {"most_faces", most_faces(complex)},
                       {"faces_per_cell", faces_per_cell},
                       {"shortest_dual_edge", shortest_dual_edge}});
  }
  return {names, details};
}

std::pair<std::vector<std::string>, ordered_json> scheme_list() {
  std::vector<std::string> names;
  ordered_json details = ordered_json::array();
  for (const SchemeEntry& s : scheme_registry()) {
    names.emplace_back(s.name);
    details.push_back(
        {{"name", s.name},
         {"description", s.description},
         {"order", s.order},
         {"limit_factor", std::isfinite(s.limit_factor) ? ordered_json(s.limit_factor) : nullptr},
         {"invariant", s.invariant},
         {"adaptive", s.adaptive != StepControl::fixed},
         {"damped", s.no_damped_form.empty()}});
  }
  return {names, details};
}

std::pair<std::vector<std::string>, ordered_json> backend_list() {
  std::vector<std::string> names;
  ordered_json details = ordered_json::array();
  for (const BackendEntry& b : backend_registry()) {
    const std::string why_not = b.unavailable();
    names.emplace_back(b.name);
    details.push_back({{"name", b.name},
                       {"description", b.description},
                       {"available", why_not.empty()},
                       {"unavailable_because", why_not},
                       {"runs_on_slabs", b.runs_on_slabs}});
  }
  return {names, details};
}

} // namespace

void add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "list", "Print a registry's names, one a line: the lattices (crystals: the six of the paper, "
              "without cubic4), the schemes or the backends");
  struct Options {
    std::string what;
    bool csv = false;
    bool json = false;
  };
  auto opts = std::make_shared<Options>();
  cmd->add_option("what", opts->what, "lattices, crystals, schemes or backends")
      ->required()
      ->check(CLI::IsMember({"lattices", "crystals", "schemes", "backends"}));
  auto* csv = cmd->add_flag("--csv", opts->csv, "One line, comma-separated (for --lattices=...)");
  cmd->add_flag("--json", opts->json, "Each entry with its details, as JSON")->excludes(csv);
  cmd->callback([opts] {
    const auto [names, details] = opts->what == "schemes" ? scheme_list()
                                  : opts->what == "backends"
                                      ? backend_list()
                                      : lattice_list(opts->what == "crystals");
    if (opts->json) {
      std::printf("%s\n", details.dump(2).c_str());
      return;
    }
    const std::string separator = opts->csv ? "," : "\n";
    std::string text;
    for (const std::string& name : names) {
      text += (text.empty() ? "" : separator) + name;
    }
    std::printf("%s\n", text.c_str());
  });
}

} // namespace decgpe::cli
