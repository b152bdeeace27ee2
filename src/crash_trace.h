// Traces of a job that ends before MPI_Finalize (option crash=, on by default): MPI_Abort, a
// fatal signal (the rank's own fault, or the SIGTERM the launcher sends the other ranks when
// one dies), or exit() without MPI_Finalize. Each rank that can still run code writes what it
// recorded to DIR/trace.<rank>.cpt, marked partial, and cpath-ref analyses what exists.
//
// The signal path is async-signal-safe: everything but the records (file name, metadata text,
// module map) is prepared at MPI_Init; at the signal only open/write/pread/close run, on
// memory already allocated, bounded by the memory cap. The application's own handlers and
// the default action still run afterwards, so exit codes and core dumps stay as they were.
#pragma once

namespace cpath {

struct Runtime;

// At MPI_Init, once the report directory is agreed: prepares the writer, installs the signal
// handlers (chaining to the ones already installed) and the exit hook.
void crash_arm(const Runtime& rt);
// In the MPI_Abort wrapper, before PMPI_Abort.
void crash_on_abort(int errorcode);
// The analysis in MPI_Finalize has taken the trace over and freed the recorded chunks: a
// crash from here on writes no trace and says why.
void crash_trace_consumed();
// The report is complete (end of MPI_Finalize's analysis): nothing to write any more.
void crash_disarm();

}  // namespace cpath
