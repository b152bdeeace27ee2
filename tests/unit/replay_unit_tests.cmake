# Unit tests of the replay (issue 8): the model on hand-built rank traces (no MPI), and the
# MPI parts (point-to-point and collective replay, the distributed walk) on 4 ranks.
#   ctest -R '^Replay|replay_mpi_test'
cpath_unit_test(replay_timeline_test replay_timeline_test.cpp)
cpath_unit_test(replay_ops_test replay_ops_test.cpp)
cpath_unit_test(replay_channels_test replay_channels_test.cpp)
cpath_unit_test(replay_send_modes_test replay_send_modes_test.cpp)
cpath_unit_test(replay_collective_test replay_collective_test.cpp)
cpath_unit_test(replay_pag_test replay_pag_test.cpp)
cpath_unit_test(replay_walk_test replay_walk_test.cpp)
cpath_unit_test(wait_states_cause_test wait_states_cause_test.cpp)

# The MPI parts: a GoogleTest binary with its own main, run on 4 ranks.
add_executable(replay_mpi_test replay_mpi_test.cpp)
target_link_libraries(replay_mpi_test PRIVATE cpath_analysis cpath_replay cpath_report cpath_core GTest::gtest cpath_warnings)
set(_replay_mpiexec_flags "")
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _replay_mpiexec_version ERROR_QUIET)
if(_replay_mpiexec_version MATCHES "Open MPI|OpenRTE")
  set(_replay_mpiexec_flags --oversubscribe --allow-run-as-root)
endif()
add_test(NAME replay_mpi_test
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 ${_replay_mpiexec_flags} ${MPIEXEC_PREFLAGS}
                 $<TARGET_FILE:replay_mpi_test> ${MPIEXEC_POSTFLAGS})
set_tests_properties(replay_mpi_test PROPERTIES TIMEOUT 120 PROCESSORS 2 LABELS "unit;mpi")
