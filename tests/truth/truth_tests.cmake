# The seeds and feature sets run in CI (see gen_program.py for the features).
cpath_truth_test(NAME truth_p2p_seed1 SEED 1 FEATURES blocking,nonblocking,buffered,subcomm)
