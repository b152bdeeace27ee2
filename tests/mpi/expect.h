/* Test programs declare what they did, in the format of `cpath-read --summary`; the test
   harness (run_mpi_test.py) checks the trace against it. Writes nothing when the program
   runs without the harness. Uses only unrecorded MPI calls (MPI_Comm_rank). */
#ifndef CPATH_TEST_EXPECT_H
#define CPATH_TEST_EXPECT_H
#ifdef __cplusplus
extern "C" {
#endif

/* Appends "rank <world rank> <formatted text>" to this rank's expectation file. */
void expect_line(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/* Shorthands for the two line kinds. */
void expect_call(const char* call, long count, long bytes);
void expect_p2p(const char* kind, const char* call, const char* comm, int peer, int wpeer, int tag, long count,
                long bytes);
/* Marks this rank's expectations as partial: calls not listed are allowed. */
void expect_partial(void);

#ifdef __cplusplus
}
#endif
#endif
