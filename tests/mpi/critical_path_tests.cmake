# Critical-path tests (issue 3): differential test against the sequential reference on random
# programs, known-answer workloads, clock-skew injection.
cpath_mpi_program(cp_random_app cp_random_app.c)
foreach(cfg "2;11" "3;12" "4;13" "4;14" "5;15" "6;16" "7;17" "8;18" "8;19" "4;20")
  list(GET cfg 0 np)
  list(GET cfg 1 seed)
  cpath_mpi_test(NAME cp_differential_np${np}_seed${seed} TARGET cp_random_app NP ${np}
                 OPTIONS "path=1,report=0,matches=1" ARGS ${seed} 40 CHECKS cp_differential.py cp_matches.py NO_COMPARE
                 LABELS critical_path)
endforeach()

# The pointer-jumping walk against the sequential walk on the same programs (walk=check runs
# both in one job): identical segments, in the same order, on every rank.
foreach(cfg "4;13" "7;17" "8;19")
  list(GET cfg 0 np)
  list(GET cfg 1 seed)
  cpath_mpi_test(NAME cp_walk_check_np${np}_seed${seed} TARGET cp_random_app NP ${np}
                 OPTIONS "path=1,report=0,walk=check" ARGS ${seed} 40 CHECKS cp_walk_check.py NO_COMPARE
                 LABELS critical_path)
endforeach()

cpath_mpi_program(cp_known cp_known.c)
cpath_mpi_test(NAME cp_known_imbalance TARGET cp_known ARGS imbalance OPTIONS "path=1" CHECKS cp_imbalance.py
               LABELS critical_path)
cpath_mpi_test(NAME cp_known_pipeline TARGET cp_known ARGS pipeline OPTIONS "path=1" CHECKS cp_pipeline.py
               LABELS critical_path)
cpath_mpi_test(NAME cp_known_late_sender TARGET cp_known ARGS late_sender OPTIONS "path=1" CHECKS cp_late_sender.py
               LABELS critical_path)
# Clock alignment: the same known answers with every rank's clock shifted by rank x 3 ms and
# drifting by 200 ppm (alternating directions).
cpath_mpi_test(NAME cp_known_late_sender_skewed TARGET cp_known ARGS late_sender
               OPTIONS "path=1,skew_ns=3000000,drift_ppm=200" CHECKS cp_late_sender.py cp_skew.py
               LABELS critical_path)
cpath_mpi_test(NAME cp_known_imbalance_skewed TARGET cp_known ARGS imbalance
               OPTIONS "path=1,skew_ns=3000000,drift_ppm=200" CHECKS cp_imbalance.py cp_skew.py
               LABELS critical_path)
cpath_mpi_test(NAME cp_differential_skewed TARGET cp_random_app NP 5 ARGS 21 40
               OPTIONS "path=1,report=0,matches=1,skew_ns=2000000,drift_ppm=100" CHECKS cp_differential.py cp_matches.py NO_COMPARE
               LABELS critical_path)
# Collectives on windows and files run on the communicator they were created on.
cpath_mpi_test(NAME cp_known_win_fence TARGET cp_known ARGS fence OPTIONS "path=1" CHECKS cp_rank1_waited_for.py
               LABELS critical_path)
cpath_mpi_test(NAME cp_known_file_io TARGET cp_known ARGS fileio OPTIONS "path=1" CHECKS cp_rank1_waited_for.py
               LABELS critical_path)
# Probes of docs/pag-rules.md: known answers by construction (checks/cp_probes.py), each false
# if the rule it probes were wrong: unknown communicators counted, neighbourhood collectives
# with their real neighbours, polling loops, send modes, threads, collectives after a pause.
# Each is also a differential test: the reference must find the same path on the same traces
# (the random programs have no neighbourhood collectives, Iprobe loops, pauses or threads).
cpath_mpi_program(cp_probe cp_probe.c)
target_link_libraries(cp_probe PRIVATE Threads::Threads)
foreach(mode unknown_comm neighbor_cart neighbor_icart neighbor_dist poll_test poll_testall poll_iprobe poll_control
        bsend ssend rendezvous eager_small threads pause)
  cpath_mpi_test(NAME cp_probe_${mode} TARGET cp_probe ARGS ${mode} OPTIONS "path=1" CHECKS cp_probes.py cp_differential.py NO_COMPARE
                 LABELS critical_path)
endforeach()
cpath_mpi_test(NAME cp_probe_eager_option TARGET cp_probe ARGS eager_option OPTIONS "path=1,eager=2M"
               CHECKS cp_probes.py cp_differential.py NO_COMPARE LABELS critical_path)
# The reference must stay independent of the analysis it checks (tools/cpath-ref/ref.h).
set(_ref_dir ${PROJECT_SOURCE_DIR}/tools/cpath-ref)
add_test(NAME cpath_ref_independent
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/checks/ref_independent.py
          --sources ${_ref_dir}/ref.h ${_ref_dir}/clocks.cpp ${_ref_dir}/collectives.cpp ${_ref_dir}/load.cpp
                    ${_ref_dir}/main.cpp ${_ref_dir}/matching.cpp ${_ref_dir}/pag_walk.cpp ${_ref_dir}/requests.cpp
                    ${_ref_dir}/timeline.cpp
          --objects $<TARGET_OBJECTS:cpath_ref_pag>
          --libs $<TARGET_FILE:cpath_replay> $<TARGET_FILE:cpath_analysis>
  COMMAND_EXPAND_LISTS)
set_tests_properties(cpath_ref_independent PROPERTIES LABELS critical_path)
