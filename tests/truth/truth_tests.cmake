# The seeds and feature sets run in CI (features: gen_program.py). Each test is one real
# mpirun job of about 5 s; the seeds were chosen among the first few dozen for programs that
# stay decided at a margin of 12-16 ms (first line of the generated program), so that timing
# noise does not fail them; they were chosen again when the model learnt that the receive of an
# MPI_Issend may wait for its sender's next call (seeds 3 and 1 went to margins of 8 ms).
# scripts/truth-sweep.py runs any seeds.
set(_truth_main blocking,nonblocking,sync,buffered,wildcard,coll,rooted,icoll,subcomm)
cpath_truth_test(NAME truth_p2p_seed6 SEED 6 FEATURES blocking,nonblocking,sync,buffered,subcomm)
cpath_truth_test(NAME truth_wildcard_seed7 SEED 7 FEATURES blocking,nonblocking,buffered,wildcard)
cpath_truth_test(NAME truth_collectives_seed22 SEED 22 FEATURES coll,rooted,icoll,subcomm ROUNDS 10)
cpath_truth_test(NAME truth_collectives_seed24 SEED 24 FEATURES coll,rooted,icoll,subcomm ROUNDS 10)
cpath_truth_test(NAME truth_mixed_seed14 SEED 14 FEATURES ${_truth_main})
cpath_truth_test(NAME truth_mixed_seed8 SEED 8 FEATURES ${_truth_main})
# Polling loops (rule 5: MPI_Test/Testall and MPI_Iprobe loops) and neighbourhood collectives
# (rule 4: Cartesian chain and distributed graph; the seed with the widest margin, 16 ms).
cpath_truth_test(NAME truth_polling_seed9 SEED 9 FEATURES blocking,nonblocking,poll,probe)
cpath_truth_test(NAME truth_neighbour_seed2 SEED 2 FEATURES neighbour)
# Every feature at once (polling loops on non-blocking collectives, probe loops with wildcards,
# neighbourhood collectives beside sub-communicators, ...).
cpath_truth_test(NAME truth_all_seed23 SEED 23 FEATURES all)
cpath_truth_test(NAME truth_all_seed2 SEED 2 FEATURES all)
