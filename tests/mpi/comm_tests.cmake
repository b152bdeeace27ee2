# Communication matrices, size histograms, start-up and placement (issue 10): known answers,
# and the differential test against the sequential reference (cpath-ref --comm).
cpath_mpi_program(comm_ring comm_ring.c)
cpath_mpi_test(NAME comm_ring_np4 TARGET comm_ring CHECKS comm_ring.py comm_differential.py LABELS communication)
cpath_mpi_test(NAME comm_ring_np5 TARGET comm_ring NP 5 OPTIONS "report=0" CHECKS comm_ring.py comm_differential.py
               NO_COMPARE LABELS communication)
cpath_mpi_program(comm_startup comm_startup.c)
cpath_mpi_test(NAME comm_startup TARGET comm_startup CHECKS comm_startup.py LABELS communication)
cpath_mpi_program(comm_placement comm_placement.c)
cpath_mpi_test(NAME comm_placement TARGET comm_placement NP 8 OPTIONS "ranks_per_node=4" CHECKS comm_placement.py
               NO_COMPARE LABELS communication)
foreach(cfg "4;31" "6;32")
  list(GET cfg 0 np)
  list(GET cfg 1 seed)
  cpath_mpi_test(NAME comm_differential_np${np}_seed${seed} TARGET cp_random_app NP ${np} OPTIONS "report=0"
                 ARGS ${seed} 40 CHECKS comm_differential.py NO_COMPARE LABELS communication)
endforeach()
