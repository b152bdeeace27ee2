# Unit tests of the communication analyses (issue 10): size bins, the bytes a collective moves,
# the traffic graph and the rank mapper (Scotch and the greedy fallback).
cpath_unit_test(communication_test communication_test.cpp)
