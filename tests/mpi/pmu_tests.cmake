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
