#include "pag.h"

namespace cpath {

RankPag::RankPag(const Timeline& tl, const OpTable& ops, const std::vector<Partner>& partners,
                 const Partner& init_partner, int world_rank)
    : tl_(tl), ops_(ops), partners_(partners), init_partner_(init_partner), me_(world_rank) {
  for (uint32_t i = 0; i < tl.ev.size(); ++i) {
    const CallKind k = call_info(tl.ev[i].e.call).kind;
    if (k == CallKind::Init && init_ == kNoEvent) init_ = i;
    if (k == CallKind::Finalize) finalize_ = i;
  }
}

bool RankPag::is_init(uint32_t i) const { return i == init_; }

PagTarget RankPag::end_edge(uint32_t i) const {
  const TimelineEvent& te = tl_.ev[i];
  PagTarget best{me_, i, te.begin};
  auto consider = [&](const Partner& p) {
    PagTarget c{p.rank, p.event, p.begin};
    if (p.valid() && pag_prefers(c, best, te.end, me_, i)) best = c;
  };
  if (i == init_) consider(init_partner_);
  for (uint32_t k = ops_.done_begin[i]; k < ops_.done_begin[i + 1]; ++k) consider(partners_[ops_.done_ops[k]]);
  return best;
}

uint32_t RankPag::prev(uint32_t i) const {
  if (i == 0) return kNoEvent;
  const int64_t b = tl_.ev[i].begin;
  if (tl_.ev[i - 1].end <= b) return i - 1;
  // Calls from several threads overlap: take the latest earlier call that ended before this
  // one began, looking back a bounded distance.
  for (uint32_t j = i - 1, n = 0; j-- > 0 && n < 64; ++n)
    if (tl_.ev[j].end <= b) return j;
  return i - 1;
}

}  // namespace cpath
