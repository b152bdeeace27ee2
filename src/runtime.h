// The runtime's entry points called by the generated wrappers around MPI_Init, MPI_Finalize,
// MPI_Pcontrol and MPI_Abort, and the process-wide state they set up.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "clock.h"
#include "options.h"
#include "thread_state.h"

namespace cpath {

struct Runtime {
  Options opt;
  std::vector<std::string> warnings;
  int rank = 0;
  int size = 1;
  MPI_Comm tool_comm = MPI_COMM_NULL;  // PMPI duplicate of MPI_COMM_WORLD for our own traffic
  ClockPoint cal_init;                  // tick/ns calibration at MPI_Init
  int64_t inject_base_ns = 0;           // rank 0's cal_init.ns (base of test clock distortions)
  bool initialized = false;
  int thread_level = -1;
  std::string app;                      // executable name
  std::string out_dir;                  // report directory (absolute), agreed at MPI_Init; "" = none
  bool finalized = false;               // MPI_Finalize has been entered
  int64_t preinit_ns = -1;              // process start to MPI_Init entry (-1 = unknown)
  // libcpath's own work inside the application's MPI_Init, after PMPI_Init returned (the
  // tool's communicator, settings, trace store, clock measurement): the Init record ends after
  // it, so that it is MPI time, not the application's computation; start-up subtracts it.
  int64_t init_tool_ns = 0;
  bool spawned = false;                 // started by MPI_Comm_spawn: a job of its own, own report
};

Runtime& runtime();

uint64_t before_init();
void after_init(unsigned call, uint64_t t0, const void* caller, int rc, int provided);
void before_finalize(unsigned call, const void* caller);
void after_finalize();
void pcontrol(ThreadState* ts, unsigned call, int level, uint64_t t0, uint64_t t1, const void* caller, int rc);
void before_abort(int errorcode);

// The definition of name that follows libcpath's in the lookup order (dlsym(RTLD_NEXT)). A
// library without it ends the process with a line saying so rather than a jump to address 0.
void* next_symbol(const char* name);

// Whether an MPI_Init wrapper ran in this process; and the one line that says MPI was
// initialised without one (printed at most once).
bool init_seen();
void tell_init_bypassed();

// One line on stderr, prefixed "libcpath: ". Never stdout.
void note(const std::string& line);
// The same for informational lines, which option quiet=1 silences.
void info(const std::string& line);

}  // namespace cpath
