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
# Dynamic processes (issue 14): a job that spawns 2 children; both jobs are recorded. Open MPI
# only: under MPICH 4.0 here MPI_Comm_spawn fails even without libcpath (Hydra: "Error in spawn call").
cpath_mpi_program(dyn_spawn dyn_spawn.c)
file(STRINGS ${MPI_C_HEADER_DIR}/mpi.h _cpath_open_mpi REGEX "define OPEN_MPI ")
if(_cpath_open_mpi)
  foreach(mode exchange quiet)
    cpath_mpi_test(NAME comm_spawn_${mode} TARGET dyn_spawn NP 2 ARGS ${mode} CHECKS dyn_spawn.py LABELS comm)
  endforeach()
else()
  foreach(mode exchange quiet)
    add_test(NAME comm_spawn_${mode}
      COMMAND sh -c "echo 'SKIPPED: MPI_Comm_spawn fails under this MPICH even without libcpath (Error in spawn call); the spawn tests run under Open MPI'; exit 77")
    set_tests_properties(comm_spawn_${mode} PROPERTIES SKIP_RETURN_CODE 77 LABELS "mpi;comm")
  endforeach()
endif()
