// Kohn's theorem on every lattice and scheme (verify/kohn_dipole.hpp), for the report table: the
// dipole frequencies' errors and their orders in h and in Δt. The trap is anisotropic (λ = 2) and
// the start displaced by (1, 0, 0.5), so each run gives the x mode (at 1) and the z mode (at λ).
//
//   kohn_study OUT_DIR [--lattice NAME] [--scheme NAME] [SPACING ...]
//
// writes OUT_DIR/kohn.csv, a row per run and mode (x, z), and OUT_DIR/provenance.json. Parts:
//   space           g = 0 at each mean cell spacing, every scheme at half the leapfrog's limit
//   there;
//                   error = ω − the exact frequency, order against the next coarser spacing;
//   space_half_dt   the finest spacing again at half that Δt: ω(Δt) − ω(Δt/2) bounds the time
//                   error inside the space rows;
//   time            g = 20 (at g = 0 the exponential scheme's centre would follow the continuum's
//                   Verlet recursion alone) at the coarsest spacing, Δt = 0.8, 0.4, 0.2 of the
//                   scheme's limit: error = ω(Δt) − ω(Δt_ref), Δt_ref a sixteenth of the first
//                   (the space error cancels), order against the previous Δt, order_successive
//                   from the three Δt alone, log₂((ω₀ − ω₁)/(ω₁ − ω₂)), free of the reference's
//                   own error;
//   time_reference  the run at Δt_ref.

#include "lattices/cell_complex.hpp"
#include "verify/kohn_dipole.hpp"
#include "verify/lattice_params.hpp"
#include "verify/study_io.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

using decgpe::verify::KohnCase;
using decgpe::verify::KohnRun;

constexpr double kLambda = 2.0, kOffsetZ = 0.5;
constexpr std::array<double, 3> kDomain = {10.0, 10.0, 7.0}; ///< z: |ψ|² < 2e-8 at the faces
constexpr double kTimeG = 20.0, kLadderFraction = 0.8;
constexpr int kLadder = 3, kReferenceDivisor = 16;

struct Filter {
  std::string lattice, scheme; ///< empty: all
};

struct Row {
  const char* part;
  const KohnCase& c;
  double spacing;
  const KohnRun& run;
};

/// One line per mode: the fitted ω, what it is measured against, their difference, the orders.
void write_mode(std::ofstream& csv, const Row& r, char mode, double omega, double reference,
                double order, double order_successive) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%s,%s,%s,%g,%g,%.3f,%.8g,%.8g,%.4f,%ld,%c,%.12f,%.12f,%.6e,%.3f,%.3f\n", r.part,
                r.c.lattice.c_str(), r.c.scheme.c_str(), r.c.g, r.c.lambda, r.spacing, r.c.h,
                r.run.dt, r.run.dt / r.run.limit, r.run.steps, mode, omega, reference,
                omega - reference, order, order_successive);
  decgpe::verify::write_row(csv, line);
}

double order_between(double e_before, double e_after, double ratio) {
  return std::log(std::abs(e_before / e_after)) / std::log(ratio);
}

/// Every selected scheme at every spacing, g = 0, Δt half the leapfrog's limit; the finest again at
/// half that Δt.
void space_part(std::ofstream& csv, const std::string& lattice,
                const std::vector<std::string>& schemes, const std::vector<double>& spacings) {
  const double unit = decgpe::verify::spacing_unit(lattice);
  std::map<std::string, std::pair<double, KohnRun>> previous; // per scheme: spacing, run
  for (const double s : spacings) {
    KohnCase c{.lattice = lattice,
               .h = s / unit,
               .lambda = kLambda,
               .offset_z = kOffsetZ,
               .domain = kDomain};
    const double dt = 0.5 * decgpe::verify::kohn_limit(c);
    for (const std::string& scheme : schemes) {
      c.scheme = scheme;
      c.dt = dt;
      const KohnRun run = decgpe::verify::kohn_run(c);
      const auto before = previous.find(scheme);
      const bool first = before == previous.end();
      const double ratio = first ? 0.0 : before->second.first / s;
      const auto order = [&](double err, double err_before) {
        return first ? std::nan("") : order_between(err_before, err, ratio);
      };
      const Row row{"space", c, s, run};
      write_mode(csv, row, 'x', run.omega, 1.0,
                 order(run.omega - 1.0, first ? 0.0 : before->second.second.omega - 1.0),
                 std::nan(""));
      write_mode(
          csv, row, 'z', run.omega_z, kLambda,
          order(run.omega_z - kLambda, first ? 0.0 : before->second.second.omega_z - kLambda),
          std::nan(""));
      previous.insert_or_assign(scheme, std::pair{s, run});
      if (s == spacings.back()) {
        c.dt = 0.5 * run.dt;
        const KohnRun halved = decgpe::verify::kohn_run(c);
        const Row half{"space_half_dt", c, s, halved};
        write_mode(csv, half, 'x', halved.omega, 1.0, std::nan(""), std::nan(""));
        write_mode(csv, half, 'z', halved.omega_z, kLambda, std::nan(""), std::nan(""));
      }
    }
  }
}

