// Message misarrangement with MPI_Send / MPI_Bsend (seed 001, 3.2.2): a receive waited for a
// message from sender S while a message S had sent earlier, by a local send (MPI_Bsend, or an
// MPI_Send that did not wait for its receiver: eager), sat unreceived until a receive this rank
// completes later (in a later call; see wrong_order.cpp for why completion order). Only a local send allows it: with MPI_Ssend or a rendezvous MPI_Send the sender
// would block in the first send and the program deadlock; MPI_Rsend requires the receive to be
// posted first. Receiving in the order S sends (or S sending in the order the receiver wants)
// removes the wait and the buffering.
// Relation to Scalasca: every instance is a Late Sender whose receive could have taken another
// message first, i.e. a Late Sender / Wrong Order (wrong_order.cpp) with the earlier message from
// the same sender and sent locally; the instances leave that row (the rows do not overlap). The
// lost time is the Late Sender's: partner begin - wait start.
// The row is named after the earlier, local send (the one whose locality made the misarrangement
// possible); when both modes qualify for one wait, MPI_Send.
#include <algorithm>
#include <climits>
#include <tuple>

#include "wait_states.h"

namespace cpath {

namespace {

struct LocalRecv {
  int32_t sender;
  uint64_t done;  // completion_place
  int64_t send_begin;
  bool standard;  // else buffered
};

}  // namespace

void mark_misarrangement(const Timeline& tl, const OpTable& ops, const PartnerTable& partners,
                         std::vector<WaitInstance>* inst) {
  // Receives of local MPI_Send / MPI_Bsend messages by (sender, completing call), and per
  // position the earliest send begin of each mode among the receives of that sender completed
  // at or after it.
  std::vector<LocalRecv> recv;
  for (uint32_t o = 0; o < ops.ops.size() && o < partners.matched_send.size(); ++o) {
    const Op& op = ops.ops[o];
    const PartnerTable::MatchedSend& m = partners.matched_send[o];
    if (op.kind != OpKind::Recv || op.cancelled || is_pscw_tag(op.tag) || !partners.of_op[o].valid() || !m.local) continue;
    const SendMode mode = call_info(m.call).mode;
    if (mode != SendMode::Standard && mode != SendMode::Buffered) continue;
    recv.push_back({partners.of_op[o].rank, completion_place(tl, op), partners.of_op[o].begin, mode == SendMode::Standard});
  }
  if (recv.empty()) return;
  auto key = [](const LocalRecv& r) { return std::make_tuple(r.sender, r.done); };
  std::sort(recv.begin(), recv.end(), [&](const LocalRecv& a, const LocalRecv& b) { return key(a) < key(b); });
  std::vector<int64_t> min_std(recv.size() + 1, INT64_MAX), min_buf(recv.size() + 1, INT64_MAX);
  for (size_t k = recv.size(); k-- > 0;) {
    const bool last_of_sender = k + 1 == recv.size() || recv[k + 1].sender != recv[k].sender ||
                                !same_thread(recv[k + 1].done, recv[k].done);  // and receiving thread
    min_std[k] = last_of_sender ? INT64_MAX : min_std[k + 1];
    min_buf[k] = last_of_sender ? INT64_MAX : min_buf[k + 1];
    (recv[k].standard ? min_std[k] : min_buf[k]) = std::min(recv[k].standard ? min_std[k] : min_buf[k], recv[k].send_begin);
  }
  // The first receive of `sender` the same thread completed after `done`: the suffix minima there.
  auto later = [&](int32_t sender, uint64_t done) {
    const auto it = std::upper_bound(recv.begin(), recv.end(), std::make_tuple(sender, done),
                                     [&](const auto& k, const LocalRecv& r) { return k < key(r); });
    const size_t i = static_cast<size_t>(it - recv.begin());
    if (i == recv.size() || recv[i].sender != sender || !same_thread(recv[i].done, done))
      return std::make_pair(INT64_MAX, INT64_MAX);
    return std::make_pair(min_std[i], min_buf[i]);
  };
  for (WaitInstance& w : *inst) {
    if (w.pattern != WaitPattern::LateSender && w.pattern != WaitPattern::LateSenderWrongOrder) continue;
    bool std_mode = false, buf_mode = false;
    for_each_recv_waited(ops, partners, w, [&](uint32_t o) {
      const Partner& s = partners.of_op[o];
      const auto [s_min, b_min] = later(s.rank, completion_place(tl, ops.ops[o]));
      std_mode |= s_min < s.begin;
      buf_mode |= b_min < s.begin;
      return false;
    });
    if (std_mode) w.pattern = WaitPattern::MisarrangementSend;
    else if (buf_mode) w.pattern = WaitPattern::MisarrangementBsend;
  }
}

}  // namespace cpath
