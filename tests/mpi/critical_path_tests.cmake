# Critical-path tests (issue 3): differential test against the sequential reference on random
# programs, known-answer workloads, clock-skew injection.
cpath_mpi_program(cp_random_app cp_random_app.c)
foreach(cfg "2;11" "3;12" "4;13" "4;14" "5;15" "6;16" "7;17" "8;18" "8;19" "4;20")
  list(GET cfg 0 np)
  list(GET cfg 1 seed)
  cpath_mpi_test(NAME cp_differential_np${np}_seed${seed} TARGET cp_random_app NP ${np}
                 OPTIONS "path=1,report=0" ARGS ${seed} 40 CHECKS cp_differential.py NO_COMPARE
                 LABELS critical_path)
endforeach()
