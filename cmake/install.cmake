# `cmake --install build --prefix DIR` layout. Relocatable: every path below is relative to the
# prefix, the launcher finds libcpath.so relative to itself, the CMake config computes its
# prefix from its own location and libcpath.pc from ${pcfiledir}.
#   lib/libcpath.so -> .so.0 -> .so.0.2.0     the tool, preloaded into the ranks
#   lib/libcpath_stub.so (same versioning)     the region API as no-ops, for programs to link
#   bin/cpath, bin/cpath-read, bin/cpath-ref   launcher and tools (whichever tool targets exist)
#   include/cpath.h
#   lib/cmake/libcpath/                        find_package(libcpath): target libcpath::cpath
#   lib/pkgconfig/libcpath.pc
#   share/doc/libcpath/                        README, LICENSE, docs/*.md
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(CPATH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/libcpath)

# Keep run paths to libraries outside the system directories (an MPI in a module or Spack
# prefix); never the build tree.
set_target_properties(cpath cpath_launcher PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
install(TARGETS cpath LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
set_target_properties(cpath_stub PROPERTIES EXPORT_NAME cpath)
install(TARGETS cpath_stub EXPORT libcpathTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/include/cpath.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cpath_launcher RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
foreach(_tool IN ITEMS cpath-read cpath-ref cpath-report)
  if(TARGET ${_tool})
    set_target_properties(${_tool} PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
    install(TARGETS ${_tool} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endforeach()

install(EXPORT libcpathTargets NAMESPACE libcpath:: DESTINATION ${CPATH_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/libcpathConfig.cmake.in
  ${CMAKE_BINARY_DIR}/libcpathConfig.cmake
  INSTALL_DESTINATION ${CPATH_CMAKE_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_BINDIR)
# 0.x: minor versions may change the API.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/libcpathConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/libcpathConfig.cmake ${CMAKE_BINARY_DIR}/libcpathConfigVersion.cmake
        DESTINATION ${CPATH_CMAKE_DIR})

file(RELATIVE_PATH CPATH_PC_TO_PREFIX /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
string(REGEX REPLACE "/$" "" CPATH_PC_TO_PREFIX "${CPATH_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/libcpath.pc.in ${CMAKE_BINARY_DIR}/libcpath.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/libcpath.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} FILES_MATCHING PATTERN "*.md")
if(EXISTS ${CMAKE_BINARY_DIR}/generated/wrapped_functions.md)
  install(FILES ${CMAKE_BINARY_DIR}/generated/wrapped_functions.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
endif()
