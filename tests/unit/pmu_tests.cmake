# Unit tests of pmu/. Included from tests/unit/CMakeLists.txt with
#   include(${CMAKE_CURRENT_SOURCE_DIR}/pmu_tests.cmake)
# Needs targets cpath_pmu and cpath_warnings.
if(NOT TARGET GTest::gtest_main)
  find_package(GTest REQUIRED)
endif()
include(GoogleTest)

set(_pmu_test_dir ${CMAKE_CURRENT_LIST_DIR})

function(cpath_pmu_test name)
  add_executable(${name} ${_pmu_test_dir}/${name}.cpp)
  target_link_libraries(${name} PRIVATE cpath_pmu cpath_warnings GTest::gtest_main)
  # Test names get a "pmu." prefix: ctest -R '^pmu[.]' runs just these.
  gtest_discover_tests(${name} TEST_PREFIX "pmu." DISCOVERY_TIMEOUT 60 PROPERTIES LABELS unit TIMEOUT 30)
endfunction()

cpath_pmu_test(pmu_perf_record_decoder_test)
cpath_pmu_test(pmu_event_config_test)
cpath_pmu_test(pmu_sample_builder_test)
cpath_pmu_test(pmu_sampler_test)
cpath_pmu_test(pmu_thread_hook_test)

# Symboliser: the test binary must be a PIE with debug info (it looks up a
# static function of its own), and dlopen()s two builds of a fixture module.
add_library(pmu_fixture_lib MODULE ${_pmu_test_dir}/pmu_fixtures/pmu_fixture_lib.cpp)
add_library(pmu_fixture_lib_stripped MODULE ${_pmu_test_dir}/pmu_fixtures/pmu_fixture_lib.cpp)
foreach(fixture pmu_fixture_lib pmu_fixture_lib_stripped)
  target_compile_options(${fixture} PRIVATE -g -O1)
  set_target_properties(${fixture} PROPERTIES CXX_VISIBILITY_PRESET hidden)
endforeach()
target_link_options(pmu_fixture_lib_stripped PRIVATE -s)
# Debug info only in a separate file found through .gnu_debuglink (as distributions ship it).
add_library(pmu_fixture_lib_debuglink MODULE ${_pmu_test_dir}/pmu_fixtures/pmu_fixture_lib.cpp)
target_compile_options(pmu_fixture_lib_debuglink PRIVATE -g -O1)
set_target_properties(pmu_fixture_lib_debuglink PROPERTIES CXX_VISIBILITY_PRESET hidden)
add_custom_command(TARGET pmu_fixture_lib_debuglink POST_BUILD
  COMMAND ${CMAKE_OBJCOPY} --only-keep-debug $<TARGET_FILE:pmu_fixture_lib_debuglink>
          $<TARGET_FILE:pmu_fixture_lib_debuglink>.debug
  COMMAND ${CMAKE_OBJCOPY} --strip-debug --add-gnu-debuglink=$<TARGET_FILE:pmu_fixture_lib_debuglink>.debug
          $<TARGET_FILE:pmu_fixture_lib_debuglink>
  WORKING_DIRECTORY $<TARGET_FILE_DIR:pmu_fixture_lib_debuglink>)

cpath_pmu_test(pmu_symbolizer_test)
target_compile_options(pmu_symbolizer_test PRIVATE -fPIE -g)
target_link_options(pmu_symbolizer_test PRIVATE -pie)
target_link_libraries(pmu_symbolizer_test PRIVATE ${CMAKE_DL_LIBS})
add_dependencies(pmu_symbolizer_test pmu_fixture_lib pmu_fixture_lib_stripped pmu_fixture_lib_debuglink)
target_compile_definitions(pmu_symbolizer_test PRIVATE
  PMU_FIXTURE_LIB="$<TARGET_FILE:pmu_fixture_lib>"
  PMU_FIXTURE_LIB_STRIPPED="$<TARGET_FILE:pmu_fixture_lib_stripped>"
  PMU_FIXTURE_LIB_DEBUGLINK="$<TARGET_FILE:pmu_fixture_lib_debuglink>")
cpath_pmu_test(pmu_hotspots_test)
