# Unit tests of pmu/. Included from tests/unit/CMakeLists.txt with
#   include(${CMAKE_CURRENT_SOURCE_DIR}/pmu_tests.cmake)
# Needs targets cpath_pmu and cpath_warnings.
if(NOT TARGET GTest::gtest_main)
  find_package(GTest REQUIRED)
endif()

set(_pmu_test_dir ${CMAKE_CURRENT_LIST_DIR})

function(cpath_pmu_test name)
  add_executable(${name} ${_pmu_test_dir}/${name}.cpp)
  target_link_libraries(${name} PRIVATE cpath_pmu cpath_warnings GTest::gtest_main)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES LABELS "pmu;unit" TIMEOUT 30)
endfunction()

cpath_pmu_test(pmu_perf_record_decoder_test)
cpath_pmu_test(pmu_event_config_test)
cpath_pmu_test(pmu_sample_builder_test)
cpath_pmu_test(pmu_sampler_test)
cpath_pmu_test(pmu_thread_hook_test)
