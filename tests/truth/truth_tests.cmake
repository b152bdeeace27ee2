# The seeds and feature sets run in CI (features: gen_program.py). Each test is one real
# mpirun job of about 5 s; the seeds were chosen among the first few dozen for programs that
# stay decided at a margin of 12-16 ms (first line of the generated program), so that timing
# noise does not fail them. scripts/truth-sweep.py runs any seeds.
set(_truth_main blocking,nonblocking,sync,buffered,wildcard,coll,rooted,icoll,subcomm)
cpath_truth_test(NAME truth_p2p_seed3 SEED 3 FEATURES blocking,nonblocking,sync,buffered,subcomm)
cpath_truth_test(NAME truth_wildcard_seed7 SEED 7 FEATURES blocking,nonblocking,buffered,wildcard)
cpath_truth_test(NAME truth_collectives_seed22 SEED 22 FEATURES coll,rooted,icoll,subcomm ROUNDS 10)
cpath_truth_test(NAME truth_collectives_seed24 SEED 24 FEATURES coll,rooted,icoll,subcomm ROUNDS 10)
cpath_truth_test(NAME truth_mixed_seed14 SEED 14 FEATURES ${_truth_main})
cpath_truth_test(NAME truth_mixed_seed8 SEED 8 FEATURES ${_truth_main})
# Rules the replay does not implement yet (docs/pag-rules.md rules 4 and 5: neighbourhood
# collectives, polling loops): disabled until it does.
cpath_truth_test(NAME truth_polling_seed9 SEED 9 FEATURES blocking,nonblocking,poll,probe)
cpath_truth_test(NAME truth_neighbour_seed9 SEED 9 FEATURES blocking,coll,neighbour)
set_tests_properties(truth_polling_seed9 truth_neighbour_seed9 PROPERTIES DISABLED TRUE)
