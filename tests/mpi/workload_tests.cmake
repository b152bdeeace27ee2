# The NPB-style proxies (tests/workloads/) at quick sizes, through the regression checks of
# scripts/npb-regression.sh: a change that breaks collection, replay or the report on a
# realistic pattern fails CI. (Their output includes timings, so it is not compared across runs.)
set(_wl ${PROJECT_SOURCE_DIR}/tests/workloads)
add_executable(lu_wavefront ${_wl}/lu_wavefront.f90)
target_link_libraries(lu_wavefront PRIVATE MPI::MPI_Fortran)
target_compile_options(lu_wavefront PRIVATE -O2 -g -fno-omit-frame-pointer -fallow-argument-mismatch)
set_target_properties(lu_wavefront PROPERTIES LINKER_LANGUAGE Fortran)
add_executable(bt_adi ${_wl}/bt_adi.c)
target_link_libraries(bt_adi PRIVATE MPI::MPI_C m)
target_compile_options(bt_adi PRIVATE -O2 -g -fno-omit-frame-pointer)

cpath_mpi_test(NAME workload_lu_wavefront TARGET lu_wavefront ARGS 32 30 CHECKS workload_regression.py report_names.py NO_COMPARE
               LABELS workload)
cpath_mpi_test(NAME workload_bt_adi TARGET bt_adi ARGS 24 20 CHECKS workload_regression.py report_names.py NO_COMPARE
               LABELS workload)
