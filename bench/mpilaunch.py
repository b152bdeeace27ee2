"""The mpirun command line the benchmark scripts share (Open MPI: oversubscribe, root, -x)."""
import os


def mpirun_cmd(np_, env, extra=()):
    cmd = ["mpirun", "--oversubscribe"] + list(extra) + ["-np", str(np_)]
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    for k, v in env.items():
        cmd += ["-x", "%s=%s" % (k, v)]
    return cmd
