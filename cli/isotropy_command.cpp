#include "cli/isotropy_command.hpp"

#include "build_info/build_info.hpp"
#include "hdf5/hdf5_file.hpp"
#include "lattices/bloch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numeric>

namespace decgpe::cli {

using io::ResultsFile;

namespace {

struct Options {
  int directions = 400;
  std::vector<double> kh = {0.1, 0.3, 0.5};
  std::string out;
};

void check(const Options& o) {
  if (o.directions < 2) {
    throw std::invalid_argument("--directions must be at least 2");
  }
  for (double kh : o.kh) {
    if (!(kh > 0.0) || !std::isfinite(kh)) {
      throw std::invalid_argument("--kh values must be finite and > 0");
    }
  }
}

/// The file for the per-direction values, with its provenance.
std::unique_ptr<ResultsFile> open_record(const std::string& out) {
  auto file = std::make_unique<ResultsFile>(out);
  file->attribute("decgpe_version", std::string(version()));
  file->attribute("git_commit", std::string(git_commit()));
  file->attribute("definition",
                  std::string("lambda0(k)/|k|^2 - 1, |k| = kh / h_eff, h_eff = (structure "
                              "volume / m_s)^(1/3): equal cell density on every lattice"));
  return file;
}

/// One line of the table: the error's mean, standard deviation and range over the directions.
void print_statistics(std::string_view lattice, double kh, const std::vector<double>& error) {
  const double mean =
      std::accumulate(error.begin(), error.end(), 0.0) / static_cast<double>(error.size());
  double var = 0.0;
  for (double e : error) {
    var += (e - mean) * (e - mean);
  }
  const double std_dev = std::sqrt(var / static_cast<double>(error.size()));
  const auto [lo, hi] = std::minmax_element(error.begin(), error.end());
  std::printf("%-6s %5.2f %12.4e %12.4e %12.4e %12.4e\n", std::string(lattice).c_str(), kh, mean,
              std_dev, *lo, *hi);
}

void run(const Options& o) {
  check(o);
  const std::unique_ptr<ResultsFile> file = o.out.empty() ? nullptr : open_record(o.out);
  const std::vector<lattices::Vec3> dirs = lattices::sphere_directions(o.directions);
  std::printf("%-6s %5s %12s %12s %12s %12s\n", "lattice", "|k|h", "mean", "std", "min", "max");
  for (std::string_view name : lattices::crystal_names()) {
    const lattices::CellComplex& c = lattices::cell_complex(name);
    const double h = lattices::effective_spacing(c);
    if (file) {
      std::vector<double> flat;
      for (const lattices::Vec3& d : dirs) {
        flat.insert(flat.end(), {d.x, d.y, d.z});
      }
      file->write("/" + std::string(name) + "/directions", flat, {dirs.size(), 3});
    }
    for (double kh : o.kh) {
      const double k = kh / h;
      std::vector<double> error;
      for (const lattices::Vec3& d : dirs) {
        error.push_back(lattices::lowest_bloch_eigenvalue(c, d * k) / (k * k) - 1.0);
      }
      print_statistics(name, kh, error);
      if (file) {
        char key[64];
        std::snprintf(key, sizeof key, "/%s/error_kh%.2f", std::string(name).c_str(), kh);
        file->write(key, error, {error.size()});
        file->attribute_of(key, "kh", kh);
      }
    }
  }
  if (file) {
    file->commit();
  }
}

} // namespace

void add_isotropy_command(CLI::App& app) {
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "isotropy", "Bloch dispersion error of every lattice over directions at equal cell density");
  cmd->add_option("--directions", o->directions, "directions on the sphere")->capture_default_str();
  cmd->add_option("--kh", o->kh, "|k| h_eff values")->delimiter(',')->capture_default_str();
  cmd->add_option("--out", o->out, "HDF5 file for the per-direction values");
  cmd->callback([o] { run(*o); });
}

} // namespace decgpe::cli
