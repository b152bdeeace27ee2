// Collective replay (docs/pag-rules.md rules 4 and 8): for every collective instance, which
// member's entry each rank waits for (the latest entry, the root's, the latest among lower
// ranks for scans, the latest in-neighbour's for neighbourhood collectives). Instances are
// identified by (communicator, sequence number), so calls made while recording was off on
// some members do not shift the pairing. Communicators are rebuilt from the unified table
// (freed ones included), one per distinct group; all instances of all communicators with that
// group are reduced in a few batched MPI_Allreduce/MPI_Scan calls with a user-defined
// operation. Neighbourhood instances travel to their out-neighbours in one sparse exchange.
// A member that moves no data (Op::no_data) waits for the latest candidate that began before it
// ended: the instances with such members gather every member's entry (one Allgather per batch).
// So do those with a member that did not synchronise or that waited beyond its rooted, scan or neighbourhood
// pattern (rule 4); the latter waits for the latest member, any member, that began before it ended.
// MPI_Init is instance 0 on MPI_COMM_WORLD.
#pragma once
#include <mpi.h>

#include <utility>
#include <vector>

#include "ops.h"
#include "partners.h"
#include "timeline.h"

namespace cpath {

// Fills partners->of_op for collective ops, partners->first_end and partners->init. Collective over `world`.
// complete (optional): per op, 1 when every member it waits for recorded the instance; entry
// ops.ops.size() is MPI_Init's (the forward pass, replay/forward_pass.h, needs all members).
// unsync (optional): per op, kUnsynchronised when the member did not synchronise, kBeyondPattern
// when it waited beyond its pattern (rule 4). Decided on the
// first call, when it is empty (the aligned times), and kept by the calls of the clock repair,
// whose shifted times must not change which members waited for whom.
// progress_calls (optional): (op, event) of this rank's progress calls of non-blocking
// instances (rule 4), chosen with unsync on the aligned times and kept likewise: the repair's
// shifts must not move which call counted as a member's progress.
void replay_collectives(const Timeline& tl, const OpTable& ops, MPI_Comm world, PartnerTable* partners,
                        ReplayStats* stats, std::vector<uint8_t>* complete = nullptr,
                        std::vector<uint8_t>* unsync = nullptr,
                        std::vector<std::pair<uint32_t, uint32_t>>* progress_calls = nullptr);

// The reduction element, exposed for the unit tests of the combine rule.
struct CollAgg {
  int64_t max_begin;
  int32_t max_rank;
  uint32_t max_event;
  int64_t root_begin;
  int32_t root_rank;
  uint32_t root_event;
  int32_t members;  // how many members recorded the instance
  uint32_t flags;   // kCollFlag*, OR of the members'
  // The earliest end of a member's completing call (ties: lower rank); first_rank -1: none.
  // Last, with defaults, so initialisers that stop before them mean "no end".
  int64_t first_end = 0;
  int32_t first_rank = -1;
  uint32_t first_event = 0;
  // Persistent instances: the call of the members' inits (MPI_Bcast_init...), smallest and
  // largest; kNoInit for other instances. Different: the members' n-th inits on the
  // communicator were different operations (made in different orders, or one was not recorded).
  uint32_t init_min = UINT32_MAX, init_max = 0;
  // Non-blocking instances: the latest of the members' progress calls (PartnerTable::progress,
  // the second reduction); prog_rank -1: none.
  int64_t prog_begin = 0;
  int32_t prog_rank = -1;
  uint32_t prog_event = 0;
};
// kCollFlagNoData: some member moves no data (Op::no_data); its candidates are chosen from
// every member's entry afterwards.
// kCollFlagProgress: some member's instance is non-blocking with a pattern whose members wait
// for one another's progress (rule 4); their progress is agreed in a second reduction, once the
// latest post is known.
enum : uint32_t { kCollFlagScan = 1, kCollFlagNoData = 2, kCollFlagProgress = 4 };
// A member that did not record the instance contributes this.
CollAgg coll_agg_none();
void coll_agg_combine(const CollAgg* in, CollAgg* inout, int n);

// Neighbourhood collectives: the latest entry among what the in-neighbours sent, pure.
struct NeighbourEntry {
  int32_t rank;  // world rank of the in-neighbour
  uint32_t event;
  int64_t begin;
};
// The world ranks of the in-neighbours (sources) and out-neighbours (destinations) of this
// rank in the topology of communicator record `comm`, sorted and distinct, without this rank
// and ranks outside [0, np): what a neighbourhood instance waits for and whom it reaches. Both
// empty when the topology was not recorded. The collective replay and the forward pass use it
// so they agree on who depends on whom.
void neighbour_world_ranks(const Timeline& tl, int32_t comm, int np, int me, std::vector<int32_t>* sources,
                           std::vector<int32_t>* destinations);
// `expected`: distinct world ranks of the in-neighbours. Sets *complete when every one of them
// sent its entry; entries from processes that are not in-neighbours are ignored.
Partner latest_in_neighbour(const std::vector<NeighbourEntry>& got, const std::vector<int32_t>& expected,
                            bool* complete);

}  // namespace cpath
