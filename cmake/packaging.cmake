# Debian package: `cpack -G DEB --config build/CPackConfig.cmake` -> libcpath_<version>_<arch>.deb
# with the install layout of cmake/install.cmake under /usr. Run-time dependencies (the MPI
# libraries libcpath was built against, libdw, libpfm4, libstdc++) come from dpkg-shlibdeps
# (package dpkg-dev).
set(CPACK_PACKAGE_NAME libcpath)
set(CPACK_PACKAGE_VENDOR libcpath)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "the libcpath developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "MPI critical-path analysis: what to optimise so an MPI job gets faster")
set(CPACK_PACKAGE_DESCRIPTION "Preloaded into an unmodified MPI program (cpath mpirun ...), libcpath records every MPI
call and, inside MPI_Finalize, finds the critical path and the hotspots on it.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
# The launcher of the MPI the library was built against.
if(MPI_C_LIBRARIES MATCHES "mpich")
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mpich")
else()
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "openmpi-bin")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "pkg-config, cmake")
include(CPack)
