# PMU sampling end to end (issue 4): hotspots on the critical path vs plain hotspots.
cpath_mpi_program(pmu_hotspots_app pmu_hotspots_app.c)
cpath_mpi_test(NAME pmu_hotspots_known_answer TARGET pmu_hotspots_app CHECKS pmu_hotspots.py report_sampling.py LABELS pmu)
# Inclusive time from call chains (callchain=1, issue 14).
cpath_mpi_program(pmu_callchain_app pmu_callchain_app.c)
cpath_mpi_test(NAME pmu_callchain_inclusive TARGET pmu_callchain_app OPTIONS "callchain=1" CHECKS pmu_callchain.py
               LABELS pmu)

# Sampling rate limits (issue 16): period=1 / period=1000 of software cpu-clock used to stall
# jobs; freq above the maximum is clamped.
cpath_mpi_test(NAME pmu_period_1 TARGET pmu_hotspots_app OPTIONS "period=1,top=1000" TIMEOUT 120
               CHECKS pmu_rate_limit.py LABELS pmu)
cpath_mpi_test(NAME pmu_period_1000 TARGET pmu_hotspots_app OPTIONS "period=1000,top=1000" TIMEOUT 120
               CHECKS pmu_rate_limit.py LABELS pmu)
cpath_mpi_test(NAME pmu_freq_too_high TARGET pmu_hotspots_app OPTIONS "freq=1000000,top=1000" TIMEOUT 120
               CHECKS pmu_rate_limit.py LABELS pmu)

# A thread that blocks SIGPROF cannot be sampled by the CPU-time timer: the report names the CPU
# time no sample stands for (the worker's own CPU clock is the truth), and not for a worker
# with signals open.
cpath_mpi_program(pmu_blocked_thread pmu_blocked_thread.c)
target_link_libraries(pmu_blocked_thread PRIVATE Threads::Threads)
cpath_mpi_test(NAME pmu_blocked_thread TARGET pmu_blocked_thread NP 2 CHECKS pmu_blocked_thread.py LABELS pmu)
cpath_mpi_test(NAME pmu_blocked_thread_open TARGET pmu_blocked_thread NP 2 ARGS open CHECKS pmu_blocked_thread.py
               LABELS pmu)

# A plugin dlclose'd before MPI_Finalize keeps its samples' names (pmu/dl_hook.cpp).
foreach(p a b)
  add_library(pmu_plugin_${p} MODULE pmu_plugin.c)
  target_compile_definitions(pmu_plugin_${p} PRIVATE PLUGIN_KERNEL=plugin_${p}_kernel)
  target_compile_options(pmu_plugin_${p} PRIVATE -g -O1 -fno-omit-frame-pointer)
endforeach()
cpath_mpi_program(pmu_dlclose pmu_dlclose.c)
target_link_libraries(pmu_dlclose PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(pmu_dlclose pmu_plugin_a pmu_plugin_b)
cpath_mpi_test(NAME pmu_dlclose_reload TARGET pmu_dlclose NP 2 ARGS $<TARGET_FILE:pmu_plugin_a> $<TARGET_FILE:pmu_plugin_b>
               CHECKS pmu_dlclose.py LABELS pmu)
cpath_mpi_test(NAME pmu_dlclose_gone TARGET pmu_dlclose NP 2 ARGS $<TARGET_FILE:pmu_plugin_a> none
               CHECKS pmu_dlclose.py LABELS pmu)
