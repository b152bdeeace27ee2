// Unit tests that need MPI (f2c conversions, PMPI_Type_size, ...) call ensure_mpi(); MPI is
// then initialised once per test binary (singleton, no mpirun) and finalised at exit.
#pragma once
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <type_traits>

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

// An MPI handle with the given bits (pointer handles in Open MPI, integers in MPICH).
template <class H>
H handle_from_bits(uint64_t bits) {
  if constexpr (std::is_pointer_v<H>)
    return reinterpret_cast<H>(static_cast<uintptr_t>(bits));
  else
    return static_cast<H>(bits);
}
inline MPI_Comm comm_from_bits(uint64_t bits) { return handle_from_bits<MPI_Comm>(bits); }

}  // namespace cpath_test
