# Critical-path tests (issue 3): differential test against the sequential reference on random
# programs, known-answer workloads, clock-skew injection.
cpath_mpi_program(cp_random_app cp_random_app.c)
# 12 ranks: above 8 ranks the what-if walks its scenarios' new paths in shared rounds whatever
# the trace's size (below, only when their tables are small, as in these programs).
foreach(cfg "2;11" "3;12" "4;13" "4;14" "5;15" "6;16" "7;17" "8;18" "8;19" "4;20" "12;22")
  list(GET cfg 0 np)
  list(GET cfg 1 seed)
  cpath_mpi_test(NAME cp_differential_np${np}_seed${seed} TARGET cp_random_app NP ${np}
                 OPTIONS "path=1,report=0,matches=1" ARGS ${seed} 40 CHECKS cp_differential.py cp_matches.py cp_whatif_diff.py ws_differential.py coll_beyond.py NO_COMPARE
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
               OPTIONS "path=1,report=0,matches=1,skew_ns=2000000,drift_ppm=100" CHECKS cp_differential.py cp_matches.py cp_whatif_diff.py ws_differential.py coll_beyond.py NO_COMPARE
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
foreach(mode init_gap thread_first_call grequest_thread unknown_comm neighbor_cart neighbor_icart neighbor_dist poll_test poll_testall poll_iprobe poll_control poll_chunks poll_count poll_cycle poll_desched
        poll_held poll_two poll_self poll_testany_work poll_test_work poll_self_progress poll_reuse bsend bsend_worker ssend rendezvous send_32k send_1k send_1k_probe send_1k_posted rsend_1k_posted issend_progress ssend_progress bsend_progress eager_small free_eager leak free_rendezvous
        intercomm_coll intercomm_create create_group rooted_bcast rooted_gather rooted_reduce rooted_scan
        rooted_bcast_eager rooted_ibcast mprobe_rendezvous improbe_imrecv mprobe_ssend disconnect disconnect_paused win_set_info persistent_small win_order out_neighbor bsend_detach bsend_detach_eager ibsend_detach
        nbc_progress nbc_progress_ibarrier nbc_progress_ireduce nbc_progress_two nbc_progress_early
        nbc_progress_overlap nbc_progress_bcast nbc_progress_irecv nbc_progress_send nbc_progress_ipost nbc_progress_poll_early
        rooted_bcast_small_loop rooted_ibcast_test)
  cpath_mpi_test(NAME cp_probe_${mode} TARGET cp_probe ARGS ${mode} OPTIONS "path=1" CHECKS cp_probes.py cp_differential.py ws_differential.py coll_beyond.py NO_COMPARE
                 LABELS critical_path)
endforeach()
# A polling loop starts at its first poll after the last stretch of the program's own work:
# probes left over from the previous exchange do not start it (docs/pag-rules.md rule 5).
cpath_mpi_test(NAME cp_probe_poll_gap TARGET cp_probe ARGS poll_gap OPTIONS "path=1,whatif=rank1:0.5"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# A member that waited beyond its rooted pattern (the root of a 4 MiB broadcast for a late
# receiver, a gather's member for a late root) waits for its measured partner in the re-timing
# too: removing the late rank's 60 ms gains them, as the reference finds.
# A non-blocking collective's member that computed after its post held the others' waits: in
# the re-timing too, removing its 80 ms gains them (as the reference finds).
# A scan member that completed before a higher member posted (which waited for it): the
# re-timing answers each member once the lower ones came, as the pattern says, instead of
# stalling; it agrees with the reference.
cpath_mpi_test(NAME cp_probe_scan_early TARGET cp_probe ARGS scan_early OPTIONS "path=1,whatif_stall=5"
               CHECKS cp_probes.py cp_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
cpath_mpi_test(NAME cp_probe_nbc_progress_whatif TARGET cp_probe ARGS nbc_progress OPTIONS "path=1,whatif=rank2:0"
               CHECKS cp_probes.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
cpath_mpi_test(NAME cp_probe_rooted_bcast_whatif TARGET cp_probe ARGS rooted_bcast OPTIONS "path=1,whatif=rank1:0"
               CHECKS cp_probes.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
cpath_mpi_test(NAME cp_probe_rooted_gather_whatif TARGET cp_probe ARGS rooted_gather OPTIONS "path=1,whatif=rank0:0"
               CHECKS cp_probes.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# A polling loop whose partner a scenario makes early (rank 1's 60 ms removed): the re-timed loop
# ends before the completing MPI_Test's new begin, and the new path goes through the loop from
# its first poll, as the reference's does, adding up to the new run time without negative time.
cpath_mpi_test(NAME cp_probe_poll_test_whatif TARGET cp_probe ARGS poll_test OPTIONS "path=1,whatif=rank1:0"
               CHECKS cp_probes.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# Threads that overlap in the timeline: the what-if keeps every 16th new begin of each thread
# (a lane per thread, as a single thread's chain), and its results must still be the reference's.
cpath_mpi_test(NAME cp_probe_threads TARGET cp_probe ARGS threads OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# Two threads waiting on one channel at once: counted as approximated (docs/pag-rules.md rule 6),
# the known path, no violation on one clock, and the reference's path. Which receive MPI queued
# first cannot be forced, so this passes with posting order too whenever the stamps agreed with
# MPI's queue; the reordering itself is held by ReplayChannels.ReceivesThreadsRacedFor....
cpath_mpi_test(NAME cp_probe_persistent_bsend TARGET cp_probe ARGS persistent_bsend OPTIONS "path=1,matches=1"
               CHECKS cp_probes.py cp_differential.py NO_COMPARE LABELS critical_path)
# A rank's message to itself across threads: the other thread's send is the receive's partner
# (rule 2), in the product and in the reference.
cpath_mpi_test(NAME cp_probe_self_thread TARGET cp_probe ARGS self_thread OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# Threads computing at once count once in a rank's compute (the what-if's balance scenario).
cpath_mpi_test(NAME cp_probe_thread_balance TARGET cp_probe ARGS thread_balance OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
cpath_mpi_test(NAME cp_probe_thread_race TARGET cp_probe ARGS thread_race OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# Rooted collectives on an intercommunicator (MPI_ROOT, MPI_PROC_NULL, a root in the other
# group): paired over both groups; the what-if keeps their measured partner, as the reference does.
cpath_mpi_test(NAME cp_probe_intercomm_rooted TARGET cp_probe ARGS intercomm_rooted OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE
               LABELS critical_path)
# The intercommunicator's message is also in the communication matrix (the reference's twin).
cpath_mpi_test(NAME cp_probe_intercomm TARGET cp_probe ARGS intercomm OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py comm_differential.py NO_COMPARE LABELS critical_path)
# The pause probe also compares the what-if with the reference: its incomplete collectives keep
# their measured latest member as the only dependency (docs/what-if.md, Limits); with the
# member itself as that member, the ideal-network scenario differs from waiting for every member
# that recorded it.
cpath_mpi_test(NAME cp_probe_pause TARGET cp_probe ARGS pause OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# Zero-count collectives (rule 4, members that move no data): the what-if keeps their measured
# partner only, as the reference does.
cpath_mpi_test(NAME cp_probe_zero_count TARGET cp_probe ARGS zero_count OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE LABELS critical_path)
# Collectives the MPI library does not synchronise (Open MPI's split collective I/O): a member
# that ended before the latest member began waits only for those that came before (rule 4).
cpath_mpi_test(NAME cp_probe_split_io TARGET cp_probe ARGS split_io OPTIONS "path=1"
               CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py clock_unsync.py NO_COMPARE
               LABELS critical_path)
cpath_mpi_test(NAME cp_probe_eager_option TARGET cp_probe ARGS eager_option OPTIONS "path=1,eager=2M"
               CHECKS cp_probes.py cp_differential.py ws_differential.py NO_COMPARE LABELS critical_path)
# General active-target synchronisation (rule 10): post -> start and complete -> wait (or a
# MPI_Win_test loop) are messages, which are not the program's: the communication matrix has no
# row for them (cp_probes.py).
foreach(mode pscw pscw_test pscw_progress pscw_subcomm pscw_pair)
  cpath_mpi_test(NAME cp_probe_${mode} TARGET cp_probe ARGS ${mode} OPTIONS "path=1"
                 CHECKS cp_probes.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE
                 LABELS critical_path)
endforeach()
# The reference must stay independent of the analysis it checks (tools/cpath-ref/ref.h).
set(_ref_dir ${PROJECT_SOURCE_DIR}/tools/cpath-ref)
add_test(NAME cpath_ref_independent
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/checks/ref_independent.py
          --sources ${_ref_dir}/ref.h ${_ref_dir}/clocks.cpp ${_ref_dir}/collectives.cpp ${_ref_dir}/load.cpp
                    ${_ref_dir}/main.cpp ${_ref_dir}/matching.cpp ${_ref_dir}/pag_walk.cpp ${_ref_dir}/requests.cpp
                    ${_ref_dir}/timeline.cpp ${_ref_dir}/what_if.cpp
          --objects $<TARGET_OBJECTS:cpath_ref_pag>
          --libs $<TARGET_FILE:cpath_replay> $<TARGET_FILE:cpath_analysis>
  COMMAND_EXPAND_LISTS)
set_tests_properties(cpath_ref_independent PROPERTIES LABELS critical_path)
# What if (issue 13, docs/what-if.md): known gains on the known-answer programs.
cpath_mpi_test(NAME cp_whatif_imbalance TARGET cp_known ARGS imbalance
               OPTIONS "path=1,whatif=rank2:0.0833333,rank0:0.5,rank1:0.5,rank3:0.5" CHECKS cp_whatif_imbalance.py cp_whatif_diff.py
               LABELS critical_path)
cpath_mpi_test(NAME cp_whatif_pipeline TARGET cp_known ARGS pipeline
               OPTIONS "path=1,whatif=rank1:0,rank1+rank2:0" CHECKS cp_whatif_pipeline.py cp_whatif_diff.py
               LABELS critical_path)
cpath_mpi_test(NAME cp_whatif_late_sender TARGET cp_known ARGS late_sender
               OPTIONS "path=1,whatif=rank1:0" CHECKS cp_whatif_late_sender.py cp_whatif_diff.py
               LABELS critical_path)
# MPI-4.0 calls (issue 14), known answers: built where the MPI library has MPI-4.0 (MPICH 4.0);
# elsewhere the tests are skipped with the reason.
foreach(mode persistent partitioned partitioned_wait partitioned_late_recv isendrecv isendrecv_test parrived large_count)
  if(MPI_C_VERSION_MAJOR GREATER_EQUAL 4)
    if(NOT TARGET mpi4_known)
      cpath_mpi_program(mpi4_known mpi4_known.c)
    endif()
    # The partitioned_* modes print how long the MPI made a rank wait: no output comparison.
    set(_compare "")
    if(mode MATCHES "^partitioned_")
      set(_compare NO_COMPARE)
    endif()
    cpath_mpi_test(NAME mpi4_known_${mode} TARGET mpi4_known ARGS ${mode} OPTIONS "path=1" CHECKS mpi4_known.py
                   ${_compare} LABELS critical_path)
  else()
    add_test(NAME mpi4_known_${mode}
      COMMAND sh -c "echo 'SKIPPED: this MPI library is MPI-${MPI_C_VERSION}: the MPI-4.0 calls need e.g. MPICH 4.0 (docs/mpich.md)'; exit 77")
    set_tests_properties(mpi4_known_${mode} PROPERTIES SKIP_RETURN_CODE 77 LABELS "mpi;critical_path")
  endif()
endforeach()
# Persistent collectives started in different orders (MPICH's coll/p_order): paired by init, as
# MPI-4 pairs them (by start order the what-if re-timing met a cycle and once hung in
# MPI_Finalize; the guard against a cycle itself: ReplayMpi.ForwardPassGivesUpOnACycle).
if(MPI_C_VERSION_MAJOR GREATER_EQUAL 4)
  cpath_mpi_test(NAME mpi4_persistent_order TARGET mpi4_known ARGS persistent_order OPTIONS "path=1,whatif_stall=3"
                 CHECKS mpi4_known.py mpi4_order.py cp_differential.py ws_differential.py cp_whatif_diff.py NO_COMPARE
                 LABELS critical_path)
endif()
# Partitions marked ready by threads while another thread waits for the request (MPI-4 usage;
# the MPI_Pready calls begin inside that MPI_Wait).
if(MPI_C_VERSION_MAJOR GREATER_EQUAL 4)
  cpath_mpi_program(mpi4_pready_threads mpi4_pready_threads.c)
  target_link_libraries(mpi4_pready_threads PRIVATE Threads::Threads)
  cpath_mpi_test(NAME mpi4_pready_threads TARGET mpi4_pready_threads NP 2 OPTIONS "path=1" CHECKS mpi4_known.py cp_differential.py
                 LABELS critical_path)
endif()
# Call sites through a library (skip=, issue 14): the program calls MPI only through libmylib.so.
add_library(mylib SHARED callpath_mylib.c)
target_link_libraries(mylib PRIVATE MPI::MPI_C)
target_compile_options(mylib PRIVATE -g -O1 -fno-omit-frame-pointer)
cpath_mpi_program(callpath_app callpath_app.c)
target_link_libraries(callpath_app PRIVATE mylib)
cpath_mpi_test(NAME cp_callpath_skip TARGET callpath_app ARGS skip OPTIONS "stack=4,skip=libmylib.so"
               CHECKS callpath_skip.py LABELS critical_path)
cpath_mpi_test(NAME cp_callpath_noskip TARGET callpath_app ARGS noskip CHECKS callpath_skip.py LABELS critical_path)
# stack= alone records call paths (innermost frame the library's line, then the application's).
cpath_mpi_test(NAME cp_callpath_stack_only TARGET callpath_app ARGS noskip OPTIONS "stack=4"
               CHECKS callpath_skip.py callpath_stack_only.py LABELS critical_path)
# Call paths grouped (known answer: 0.6 s and 0.2 s of compute before one library call reached
# from two lines), and the stack=1 control where both are the library's line.
cpath_mpi_test(NAME cp_callpath_paths TARGET callpath_app ARGS paths OPTIONS "stack=4"
               CHECKS callpath_paths.py LABELS critical_path)
cpath_mpi_test(NAME cp_callpath_paths_stack1 TARGET callpath_app ARGS paths-stack1
               CHECKS callpath_paths.py LABELS critical_path)
# The sequential reference reads the CALLPATHS section: same path and the same what-if
# results and new paths, activities keyed by call path.
cpath_mpi_test(NAME cp_callpath_paths_differential TARGET callpath_app ARGS paths OPTIONS "stack=4,path=1"
               CHECKS callpath_paths.py cp_differential.py cp_whatif_diff.py LABELS critical_path)
# Wait states (issue 9): one known-answer program per pattern and its control
# (tests/mpi/ws_known.c, checks/ws_known.py); eager vs rendezvous sends of the same mode; POP
# factors of a run built to have 50% load balance.
cpath_mpi_program(ws_known ws_known.c)
foreach(mode late_sender late_receiver ssend_small barrier allreduce bcast reduce scan waitall iallreduce test_wait
             wrong_order wrong_order_nb nxn_completion close_pair misarrangement misarrangement_bsend
             send_modes nb_send_modes barrier_completion)
  # The send-mode programs split D into delays down to D/3; under MPICH's busy-polling ranks a
  # 100 ms delay was once measured 112 ms (scheduler slices, not the analysis): D = 600 keeps the
  # 10 % tolerance above that noise.
  set(d 300)
  if(mode MATCHES "send_modes")
    set(d 600)
  endif()
  cpath_mpi_test(NAME ws_known_${mode} TARGET ws_known ARGS ${mode} ${d} OPTIONS "path=1" CHECKS ws_known.py ws_differential.py NO_COMPARE
                 LABELS wait_states)
  cpath_mpi_test(NAME ws_known_${mode}_control TARGET ws_known ARGS ${mode}_control ${d} OPTIONS "path=1" CHECKS ws_known.py ws_differential.py NO_COMPARE
                 LABELS wait_states)
endforeach()
cpath_mpi_test(NAME ws_known_eager_send TARGET ws_known ARGS eager_send 300 OPTIONS "path=1" CHECKS ws_known.py ws_differential.py NO_COMPARE
               LABELS wait_states)
# Root causes follow what the calls did: rank np-1 late by D with a blocking call between that
# returned at once (no wait, so no chain to propagate through), and a real chain of waits.
foreach(mode root_cause_send root_cause_test root_cause_wait_null root_cause_iprobe root_cause_sendrecv_self root_cause_chain)
  cpath_mpi_test(NAME ws_known_${mode} TARGET ws_known NP 4 ARGS ${mode} 300 OPTIONS "path=1" CHECKS ws_known.py ws_differential.py NO_COMPARE
                 LABELS wait_states)
endforeach()
cpath_mpi_test(NAME ws_known_pop TARGET ws_known NP 4 ARGS pop 300 OPTIONS "path=1" CHECKS ws_known.py ws_differential.py NO_COMPARE LABELS wait_states)
# A pipeline: serialisation 1/np from the re-timed ideal run (free transfers still chain the stages).
cpath_mpi_test(NAME ws_known_pop_pipeline TARGET ws_known NP 4 ARGS pop_pipeline 200 OPTIONS "path=1" CHECKS ws_known.py ws_differential.py NO_COMPARE LABELS wait_states)
# Rule 2 across threads: a request handle freed by one thread's MPI_Wait and handed to another
# thread's MPI_Irecv that began earlier (the program holds that call inside PMPI_Irecv).
cpath_mpi_program(cp_handle_reuse cp_handle_reuse.c)
target_link_libraries(cp_handle_reuse PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
set_target_properties(cp_handle_reuse PROPERTIES ENABLE_EXPORTS ON)
cpath_mpi_test(NAME cp_handle_reuse TARGET cp_handle_reuse NP 2 OPTIONS "path=1"
               CHECKS cp_handle_reuse.py cp_differential.py ws_differential.py NO_COMPARE LABELS critical_path)
