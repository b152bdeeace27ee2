"""Simulated hosts (sim_hosts=3 with a clock distortion per host): ranks r and r+3 share host
r mod 3 and its distorted clock. Only the hosts' leaders (ranks 0, 1, 2) are aligned; every
rank uses its leader's map, and that map undoes the distortion."""
import re
import subprocess

HOSTS = 3


def clock_lines(run, r):
    out = subprocess.run([run.reader, "%s/trace.%d.cpt" % (run.dir, r)], capture_output=True, text=True).stdout
    a = re.search(r"# align offset_ns=(\S+) drift=(\S+) ref_local_ns=(\S+)", out)
    c = re.search(r"# clock ns0=(\S+) ns_per_tick=\S+ inject_skew_ns=(\S+) inject_drift=(\S+)", out)
    meta = dict(re.findall(r"^# (clock_\w+)=(\S*)$", out, re.M))
    assert a and c, "rank %d: no clock lines" % r
    return [float(x) for x in a.groups()], [float(x) for x in c.groups()], meta


def window(ns0, skew, idrift, ref, span):
    """True times from the MPI_Init measurement (local time `ref`) to the end of the run. Before
    that measurement the map only extrapolates: a drift estimated over a short run, times an
    MPI_Init that takes seconds on a loaded machine, is no statement about the alignment."""
    start = ns0 + (ref - ns0 - skew) / (1 + idrift) if ref else ns0
    end = max(start, ns0 + span)
    return [start + f * (end - start) for f in (0.0, 0.25, 0.5, 0.75, 1.0)]


def check(run):
    c = run.report["analysis"]["clock"]
    assert c["hosts"] == HOSTS and c["leaders"] == HOSTS and c["simulated_hosts"], c
    assert c["alignment"] == "leaders", c
    assert run.report["analysis"]["clock_error_s"] < 0.001, run.report["analysis"]["clock_error_s"]
    span = run.report["elapsed_s"] * 1e9
    # The report's own claim is what must hold: the alignment within the error bound it states
    # (a few microseconds on a quiet machine, hundreds under load, below 1 ms as asserted above);
    # 1 us for the reader's printed precision.
    bound_ns = run.report["analysis"]["clock_error_s"] * 1e9 + 1000
    lines = {}
    for r in range(run.np):
        (offset, drift, ref), (ns0, skew, idrift), meta = clock_lines(run, r)
        h = r % HOSTS
        assert meta["clock_host"] == "sim%d" % h and meta["clock_leader"] == str(h), (r, meta)
        assert meta["clock_hosts"] == str(HOSTS) and meta["clock_aligned"] == "1" and meta["clock_simulated"] == "1"
        if h:
            assert skew != 0 and idrift != 0, "rank %d: host %d has no distortion" % (r, h)
        lines[r] = (offset, drift, ref)
        # The leader's map, applied to this rank's distorted clock, gives the true time back
        # over the measured window (from the MPI_Init measurement to the end of the run).
        for true in window(ns0, skew, idrift, ref, span):
            local = true + skew + (true - ns0) * idrift
            glob = local + offset + drift * (local - ref)
            assert abs(glob - true) <= bound_ns, "rank %d at +%.3fs: aligned %.0f ns off, beyond the stated bound of %.0f ns" % (
                r, (true - ns0) * 1e-9, glob - true, bound_ns - 1000)
    for r in range(HOSTS, run.np):
        assert lines[r] == lines[r % HOSTS], "rank %d does not use its leader's map: %s vs %s" % (r, lines[r], lines[r % HOSTS])
    assert lines[0] == (0.0, 0.0, 0.0) or (lines[0][0] == 0 and lines[0][1] == 0), "rank 0 is the reference: %s" % (lines[0],)
