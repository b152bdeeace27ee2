"""Helpers shared by the install, launcher and package tests."""
import os
import shutil
import subprocess
import sys

# The program's own output, without libcpath's report block: the MPI harness's definition.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "mpi"))
from run_mpi_test import strip_report as without_report  # noqa: E402,F401
from run_mpi_test import is_open_mpi, launcher  # noqa: E402


def mpi_flavour(mpirun):
    return "openmpi" if is_open_mpi(mpirun) else "hydra"


def mpirun_args(mpirun, np_):
    """The launcher and its own flags for a small test job on this machine."""
    return launcher(np_, {}, [], yield_when_idle=None, mpirun=mpirun)


def run(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("timeout", 300)
    r = subprocess.run(cmd, **kw)
    return r


def must(cmd, what, **kw):
    r = run(cmd, **kw)
    if r.returncode != 0:
        raise AssertionError("%s failed (exit %d): %s\n%s\n%s" % (what, r.returncode, " ".join(cmd), r.stdout[-3000:],
                                                                 r.stderr[-3000:]))
    return r


def fresh_dir(path):
    if os.path.exists(path):
        shutil.rmtree(path)
    os.makedirs(path)
    return path
