// Unit tests that need MPI (f2c conversions, PMPI_Type_size, ...) call ensure_mpi(); MPI is
// then initialised once per test binary (singleton, no mpirun) and finalised at exit.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

namespace cpath_test {

class MpiEnv : public ::testing::Environment {
 public:
  void TearDown() override {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (init && !fin) MPI_Finalize();
  }
};

inline ::testing::Environment* const g_mpi_env = ::testing::AddGlobalTestEnvironment(new MpiEnv);

inline void ensure_mpi() {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) MPI_Init(nullptr, nullptr);
}

}  // namespace cpath_test
