# PMU sampling end to end (issue 4): hotspots on the critical path vs plain hotspots.
cpath_mpi_program(pmu_hotspots_app pmu_hotspots_app.c)
cpath_mpi_test(NAME pmu_hotspots_known_answer TARGET pmu_hotspots_app CHECKS pmu_hotspots.py report_sampling.py LABELS pmu)
