#pragma once
// Shared by the splitting tests: a scratch folder per test and the fold count a run wrote.

#include <filesystem>
#include <gtest/gtest.h>
#include <hdf5.h>

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

class Pipeline : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("decgpe_split_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

} // namespace decgpe
