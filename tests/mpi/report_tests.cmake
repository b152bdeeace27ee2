# The report directory's files (issue 11): timeline.json against the known answers and under its
# size cap, cpath-report, hotspot names, and report.html opened in headless Chromium.
find_program(CPATH_CHROMIUM NAMES chromium chromium-browser)
set(_tool_env "CPATH_REPORT_TOOL=$<TARGET_FILE:cpath-report>")
cpath_mpi_test(NAME report_timeline_pipeline TARGET cp_known ARGS pipeline OPTIONS "path=1"
               CHECKS timeline_pipeline.py report_phases.py report_activity_shares.py LABELS report)
# The same file written in parallel with MPI-IO (small timelines go through rank 0 by default).
cpath_mpi_test(NAME report_timeline_mpiio TARGET cp_known ARGS pipeline OPTIONS "path=1,timeline_mpiio=0"
               CHECKS timeline_pipeline.py LABELS report)
cpath_mpi_test(NAME report_timeline_late_sender TARGET cp_known ARGS late_sender OPTIONS "path=1"
               CHECKS timeline_late_sender.py LABELS report)
cpath_mpi_test(NAME report_timeline_threads TARGET coll_threads OPTIONS "path=1" CHECKS timeline_threads.py
               LABELS report)
# ~30k slices (6 MB of JSON) under a 3 MiB cap; the path alone takes about 2 MB.
cpath_mpi_test(NAME report_timeline_cap TARGET lu_wavefront ARGS 32 30 OPTIONS "path=1,timeline_max=3M"
               CHECKS timeline_cap.py report_names.py NO_COMPARE LABELS report)
set_tests_properties(report_timeline_pipeline report_timeline_mpiio report_timeline_cap PROPERTIES ENVIRONMENT "${_tool_env}")
if(CPATH_CHROMIUM)
  cpath_mpi_test(NAME report_html_browser TARGET cp_known ARGS imbalance OPTIONS "dump=0"
                 CHECKS report_html.py report_phases.py LABELS report)
  set_tests_properties(report_html_browser PROPERTIES ENVIRONMENT "CPATH_CHROMIUM=${CPATH_CHROMIUM}")
  # Sections of other issues (wait states, communication, start-up, placement) from a
  # hand-written report.json, a minimal one with most sections absent, and a real one whose
  # what-if gave up (whatif_time_budget's run: no rows, the reason only).
  foreach(f full minimal whatif_gave_up)
    add_test(NAME report_html_fixture_${f}
             COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/report/html_check.py --chromium ${CPATH_CHROMIUM}
                     --cpath-report $<TARGET_FILE:cpath-report> --workdir ${CMAKE_CURRENT_BINARY_DIR}/work/report_html_fixture_${f}
                     --screenshot ${CMAKE_CURRENT_BINARY_DIR}/work/report_html_fixture_${f}.png
                     ${PROJECT_SOURCE_DIR}/tests/report/fixtures/report_${f}.json)
    set_tests_properties(report_html_fixture_${f} PROPERTIES TIMEOUT 300 LABELS report)
  endforeach()
else()
  message(WARNING "chromium not found: the report.html browser tests are not registered (scripts/setup.sh installs it)")
endif()
# analysis.memory_per_rank_max_bytes against the resident-memory growth the program measures
# itself across MPI_Finalize (~100k events per rank).
cpath_mpi_test(NAME report_memory_peak TARGET halo_bench ARGS 20000 0 OPTIONS "sample=0,timeline=0"
               CHECKS memory_peak.py NO_COMPARE LABELS report)
# The analysis's memory plan (analysis_mem=, src/memory_budget.h): what-if scenarios in several
# passes within the limit, the same results as the reference; below the replay's estimate, no
# analysis, the traces kept for cpath-ref, the application untouched.
cpath_mpi_test(NAME memory_budget_whatif_passes TARGET halo_bench ARGS 2000 0
               OPTIONS "path=1,report=0,sample=0,timeline=0,analysis_mem=7400K"
               CHECKS memory_budget_passes.py cp_whatif_diff.py NO_COMPARE LABELS report)
# whatif_time= (analysis/what_if.cpp): a re-timing over budget gives up on every rank, says so,
# and leaves the rest of the analysis and the application alone.
cpath_mpi_test(NAME whatif_time_budget TARGET halo_bench ARGS 2000 0 OPTIONS "sample=0,timeline=0,whatif_time=0.001"
               CHECKS whatif_time_budget.py NO_COMPARE LABELS report)
# ... and the new paths' walks: 100 user scenarios whose walks alone would outlast it.
set(_walk_scenarios "")
foreach(i RANGE 0 99)
  math(EXPR _r "${i} % 4")
  math(EXPR _f "500 + ${i} * 4")
  list(APPEND _walk_scenarios "rank${_r}:0.${_f}")
endforeach()
list(JOIN _walk_scenarios "," _walk_scenarios)
cpath_mpi_test(NAME whatif_time_walks TARGET halo_bench ARGS 20000 0
               OPTIONS "sample=0,timeline=0,whatif_time=1.6,whatif=${_walk_scenarios}"
               CHECKS whatif_time_walks.py NO_COMPARE LABELS report)
# ... with the default options (sampler, timeline, what-if): within the limit whether the plan
# refuses the run (its fixed part alone is larger) or analyses it (memory_budget_limit.py), and
# a run the old estimate (512 bytes per event) refused is analysed.
cpath_mpi_test(NAME memory_budget_defaults_small TARGET halo_bench ARGS 1000 0 OPTIONS "analysis_mem=7M"
               CHECKS memory_budget_limit.py NO_COMPARE LABELS report)
cpath_mpi_test(NAME memory_budget_defaults TARGET halo_bench ARGS 20000 0 OPTIONS "analysis_mem=50M"
               CHECKS memory_budget_limit.py memory_budget_analysed.py NO_COMPARE LABELS report)
cpath_mpi_test(NAME memory_budget_skip TARGET halo_bench ARGS 500 0 OPTIONS "dump=0,analysis_mem=1M"
               CHECKS memory_budget_skip.py memory_budget_skip_html.py report_phases.py NO_COMPARE LABELS report)
