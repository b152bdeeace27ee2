"""comm_placement.c with ranks_per_node=4: by slot (nodes {0..3}, {4..7}) 16 heavy directed
pairs of 4 x 64 KiB and 2 light 100 B messages cross nodes; the suggested mapping must put
{0,2,4,6} on one node and {1,3,5,7} on the other, leaving only the 8 light messages between
nodes, and the rankfile and Hydra host list must say exactly that."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from comm_files import p2p  # noqa: E402

HEAVY = 4 * 65536
LIGHT = 100


def internode(pairs, node):
    return sum(b for (s, d), (b, _) in pairs.items() if node[s] != node[d])


def check(run):
    assert run.np == 8
    pl = run.report["placement"]
    pairs = p2p(run)
    assert pl["ranks_per_node"] == 4 and pl["nodes"] == 2, pl
    by_slot = [r // 4 for r in range(8)]
    assert internode(pairs, by_slot) == 16 * HEAVY + 2 * LIGHT
    assert pl["current_internode_bytes"] == 16 * HEAVY + 2 * LIGHT, pl
    assert pl["suggested_internode_bytes"] == 8 * LIGHT, pl
    # Open MPI rankfile: "rank R=HOST slot=S".
    host, slots = {}, set()
    for line in open(os.path.join(run.dir, pl["rankfile"])):
        left, slot = line.split()[1], line.split()[2]
        r, h = left.split("=")
        host[int(r)] = h
        slots.add((h, slot))
    assert sorted(host) == list(range(8)) and len(slots) == 8, host
    assert len({host[r] for r in (0, 2, 4, 6)}) == 1 and len({host[r] for r in (1, 3, 5, 7)}) == 1, host
    assert host[0] != host[1]
    assert internode(pairs, host) == 8 * LIGHT
    # Hydra host list: consecutive ranks per "host:n" line.
    hydra = []
    for line in open(os.path.join(run.dir, pl["hostfile"])):
        h, n = line.strip().rsplit(":", 1)
        hydra += [h] * int(n)
    assert hydra == [host[r] for r in range(8)], hydra
    moved = [int(l.split()[2]) for l in run.stdout.splitlines() if l.startswith("cart moved ")]
    assert len(moved) == 1, "the program did not report its Cartesian reordering"
    topo = pl["topologies"]
    assert len(topo) == 1 and topo[0]["kind"] == "cartesian" and topo[0]["size"] == 8, topo
    assert topo[0]["reordered_ranks"] == moved[0], (topo, moved)
    assert "Cartesian communicator %s (8 ranks)" % topo[0]["comm"] in open(os.path.join(run.dir, "report.txt")).read()
    assert "--- Placement: 2 nodes" in open(os.path.join(run.dir, "report.txt")).read()
