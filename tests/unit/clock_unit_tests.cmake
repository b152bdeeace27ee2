# Unit tests of the clocks (issue 8): composition of the alignment between host leaders, and
# the clock-condition repair on hand-built timelines.
#   ctest -R '^(ClockChain|ClockLine|ClockComposition|ClockDomain|ClockRepair)\.'
cpath_unit_test(clock_alignment_test clock_alignment_test.cpp)
cpath_unit_test(clock_repair_test clock_repair_test.cpp)
