# Crash-time traces (issue 16): MPI_Abort on one rank, SIGSEGV on one rank, exit without
# MPI_Finalize; each leaves every rank's trace, cpath-ref reads them into a partial result, and
# the application's exit code is unchanged. crash=0 writes nothing but says why.
cpath_mpi_program(crash_app crash_app.c)
foreach(how abort segv exit)
  add_test(NAME crash_${how}
    COMMAND ${Python3_EXECUTABLE} ${CPATH_MPI_TEST_DIR}/run_crash_test.py --lib $<TARGET_FILE:cpath>
            --bin $<TARGET_FILE_DIR:cpath-ref> --mpirun ${MPIEXEC_EXECUTABLE}
            --workdir ${CMAKE_CURRENT_BINARY_DIR}/work/crash_${how} --how ${how})
  set_tests_properties(crash_${how} PROPERTIES TIMEOUT 300 LABELS "mpi;robust" PROCESSORS 2)
endforeach()
add_test(NAME crash_abort_off
  COMMAND ${Python3_EXECUTABLE} ${CPATH_MPI_TEST_DIR}/run_crash_test.py --lib $<TARGET_FILE:cpath>
          --bin $<TARGET_FILE_DIR:cpath-ref> --mpirun ${MPIEXEC_EXECUTABLE}
          --workdir ${CMAKE_CURRENT_BINARY_DIR}/work/crash_abort_off --how abort --options crash=0)
set_tests_properties(crash_abort_off PROPERTIES TIMEOUT 300 LABELS "mpi;robust" PROCESSORS 2)

# Report directories, spill directory and random options (issue 16): tests/mpi/run_robust_test.py.
foreach(case out_existing out_unwritable out_file spill_dir harness eager_cache fuzz)
  add_test(NAME robust_${case}
    COMMAND ${Python3_EXECUTABLE} ${CPATH_MPI_TEST_DIR}/run_robust_test.py ${case} --lib $<TARGET_FILE:cpath>
            --bin $<TARGET_FILE_DIR:cpath-ref> --mpirun ${MPIEXEC_EXECUTABLE}
            --workdir ${CMAKE_CURRENT_BINARY_DIR}/work/robust_${case})
  set_tests_properties(robust_${case} PROPERTIES TIMEOUT 1100 LABELS "mpi;robust" PROCESSORS 2)
endforeach()
