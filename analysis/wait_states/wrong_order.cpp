// Late Sender / Wrong Order (Scalasca): a Late Sender whose receive could have taken another
// message first, because a receive the same thread completes later (in a later call) takes a
// message whose send began before the one this receive waited for. The receiver asks for its messages
// in another order than they come; receiving in send order (or MPI_Irecv both and
// MPI_Waitany) removes the wait. Completion order, not posting order: receives posted in any
// order and completed by one MPI_Waitall, or one by one by MPI_Waitany as they come, wait for
// the last message whatever its order — that is a plain Late Sender. Local to the receiver:
// the point-to-point replay gave each matched receive its send's begin. The instances leave
// the Late Sender row (the rows do not overlap).
#include <algorithm>
#include <climits>

#include "wait_states.h"

namespace cpath {

void mark_wrong_order(const Timeline& tl, const OpTable& ops, const PartnerTable& partners, std::vector<WaitInstance>* inst) {
  // Matched receives by where they were completed (completion_place: thread, then call), and
  // the earliest send begin among the receives of the same thread completed at or after each
  // position: one sort, one backward sweep.
  std::vector<std::pair<uint64_t, int64_t>> recv;  // completion place, matched send's begin
  for (uint32_t o = 0; o < ops.ops.size(); ++o) {
    const Op& op = ops.ops[o];
    // Rule 10's synchronisation messages are no receive the program could reorder.
    if (op.kind == OpKind::Recv && !op.cancelled && !is_pscw_tag(op.tag) && o < partners.of_op.size() && partners.of_op[o].valid())
      recv.emplace_back(completion_place(tl, op), partners.of_op[o].begin);
  }
  if (recv.size() < 2) return;
  // Ops stand in posting order, which is mostly completion order already (a halo's receives
  // are): sorted only when not. The order among one call's receives is never read: a suffix's
  // minimum is read only from a call's first receive.
  auto by_place = [](const std::pair<uint64_t, int64_t>& a, const std::pair<uint64_t, int64_t>& b) { return a.first < b.first; };
  if (!std::is_sorted(recv.begin(), recv.end(), by_place)) std::sort(recv.begin(), recv.end(), by_place);
  std::vector<int64_t> min_from(recv.size() + 1, INT64_MAX);
  for (size_t k = recv.size(); k-- > 0;) {
    const bool last_of_thread = k + 1 == recv.size() || !same_thread(recv[k + 1].first, recv[k].first);
    min_from[k] = std::min(last_of_thread ? INT64_MAX : min_from[k + 1], recv[k].second);
  }
  auto earliest_later_send = [&](uint64_t place) {
    const auto it = std::upper_bound(recv.begin(), recv.end(), place,
                                     [](uint64_t d, const std::pair<uint64_t, int64_t>& r) { return d < r.first; });
    if (it == recv.end() || !same_thread(it->first, place)) return INT64_MAX;
    return min_from[static_cast<size_t>(it - recv.begin())];
  };
  for (WaitInstance& w : *inst) {
    if (w.pattern != WaitPattern::LateSender) continue;
    for_each_recv_waited(ops, partners, w, [&](uint32_t o) {
      if (earliest_later_send(completion_place(tl, ops.ops[o])) >= partners.of_op[o].begin) return false;
      w.pattern = WaitPattern::LateSenderWrongOrder;
      return true;
    });
  }
}

}  // namespace cpath
