"""Memory cap with spilling and no dump: the chunks go back as they are decoded (the spilled
ones read back from the file, then the ones still in memory, the thread's last after the
others), and the analysis still sees every call the program made, exactly. halo_bench makes
5.1 calls per iteration on every rank (Irecv, Irecv, Isend, Isend, Waitall; an Allreduce
every 10th), plus MPI_Init and MPI_Finalize."""
import os


def check(run):
    rep = run.report
    assert rep is not None, "no report.json"
    assert rep["trace"]["store"] == "spilled", rep["trace"]
    iters = int(run.cmd[-2])
    calls = run.np * (iters * 51 // 10 + 2)
    assert rep["trace"]["events_total"] == calls, "report counts %d events, the program made %d calls" % (
        rep["trace"]["events_total"], calls)
    assert rep["analysis"]["exact"], rep["analysis"]["approximations"]
    assert rep["analysis"]["memory_budget"]["analysed"], rep["analysis"]["memory_budget"]
    assert "decoding failed" not in run.stderr + run.stdout
    for rank in range(run.np):
        assert not os.path.exists(os.path.join(run.dir, "trace.%d.cpt" % rank)), "dump=0 wrote a trace"
