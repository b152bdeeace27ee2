# Collection-layer integration tests (issue 2): real mpirun jobs under libcpath. Every program
# tallies what it calls and declares it (expect.h + coll_tally.h, or by hand in Fortran);
# run_mpi_test.py compares those declarations with `cpath-read --summary` of each rank and
# checks that the application's output and exit code are the same with and without the
# library. checks/coll_sanity.py makes sure no test passes because nothing ran.
#   ctest -L collection            all of them (the helgrind run is also labelled "slow")
#   ctest -L collection -LE slow   the quick ones

set(_coll_checks coll_sanity.py)

cpath_mpi_program(coll_c_p2p coll_c_p2p.c)
cpath_mpi_test(NAME coll_c_p2p TARGET coll_c_p2p CHECKS ${_coll_checks} coll_events.py LABELS collection)

# One request handle live several times at once (Open MPI's shared completed request).
cpath_mpi_program(coll_request_reuse coll_request_reuse.c)
cpath_mpi_test(NAME coll_request_reuse TARGET coll_request_reuse CHECKS ${_coll_checks} LABELS collection)

cpath_mpi_program(coll_cpp_app coll_cpp_app.cpp)
cpath_mpi_test(NAME coll_cpp_app TARGET coll_cpp_app CHECKS ${_coll_checks} LABELS collection)

if(CMAKE_Fortran_COMPILER)
  cpath_mpi_program(coll_fortran_mpif coll_fortran_mpif.f90)
  # mpif.h declares no interfaces: gfortran >= 10 rejects the type-mismatched buffers that
  # every mpif.h program passes unless told otherwise.
  if(CMAKE_Fortran_COMPILER_ID STREQUAL "GNU" AND CMAKE_Fortran_COMPILER_VERSION VERSION_GREATER_EQUAL 10)
    set(_coll_mpif_flags -fallow-argument-mismatch)
  endif()
  target_compile_options(coll_fortran_mpif PRIVATE ${_coll_mpif_flags})
  cpath_mpi_test(NAME coll_fortran_mpif TARGET coll_fortran_mpif CHECKS ${_coll_checks} LABELS collection)
  cpath_mpi_program(coll_fortran_usempi coll_fortran_usempi.f90)
  cpath_mpi_test(NAME coll_fortran_usempi TARGET coll_fortran_usempi CHECKS ${_coll_checks} coll_events.py
                 LABELS collection)
  cpath_mpi_program(coll_fortran_pcontrol coll_fortran_pcontrol.f90)
  target_compile_options(coll_fortran_pcontrol PRIVATE ${_coll_mpif_flags})
  cpath_mpi_test(NAME coll_fortran_pcontrol TARGET coll_fortran_pcontrol
                 CHECKS ${_coll_checks} coll_pcontrol.py LABELS collection)
endif()

# MPI initialised without any MPI_Init wrapper (PMPI_Init): one line on stderr, told at
# MPI_Finalize or, under MPICH only, at exit (src/exit_check.cpp).
cpath_mpi_program(coll_init_bypassed coll_init_bypassed.c)
cpath_mpi_test(NAME coll_init_bypassed TARGET coll_init_bypassed ARGS wrapped CHECKS coll_init_bypassed.py
               LABELS collection)
if(MPI_C_LIBRARIES MATCHES "mpich")
  cpath_mpi_test(NAME coll_init_bypassed_exit TARGET coll_init_bypassed ARGS pmpi CHECKS coll_init_bypassed.py
                 LABELS collection)
endif()

cpath_mpi_program(coll_comms coll_comms.c)
cpath_mpi_test(NAME coll_comms TARGET coll_comms CHECKS ${_coll_checks} coll_comms.py LABELS collection)

cpath_mpi_program(coll_wildcard coll_wildcard.c)
cpath_mpi_test(NAME coll_wildcard TARGET coll_wildcard CHECKS ${_coll_checks} coll_events.py LABELS collection)

cpath_mpi_program(coll_threads coll_threads.c)
target_link_libraries(coll_threads PRIVATE Threads::Threads)
cpath_mpi_test(NAME coll_threads TARGET coll_threads CHECKS ${_coll_checks} coll_threads.py coll_events.py
               LABELS collection)

cpath_mpi_program(coll_pcontrol coll_pcontrol.c)
cpath_mpi_test(NAME coll_pcontrol TARGET coll_pcontrol CHECKS ${_coll_checks} coll_pcontrol.py LABELS collection)
cpath_mpi_program(coll_pcontrol_gaps coll_pcontrol_gaps.c)
cpath_mpi_test(NAME coll_pcontrol_gaps TARGET coll_pcontrol_gaps CHECKS coll_pcontrol_gaps.py LABELS collection)

cpath_mpi_program(coll_exit_code coll_exit_code.c)
cpath_mpi_test(NAME coll_exit_code TARGET coll_exit_code EXPECT_RC 3 CHECKS ${_coll_checks} LABELS collection)

