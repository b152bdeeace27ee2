// Barrier Completion and NxN Completion (Scalasca): time a member spends in an N-to-N
// collective after the first member left it (its end minus the earliest end among the
// members, from no earlier than its own begin). Nobody leaves before the last member entered,
// so this time follows the Wait at Barrier / Wait at NxN part and never overlaps it: it is
// the collective's own cost, spread unevenly (a slow algorithm step, a descheduled member).
// The earliest end per instance rides on the collective replay's reduction
// (PartnerTable::first_end), so it costs no message of its own. Counted only where the
// completing call completes this one operation, so no other pattern's wait is inside it.
#include <algorithm>

#include "call_info.h"
#include "wait_states.h"

namespace cpath {

void find_completions(const Timeline& tl, const OpTable& ops, const PartnerTable& partners,
                      const std::vector<uint32_t>& path_calls, std::vector<WaitInstance>* out) {
  for (const auto& [o, first] : partners.first_end) {
    if (o >= ops.ops.size()) continue;
    const Op& op = ops.ops[o];
    const uint32_t d = op.done;
    if (op.kind != OpKind::Collective || op.pattern != Pattern::All || !first.valid() || d >= tl.ev.size()) continue;
    if (ops.done_begin[d + 1] - ops.done_begin[d] != 1) continue;
    const int64_t from = std::max(first.begin, tl.ev[d].begin);
    if (tl.ev[d].end <= from) continue;
    const char* call = op.args < tl.ev.size() ? call_info(tl.ev[op.args].e.call).name : nullptr;
    WaitPattern nxn;
    if (!wait_at_nxn_rule(op, call, &nxn)) continue;
    WaitInstance w;
    w.event = d;
    w.op = o;
    w.partner_rank = first.rank;
    w.partner_event = first.event;
    w.wait_from = from;
    w.partner_begin = tl.ev[d].end;  // lost() = the time in the call after the first member left
    w.pattern = nxn == WaitPattern::WaitAtBarrier ? WaitPattern::BarrierCompletion : WaitPattern::NxNCompletion;
    w.on_path = std::binary_search(path_calls.begin(), path_calls.end(), d);
    out->push_back(w);
  }
}

}  // namespace cpath
