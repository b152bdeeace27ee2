#include "approximations.h"

namespace cpath {

namespace {

struct CauseText {
  const char* key;
  const char* text;
};

// Keys are part of report.json (docs/report.md): never rename one.
const CauseText kCauses[kNumCauses] = {
    {"analysis_disabled", "critical-path analysis disabled (option analysis=0)"},
    {"analysis_skipped_memory",
     "critical-path analysis skipped: it would need more memory than the rank may use (analysis.memory_budget; "
     "option analysis_mem=); the traces were written for cpath-ref"},
    {"stopped_at_memory_cap",
     "rank(s) stopped recording at the trace memory cap (option mem=): the path after that point is built from "
     "incomplete data"},
    {"paused", "rank(s) paused recording with MPI_Pcontrol(0): unrecorded intervals count as compute"},
    {"unknown_communicator",
     "operations on communicators created by calls libcpath does not see (MPI_Comm_spawn, connect/accept/join, "
     "MPI-4 creators, PMPI called directly): no cross-rank edge"},
    {"intercommunicator",
     "operations on intercommunicators to another job (spawned or connected processes outside the trace): "
     "treated as local (no cross-rank edge)"},
    {"unmatched_send", "sends without a recorded matching receive: their edges use the sender's own times"},
    {"unmatched_receive", "receives without a recorded matching send: their edges use the receiver's own times"},
    {"collective_incomplete",
     "collective operations not recorded on every member they wait for (paused recording, memory cap): their "
     "partner is the latest member that recorded them"},
    {"collective_count_mismatch",
     "communicators whose members counted different numbers of collective calls: instances after the difference "
     "may be paired wrongly"},
    {"unknown_request",
     "completions of requests not created by a recorded call (one-sided, I/O, generalized): treated as local"},
    {"never_completed",
     "messages of non-blocking rendezvous or synchronous sends never completed before MPI_Finalize: the receive's edge to the "
     "sender's completing call is missing"},
    {"freed_while_active",
     "messages of non-blocking rendezvous or synchronous sends released with MPI_Request_free while active: the receive's edge to "
     "the sender's completing call is missing"},
    {"rma_synchronisation",
     "passive-target synchronisation calls (lock/unlock, flush, sync), and post/start/complete/wait on a window or with a "
     "group member the replay does not know: treated as local"},
    {"walk_truncated", "walk(s) stopped at the step limit: the path is incomplete"},
    {"clock_unrepaired",
     "calls still violate the clock condition after the repair's round limit: there the path may skip a wait"},
    {"spill_failed",
     "rank(s) could not spill to disk (spill_dir= unusable or full; the reason is on stderr): on_full=spill "
     "stopped recording at the memory cap instead"},
    {"dependency_cycle",
     "the what-if re-timing met a dependency cycle (collective instances the ranks paired in different orders): "
     "waits on those instances may be attributed wrongly"},
    {"collective_start_order",
     "persistent collective instances whose members started different operations (inits made in different "
     "orders, or recording paused through an init): paired with another operation; their waits may be "
     "attributed wrongly, and the what-if keeps their measured partner"},
    {"thread_channel_order",
     "sends and receives on a channel that several threads of a rank used at the same time: the order MPI queued "
     "them in is not recorded; receives are matched in the order they completed, which may pair a receive with "
     "another thread's message"},
    {"thread_start",
     "threads whose first MPI call came after their creator had made other MPI calls since creating them: the "
     "thread may have waited for one of those outside MPI (a condition variable, an OpenMP fork), which is not "
     "recorded; its first call is taken to follow the creator's last call before the thread was created"},
};

}  // namespace

std::vector<unsigned long long> approximation_counts(const RankTrace& trace, const Timeline& tl, const OpTable& ops,
                                                     const ReplayStats& st, const WalkResult& walk, bool analysis,
                                                     uint64_t clock_unrepaired) {
  std::vector<unsigned long long> n(kNumCauses, 0);
  auto at = [&](Cause c) -> unsigned long long& { return n[static_cast<size_t>(c)]; };
  // Counted by every rank, reported as one row: rank 0's flag is enough.
  at(Cause::AnalysisDisabled) = !analysis && trace.rank == 0;
  at(Cause::StoppedAtMemoryCap) = trace.meta_value("store_state") == "stopped";
  for (const auto& [ev, level] : tl.aux)
    if (call_info(tl.ev[ev].e.call).kind == CallKind::Pcontrol && level == 0) at(Cause::Paused) = 1;
  at(Cause::UnknownCommunicator) = ops.unknown_comm;
  at(Cause::Intercommunicator) = ops.intercomm_ops;
  at(Cause::UnmatchedSend) = st.sends_unmatched;
  at(Cause::UnmatchedReceive) = st.recvs_unmatched;
  at(Cause::CollectiveIncomplete) = st.collectives_incomplete;
  at(Cause::CollectiveCountMismatch) = st.collective_count_mismatch;
  at(Cause::CollectiveStartOrder) = st.collectives_mispaired;
  at(Cause::UnknownRequest) = ops.unknown_requests;
  at(Cause::NeverCompleted) = st.rendezvous_never_completed;
  at(Cause::FreedWhileActive) = st.rendezvous_freed;
  at(Cause::RmaSynchronisation) = ops.rma_sync_local;
  at(Cause::WalkTruncated) = walk.truncated;
  at(Cause::ClockUnrepaired) = trace.rank == 0 ? clock_unrepaired : 0;
  at(Cause::SpillFailed) = !trace.meta_value("spill_failure").empty();
  at(Cause::ThreadChannelOrder) = st.thread_channel_order;
  at(Cause::ThreadStart) = tl.thread_starts_unknown;
  return n;
}

void fill_approximations(const unsigned long long* summed, Report* r) {
  for (size_t c = 0; c < kNumCauses; ++c)
    if (summed[c]) r->approximations.push_back({kCauses[c].key, summed[c], kCauses[c].text});
  r->exact = r->approximations.empty();
}

}  // namespace cpath