cpath_mpi_program(coll_bad_options coll_bad_options.c)
# sample=0: PMU sampling prints its own note when hardware counters are unavailable, which is
# not an option problem; checks/coll_bad_options.py counts every "libcpath:" line.
cpath_mpi_test(NAME coll_bad_options TARGET coll_bad_options OPTIONS "sample=0,mem=lots,foo=1"
               CHECKS ${_coll_checks} coll_bad_options.py LABELS collection)
cpath_mpi_test(NAME coll_bad_options_many TARGET coll_bad_options
               OPTIONS "sample=0 mem=99999999999999999999T,chunk=1K on_full=maybe,freq=0,,bogus clock=sundial"
               CHECKS ${_coll_checks} coll_bad_options.py LABELS collection)

cpath_mpi_program(coll_memcap coll_memcap.c)
cpath_mpi_test(NAME coll_memcap_spill TARGET coll_memcap OPTIONS "mem=1M,chunk=64K"
               CHECKS ${_coll_checks} coll_memcap.py LABELS collection)
# Chunks freed as they are decoded (dump=0): MALLOC_PERTURB_ fills freed memory, so a chunk
# decoded after it was freed reads as garbage instead of its old records.
cpath_mpi_test(NAME coll_memcap_spill_nodump TARGET halo_bench ARGS 16000 0 OPTIONS "mem=1M,chunk=64K,dump=0,sample=0"
               ENV MALLOC_PERTURB_=165 CHECKS coll_memcap_report.py NO_COMPARE LABELS collection)
# The same with threads (MPI_THREAD_MULTIPLE, 4 recording threads per rank): each thread's
# spilled chunks, then its chunks in memory, go back as its own stream is decoded. 2 ranks, as
# coll_threads is slow on 2 cores at 4, and spinning: yielding waiters slow its threads 2.5x.
cpath_mpi_test(NAME coll_memcap_spill_nodump_threads TARGET coll_threads NP 2 ARGS iters=3000
               OPTIONS "mem=1M,chunk=16K,dump=0,sample=0,timeline=0" ENV MALLOC_PERTURB_=165 NO_TRACE NO_COMPARE SPIN
               CHECKS coll_report_counts.py LABELS collection)
cpath_mpi_test(NAME coll_memcap_stop TARGET coll_memcap OPTIONS "mem=1M,chunk=64K,on_full=stop" ARGS stop
               CHECKS ${_coll_checks} coll_memcap.py LABELS collection)

# Data races in libcpath under MPI_THREAD_MULTIPLE: coll_threads under valgrind's helgrind,
# 2 ranks, reports filtered to races whose accessing frame is in libcpath (Open MPI's own
# internals are noisy under helgrind and are not ours). Slow; skipped without valgrind.
add_test(NAME coll_threads_helgrind
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/coll_helgrind.py
          --np 2 --lib $<TARGET_FILE:cpath> --src ${PROJECT_SOURCE_DIR} --mpirun ${MPIEXEC_EXECUTABLE}
          --workdir ${CMAKE_CURRENT_BINARY_DIR}/work/coll_threads_helgrind
          -- $<TARGET_FILE:coll_threads> quick)
set_tests_properties(coll_threads_helgrind PROPERTIES TIMEOUT 900 LABELS "mpi;collection;slow"
                     SKIP_RETURN_CODE 77 PROCESSORS 2)

# The same with every worker also calling MPI_Pcontrol(1) concurrently (legal under
# MPI_THREAD_MULTIPLE). It caught a race on a plain flag once (now only atomics carry the
# recording state).
add_test(NAME coll_threads_helgrind_pcontrol
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/coll_helgrind.py
          --np 2 --lib $<TARGET_FILE:cpath> --src ${PROJECT_SOURCE_DIR} --mpirun ${MPIEXEC_EXECUTABLE}
          --workdir ${CMAKE_CURRENT_BINARY_DIR}/work/coll_threads_helgrind_pcontrol
          -- $<TARGET_FILE:coll_threads> quick pcontrol)
set_tests_properties(coll_threads_helgrind_pcontrol PROPERTIES TIMEOUT 900 LABELS "mpi;collection;slow"
                     SKIP_RETURN_CODE 77 PROCESSORS 2)

# use mpi_f08 (Open MPI's mpi_*_f08_ and MPICH's mpi_*_f08[ts]_ symbols; built when the
# generator wrapped them).
if(CMAKE_Fortran_COMPILER AND (EXISTS ${CMAKE_BINARY_DIR}/wrappers/f08_symbols.txt OR
                               EXISTS ${CMAKE_BINARY_DIR}/wrappers/f08_next_symbols.txt))
  cpath_mpi_program(coll_fortran_f08 coll_fortran_f08.f90)
  cpath_mpi_test(NAME coll_fortran_f08 TARGET coll_fortran_f08 CHECKS coll_f08.py LABELS collection)
endif()
