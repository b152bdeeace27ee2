# Unit tests of the report writers and the names they print (issue 11).
cpath_unit_test(hotspot_names_test hotspot_names_test.cpp)
cpath_unit_test(timeline_writer_test timeline_writer_test.cpp)
cpath_unit_test(report_sections_test report_sections_test.cpp)
