# User regions (include/cpath.h, issue 12): programs link the stub library like a user's would;
# libcpath.so, preloaded by the harness, records the markers. The harness also runs each
# program without libcpath and requires the same output and exit code.
cpath_mpi_program(region_known region_known.c)
target_link_libraries(region_known PRIVATE cpath_stub Threads::Threads)
cpath_mpi_test(NAME region_known TARGET region_known OPTIONS "path=1,top=50"
               CHECKS coll_sanity.py region_known.py region_twin.py LABELS regions)
# Skewed clocks, not aligned: the clock-condition repair moves events, the markers move with
# them (the known answers still hold; the reference agrees on the repaired path. region_twin.py
# reads the unrepaired times of cpath-read, so it cannot check this run).
cpath_mpi_test(NAME region_known_skewed TARGET region_known
               OPTIONS "path=1,top=50,skew_ns=3000000,drift_ppm=200,align=0"
               CHECKS region_known.py cp_differential.py LABELS regions)
# Markers never become PAG vertices: with them in the trace, the distributed path still equals
# the sequential reference's (which never sees them) segment by segment.
cpath_mpi_test(NAME region_known_differential TARGET region_known NP 3 OPTIONS "path=1,report=0"
               CHECKS cp_differential.py region_twin.py NO_COMPARE LABELS regions)

# Fortran (`use mpi`): call cpath_region_begin('solve') as an external subroutine.
if(CMAKE_Fortran_COMPILER)
  cpath_mpi_program(region_fortran region_fortran.f90)
  target_link_libraries(region_fortran PRIVATE cpath_stub)
  cpath_mpi_test(NAME region_fortran TARGET region_fortran OPTIONS "path=1"
                 CHECKS coll_sanity.py region_fortran.py region_twin.py LABELS regions)
endif()

# What-if scenarios on activities named by region (docs/what-if.md): each scales exactly its
# region's part of the split compute intervals. The targets are quoted, single and double, as
# the report names them (spaces, colons); the known gains come from the program's own timing.
cpath_mpi_program(region_whatif region_whatif.c)
target_link_libraries(region_whatif PRIVATE cpath_stub)
set(_act "between MPI_Allreduce at region_whatif.c:37 and MPI_Allreduce at region_whatif.c:37")
cpath_mpi_test(NAME region_whatif TARGET region_whatif
               OPTIONS "path=1,whatif_top=5,whatif='compute in region extra ${_act}':0.5,\"compute in region solve ${_act}\":0.5 whatif='compute in region extra ${_act}':0.25"
               CHECKS region_whatif.py cp_whatif_diff.py NO_COMPARE LABELS regions)