/// One scheme's Δt ladder at g = 20 against its run at a sixteenth of the first Δt.
void time_part(std::ofstream& csv, const std::string& lattice, const std::string& scheme,
               double spacing) {
  KohnCase c{.lattice = lattice,
             .h = spacing / decgpe::verify::spacing_unit(lattice),
             .scheme = scheme,
             .g = kTimeG,
             .lambda = kLambda,
             .offset_z = kOffsetZ,
             .domain = kDomain,
             .dt_fraction = kLadderFraction};
  std::vector<KohnRun> ladder{decgpe::verify::kohn_run(c)};
  for (int k = 1; k < kLadder; ++k) {
    c.dt = ladder.front().dt / std::pow(2.0, k);
    ladder.push_back(decgpe::verify::kohn_run(c));
  }
  c.dt = ladder.front().dt / kReferenceDivisor;
  const KohnRun ref = decgpe::verify::kohn_run(c);
  for (int k = 0; k < kLadder; ++k) {
    const KohnRun& r = ladder[static_cast<std::size_t>(k)];
    const KohnRun* b = k > 0 ? &ladder[static_cast<std::size_t>(k - 1)] : nullptr;
    const KohnRun* bb = k > 1 ? &ladder[static_cast<std::size_t>(k - 2)] : nullptr;
    const auto orders = [&](double KohnRun::*omega) {
      const double against =
          b ? order_between(b->*omega - ref.*omega, r.*omega - ref.*omega, b->dt / r.dt)
            : std::nan("");
      const double successive =
          bb ? order_between(bb->*omega - b->*omega, b->*omega - r.*omega, b->dt / r.dt)
             : std::nan("");
      return std::pair{against, successive};
    };
    const Row row{"time", c, spacing, r};
    const auto [ox, sx] = orders(&KohnRun::omega);
    write_mode(csv, row, 'x', r.omega, ref.omega, ox, sx);
    const auto [oz, sz] = orders(&KohnRun::omega_z);
    write_mode(csv, row, 'z', r.omega_z, ref.omega_z, oz, sz);
  }
  const Row row{"time_reference", c, spacing, ref};
  write_mode(csv, row, 'x', ref.omega, ref.omega, std::nan(""), std::nan(""));
  write_mode(csv, row, 'z', ref.omega_z, ref.omega_z, std::nan(""), std::nan(""));
}

std::vector<std::string> selected_schemes(const Filter& only) {
  std::vector<std::string> schemes;
  for (const decgpe::SchemeEntry& e : decgpe::scheme_registry()) {
    if (only.scheme.empty() || only.scheme == e.name) {
      schemes.emplace_back(e.name);
    }
  }
  return schemes;
}

void write_table(const std::filesystem::path& path, const Filter& only,
                 const std::vector<double>& spacings) {
  std::ofstream csv(path);
  csv << "part,lattice,scheme,g,lambda,spacing,h,dt,dt_over_limit,steps,mode,omega,reference,"
         "error,order,order_successive\n";
  const std::vector<std::string> schemes = selected_schemes(only);
  for (const std::string_view name : decgpe::lattices::lattice_names()) {
    const std::string lattice(name);
    if (!only.lattice.empty() && only.lattice != lattice) {
      continue;
    }
    space_part(csv, lattice, schemes, spacings);
    for (const std::string& scheme : schemes) {
      time_part(csv, lattice, scheme, spacings.front());
    }
  }
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: kohn_study OUT_DIR [--lattice NAME] [--scheme NAME] [SPACING ...]\n");
    return 1;
  }
  const std::filesystem::path out = argv[1];
  Filter only;
  std::vector<double> spacings;
  for (int k = 2; k < argc; ++k) {
    if (std::strcmp(argv[k], "--lattice") == 0 && k + 1 < argc) {
      only.lattice = argv[++k];
    } else if (std::strcmp(argv[k], "--scheme") == 0 && k + 1 < argc) {
      only.scheme = argv[++k];
    } else {
      spacings.push_back(std::stod(argv[k]));
    }
  }
  if (spacings.empty()) {
    spacings = {0.5, 0.35};
  }
  std::filesystem::create_directories(out);
  write_table(out / "kohn.csv", only, spacings);
  decgpe::verify::write_study_provenance(
      out, argc, argv,
      "Kohn's theorem: the kappa = 0 harmonic state displaced by (1, 0, 0.5) in the trap lambda "
      "= 2, domain 10 x 10 x 7, one period of x (64 samples); the frequencies of <x> (against 1) "
      "and <z> (against lambda) fitted by least squares, openmp backend. Parts: space (g = 0, "
      "every scheme at half the leapfrog's limit), space_half_dt (the finest spacing at half "
      "that), time (g = 20, dt 0.8, 0.4, 0.2 of the scheme's limit against a sixteenth of the "
      "first) and time_reference");
  return 0;
}
