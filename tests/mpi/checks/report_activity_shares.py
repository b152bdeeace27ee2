"""Top activities: a per-rank row carries its share of the activity's critical-path imbalance
(in proportion to its path time), not the whole activity's imbalance repeated on every row."""


def check(run):
    cp = run.report["critical_path"]
    path_of = {m["activity"]: m["path_s"] for m in cp["imbalance"]}
    rows = {}
    for a in cp["activities"]:
        rows.setdefault(a["activity"], []).append(a)
    shared = 0
    for act, rs in rows.items():
        whole = rs[0]["activity_imbalance_s"]
        assert all(abs(r["activity_imbalance_s"] - whole) < 1e-12 for r in rs), "%s: differing activity imbalance" % act
        if whole <= 0 or act not in path_of:
            continue
        for r in rs:
            want = whole * min(1.0, r["time_s"] / path_of[act])
            assert abs(r["imbalance_s"] - want) <= 1e-6 * max(1.0, whole), \
                "%s on rank %d: imbalance %.9f, its share is %.9f" % (act, r["rank"], r["imbalance_s"], want)
        if len(rs) > 1:
            shared += 1
            assert sum(r["imbalance_s"] for r in rs) <= whole * (1 + 1e-6), "%s: rows add up to more than the activity" % act
            assert any(r["imbalance_s"] < whole * 0.99 for r in rs), "%s: every row repeats the whole imbalance" % act
    assert shared, "no activity on several ranks: the check proves nothing here (%s)" % list(rows)
