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
