# CPATH_MPICH_SUBSET=1 scripts/test.sh (docs/mpich.md) runs only the tests labelled "mpich" under MPICH: those
# whose outcome depends on the MPI implementation (handle types, Fortran bindings, MPI-4
# functions, protocols and progress, launcher behaviour, symbols of the MPI library). The rest
# (unit tests, report writers, options, bench-like checks) exercise our own code the same way
# under either MPI. A quick check while developing: CI (scripts/test.sh) runs the whole suite
# under MPICH, less tests/mpich_skip.txt.
set(CPATH_MPICH_SUBSET
  # Wrappers and the standard's coverage: which functions exist, handle types, Fortran.
  coverage_standard coll_c_p2p coll_request_reuse coll_cpp_app coll_fortran_mpif coll_fortran_usempi
  coll_fortran_f08 coll_fortran_pcontrol coll_init_bypassed coll_init_bypassed_exit coll_comms coll_wildcard coll_threads coll_exit_code
  comm_ring_np4 comm_unification_mpi_test replay_mpi_test region_fortran
  # MPI-4.0 functions (compiled only where the library has them).
  mpi4_known_persistent mpi4_known_partitioned mpi4_known_isendrecv mpi4_known_isendrecv_test mpi4_known_parrived
  mpi4_known_large_count
  # Matching and the critical path on a few seeds: eager/rendezvous and progress differ.
  cp_differential_np4_seed13 cp_differential_np5_seed15 cp_differential_np8_seed18
  cp_known_late_sender cp_known_late_sender_skewed
  cp_probe_rendezvous cp_probe_rooted_bcast cp_probe_rooted_gather cp_probe_rooted_reduce cp_probe_rooted_scan cp_probe_rooted_bcast_eager cp_probe_rooted_ibcast cp_probe_mprobe_rendezvous cp_probe_improbe_imrecv cp_probe_mprobe_ssend cp_probe_rooted_bcast_small_loop cp_probe_rooted_ibcast_test cp_probe_disconnect cp_probe_out_neighbor cp_probe_eager_small cp_probe_ssend cp_probe_issend_progress cp_probe_ssend_progress cp_probe_bsend_progress cp_probe_send_32k cp_probe_poll_test cp_probe_unknown_comm
  truth_all_seed23 truth_p2p_seed6 truth_wildcard_seed7 truth_collectives_seed22
  ws_known_late_sender ws_known_late_receiver ws_known_ssend_small ws_known_eager_send ws_known_barrier
  ws_known_misarrangement ws_known_misarrangement_control ws_known_misarrangement_bsend ws_known_send_modes ws_known_nb_send_modes
  # The launcher: how it ends a failing job, how it passes the environment.
  crash_abort crash_segv crash_exit crash_abort_off install_launcher
  # Clocks under busy-polling ranks, and samples that land in the MPI library.
  clock_same_host_pingpong clock_sim_hosts_late_sender pmu_hotspots_known_answer pmu_callchain_inclusive)

# Called at the end of every directory that defines tests (a test's properties can only be set
# in its own directory).
function(cpath_label_mpich_subset)
  foreach(t IN LISTS CPATH_MPICH_SUBSET)
    if(TEST ${t})
      set_property(TEST ${t} APPEND PROPERTY LABELS mpich)
    endif()
  endforeach()
endfunction()
