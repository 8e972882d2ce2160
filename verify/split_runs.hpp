#pragma once
// Shared by the splitting tests: a scratch folder per test, the fold count a run wrote, and the
// growth rate of an azimuthal mode in its host probes.

#include "hdf5/hdf5_file.hpp"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

namespace decgpe {

namespace fs = std::filesystem;

inline double fold_of(const fs::path& file) {
  const hid_t f = H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t set = H5Dopen2(f, "/analysis/azimuthal_amplitude", H5P_DEFAULT);
  const hid_t attr = H5Aopen(set, "fold", H5P_DEFAULT);
  double fold = 0.0;
  H5Aread(attr, H5T_NATIVE_DOUBLE, &fold);
  H5Aclose(attr);
  H5Dclose(set);
  H5Fclose(f);
  return fold;
}

struct Growth {
  double rate;       ///< σ of |c_m| ∝ e^{σt}
  double r_squared;  ///< of that fit
  double log_middle; ///< the fit's ln|c_m| at the window's middle
};

/// Least squares of ln|c_m| against t over the host probes in [from, to] (time.spectrum_every).
inline Growth fit_growth(const fs::path& file, int m, double from, double to) {
  const io::InputFile f(file);
  const std::vector<double> t = f.doubles("/analysis/history/t");
  const std::vector<double> c = f.matrix("/analysis/history/azimuthal_amplitude");
  const std::size_t columns = c.size() / t.size();
  std::vector<double> x, y;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (t[k] >= from && t[k] <= to) {
      x.push_back(t[k] - 0.5 * (from + to));
      y.push_back(std::log(c[k * columns + static_cast<std::size_t>(m)]));
    }
  }
  const auto n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    sx += x[k];
    sy += y[k];
    sxx += x[k] * x[k];
    sxy += x[k] * y[k];
    syy += y[k] * y[k];
  }
  const double rate = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double mean = sy / n;
  const double explained = rate * (sxy - sx * sy / n);
  return {rate, explained / (syy - n * mean * mean), mean - rate * sx / n};
}

class Pipeline : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("decgpe_split_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(getpid())); // private to this process
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

} // namespace decgpe
