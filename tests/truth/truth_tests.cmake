# The seeds and feature sets run in CI (features: gen_program.py). Each test is one real
# mpirun job of about 5 s; scripts/truth-sweep.py runs many more seeds.
set(_truth_main blocking,nonblocking,sync,buffered,wildcard,coll,rooted,icoll,subcomm)
cpath_truth_test(NAME truth_p2p_seed1 SEED 1 FEATURES blocking,nonblocking,sync,buffered,subcomm)
cpath_truth_test(NAME truth_wildcard_seed2 SEED 2 FEATURES blocking,nonblocking,buffered,wildcard)
cpath_truth_test(NAME truth_collectives_seed3 SEED 3 FEATURES coll,rooted,icoll,subcomm)
cpath_truth_test(NAME truth_mixed_seed4 SEED 4 FEATURES ${_truth_main})
cpath_truth_test(NAME truth_mixed_seed5 SEED 5 FEATURES ${_truth_main})
# Rules the replay does not implement yet (docs/pag-rules.md rules 4 and 5: neighbourhood
# collectives, polling loops): disabled until it does.
cpath_truth_test(NAME truth_polling_seed6 SEED 6 FEATURES blocking,nonblocking,poll,probe)
cpath_truth_test(NAME truth_neighbour_seed7 SEED 7 FEATURES blocking,coll,neighbour)
set_tests_properties(truth_polling_seed6 truth_neighbour_seed7 PROPERTIES DISABLED TRUE)
