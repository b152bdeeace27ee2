# Clocks (issue 8): ranks sharing a clock are not aligned, hosts are aligned through their
# leaders, and the clock-condition repair fixes what alignment leaves (docs/pag-rules.md).
cpath_mpi_program(clock_pingpong clock_pingpong.c)
# The probe: a same-host ping-pong (6000 matched receives on 4 ranks) has no violation and no
# alignment, and the distributed path equals the reference's.
cpath_mpi_test(NAME clock_same_host_pingpong TARGET clock_pingpong ARGS 1500 OPTIONS "path=1"
               CHECKS clock_one_host.py cp_differential.py LABELS clock)
# Three simulated hosts with distorted clocks (ranks r and r+3 share one): alignment through
# the leaders undoes the distortion and the known answers hold.
cpath_mpi_test(NAME clock_sim_hosts_late_sender TARGET cp_known ARGS late_sender
               OPTIONS "path=1,sim_hosts=3,skew_ns=3000000,drift_ppm=200"
               CHECKS cp_late_sender.py clock_sim_hosts.py cp_differential.py LABELS clock)
cpath_mpi_test(NAME clock_sim_hosts_imbalance TARGET cp_known ARGS imbalance
               OPTIONS "path=1,sim_hosts=3,skew_ns=3000000,drift_ppm=200"
               CHECKS cp_imbalance.py clock_sim_hosts.py cp_differential.py LABELS clock)
# Distorted clocks, alignment disabled: violations exist, the repair fixes all of them, the
# known answers still hold and the reference repairs the same way (segment by segment).
cpath_mpi_test(NAME clock_repair_late_sender TARGET cp_known ARGS late_sender
               OPTIONS "path=1,skew_ns=3000000,drift_ppm=200,align=0"
               CHECKS cp_late_sender.py clock_repaired.py cp_differential.py LABELS clock)
cpath_mpi_test(NAME clock_repair_imbalance TARGET cp_known ARGS imbalance
               OPTIONS "path=1,skew_ns=3000000,drift_ppm=200,align=0"
               CHECKS cp_imbalance.py clock_repaired.py cp_differential.py LABELS clock)
cpath_mpi_test(NAME clock_repair_differential TARGET cp_random_app NP 5 ARGS 21 40
               OPTIONS "path=1,report=0,skew_ns=2000000,drift_ppm=100,align=0"
               CHECKS cp_differential.py clock_repaired.py NO_COMPARE LABELS clock)
