#include "trace_decoder.h"

#include "region_record.h"
#include "varint.h"

#include <algorithm>

namespace cpath {

bool TraceDecoder::decode(const uint8_t* p, const uint8_t* end, DecodedThread* out) {
  auto fail = [&](const char* what) {
    error_ = what;
    return false;
  };
  uint64_t v = 0;
  auto get = [&](uint64_t& x) { return get_varint(p, end, x); };
  auto get_handle = [&](uint64_t& h) {
    if (!get(v)) return false;
    h = last_handle_ + static_cast<uint64_t>(unzigzag(v));
    if (h) last_handle_ = h;
    return true;
  };
  while (p < end) {
    Event e;
    e.thread = thread_;
    if (!get(v)) return fail("truncated record header");
    e.call = static_cast<uint16_t>(v >> kHeaderFlagBits);
    e.flags = static_cast<uint8_t>(v & ((1u << kHeaderFlagBits) - 1));
    if (e.call == 0 && e.flags == kRepeatRecord) {
      // The thread's last event was the first of a run of identical unsuccessful polls: it
      // lasts until the run's last one ended.
      uint64_t n = 0, d = 0;
      if (!get(n) || !get(d)) return fail("truncated repeat record");
      if (out->events.empty() || n == 0 || n > 0xffffffffull) return fail("repeat record without its poll");
      last_tick_ += d;
      out->events.back().t_end = last_tick_;
      out->repeats.emplace_back(static_cast<uint32_t>(out->events.size() - 1), static_cast<uint32_t>(n));
      continue;
    }
    if (e.call == 0 && e.flags == kCpuRecord) {
      uint64_t t = 0, c = 0;
      if (!get(t) || !get(c)) return fail("truncated CPU record");
      last_cpu_ += c;
      out->cpu.emplace_back(last_tick_ + static_cast<uint64_t>(unzigzag(t)), last_cpu_);
      continue;
    }
    if (e.call == 0 && e.flags == kRepeatCycleRecord) {
      if (!repeat_cycle(p, end, out)) return false;
      continue;
    }
    if (e.call == 0 && e.flags != 0) {
      if (!decode_region(e.flags, p, end, out)) return false;
      continue;
    }
    if (e.call == 0 || e.call >= kNumCalls) return fail("unknown call id");
    if (!get(v)) return fail("truncated begin time");
    e.t_begin = last_tick_ + static_cast<uint64_t>(unzigzag(v));
    if (!get(v)) return fail("truncated duration");
    e.t_end = e.t_begin + v;
    last_tick_ = e.t_end;
    if (!get(v)) return fail("truncated call site");
    e.callsite = last_callsite_[e.call] + static_cast<uint64_t>(unzigzag(v));
    last_callsite_[e.call] = e.callsite;
    const uint32_t f = kCallInfo[e.call].fields;
    if (f & kField_peer) {
      if (!get(v)) return fail("truncated peer");
      e.peer = static_cast<int32_t>(unzigzag(v));
    }
    if (f & kField_tag) {
      if (!get(v)) return fail("truncated tag");
      e.tag = static_cast<int32_t>(unzigzag(v));
    }
    if (f & kField_peer2) {
      if (!get(v)) return fail("truncated peer2");
      e.peer2 = static_cast<int32_t>(unzigzag(v));
    }
    if (f & kField_tag2) {
      if (!get(v)) return fail("truncated tag2");
      e.tag2 = static_cast<int32_t>(unzigzag(v));
    }
    if (f & kField_comm) {
      if (p >= end) return fail("truncated communicator");
      int i = *p++;
      uint64_t h;
      if (i < 4) {
        h = comm_mru_[i];
      } else if (i == 4) {
        if (!get(h)) return fail("truncated communicator handle");
        i = 3;
      } else {
        return fail("bad communicator code");
      }
      for (; i > 0; --i) comm_mru_[i] = comm_mru_[i - 1];
      comm_mru_[0] = h;
      e.comm = h;
    }
    if (f & kField_root) {
      if (!get(v)) return fail("truncated root");
      e.root = static_cast<int32_t>(unzigzag(v));
    }
    if (f & kField_bytes) {
      if (!get(e.bytes)) return fail("truncated bytes");
    }
    if (f & kField_req) {
      if (!get_handle(e.req)) return fail("truncated request");
    }
    if (f & kField_req2) {
      if (!get_handle(e.req2)) return fail("truncated request");
    }
    if (f & kField_reqlist) {
      uint64_t n;
      if (!get(n) || n > static_cast<uint64_t>(end - p)) return fail("bad request list");
      e.list_begin = static_cast<uint32_t>(out->reqlists.size());
      e.list_count = static_cast<uint32_t>(n);
      for (uint64_t i = 0; i < n; ++i) {
        uint64_t h;
        if (!get_handle(h)) return fail("truncated request list");
        out->reqlists.push_back(h);
      }
    }
    if (f & kField_completions) {
      uint64_t n;
      if (!get(n) || n > static_cast<uint64_t>(end - p)) return fail("bad completion list");
      e.list_begin = static_cast<uint32_t>(out->completions.size());
      e.list_count = static_cast<uint32_t>(n);
      for (uint64_t i = 0; i < n; ++i) {
        Completion c;
        uint64_t s, t;
        if (!get_handle(c.req) || !get(s) || !get(t)) return fail("truncated completion");
        c.cancelled = s & 1;
        c.source = static_cast<int32_t>(unzigzag(s >> 1));
        c.tag = static_cast<int32_t>(unzigzag(t));
        out->completions.push_back(c);
      }
    }
    if (f & kField_flag) {
      if (!get(v)) return fail("truncated flag");
      e.flag = v ? 1 : 0;
    }
    if (f & kField_newcomm) {
      if (!get(v)) return fail("truncated new communicator");
      e.newcomm = static_cast<int32_t>(v);
    }
    if (f & kField_aux) {
      if (!get(v)) return fail("truncated aux");
      e.aux = unzigzag(v);
    }
    if (f & kField_obj) {
      if (!get(v)) return fail("truncated window/file");
      e.obj = last_obj_ + static_cast<uint64_t>(unzigzag(v));
      last_obj_ = e.obj;
    }
    if (f & kField_polls) {
      uint64_t n;
      if (!get(n) || n > static_cast<uint64_t>(end - p) + 1) return fail("bad poll list");
      if (n > 0) {
        last_polls_.clear();
        for (uint64_t i = 1; i < n; ++i) {
          uint64_t h;
          if (!get_handle(h)) return fail("truncated poll list");
          last_polls_.push_back(h);
        }
        have_polls_ = true;
        polls_out_ = nullptr;
      }
      if (have_polls_) {
        if (polls_out_ != out) {
          polls_at_ = static_cast<uint32_t>(out->polls.size());
          out->polls.insert(out->polls.end(), last_polls_.begin(), last_polls_.end());
          polls_out_ = out;
        }
        e.poll_begin = polls_at_;
        e.poll_count = static_cast<uint32_t>(last_polls_.size());
      }
    }
    if (kCallInfo[e.call].kind == CallKind::Gap) {
      GapRecord g;
      g.before = static_cast<uint32_t>(out->events.size());
      g.t = e.t_begin;
      g.comm = e.newcomm - 1;
      g.obj = e.obj;
      g.count = e.aux > 0 ? static_cast<uint64_t>(e.aux) : 0;
      out->gaps.push_back(g);
      continue;
    }
    if (f & (kField_flag | kField_polls)) {
      poll_newest_ = (poll_newest_ + 1) % kCycle;
      PollBases& b = poll_bases_[poll_newest_];
      b.event = static_cast<uint32_t>(out->events.size());
      b.call = e.call;
      b.site = e.callsite;
      b.handle = last_handle_;
      b.obj = last_obj_;
      for (int i = 0; i < 4; ++i) b.mru[i] = comm_mru_[i];
      b.have_polls = have_polls_;
      b.polls_at = polls_at_;
      b.polls_n = static_cast<uint32_t>(last_polls_.size());
      b.out = polls_out_;
    }
    out->events.push_back(e);
  }
  return true;
}

// The thread's last p events were a cycle of polls, and n more polls repeated it: the first a
// copy of its first event, and so on round. The last event lasts until the last poll ended;
// each event stands for its copies too. When the run stopped within a cycle, the writer's bases
// are those its copies of the cycle's first (n mod p) events left, which these events left.
bool TraceDecoder::repeat_cycle(const uint8_t*& p, const uint8_t* end, DecodedThread* out) {
  if (p >= end) return (error_ = "truncated repeat record", false);
  const unsigned period = *p++;
  uint64_t n = 0, d = 0;
  if (!get_varint(p, end, n) || !get_varint(p, end, d)) return (error_ = "truncated repeat record", false);
  const size_t size = out->events.size();
  if (period < 2 || period > kCycle || n == 0 || n > 0xffffffffull || size < period)
    return (error_ = "repeat record without its polls", false);
  // The cycle's j-th event (0-based) and the bases it left.
  auto bases = [&](unsigned j) -> const PollBases& {
    return poll_bases_[(poll_newest_ + kCycle - period + 1 + j) % kCycle];
  };
  for (unsigned j = 0; j < period; ++j)
    if (bases(j).event != size - period + j) return (error_ = "repeat record without its polls", false);
  last_tick_ += d;
  out->events.back().t_end = last_tick_;
  for (unsigned j = 0; j < period; ++j) {
    const uint32_t copies = static_cast<uint32_t>((n + period - 1 - j) / period);
    if (!copies) continue;
    const std::pair<uint32_t, uint32_t> r(static_cast<uint32_t>(size - period + j), copies);
    // By event: an earlier run of one record may have counted a later event of the cycle.
    if (out->repeats.empty() || out->repeats.back().first <= r.first)
      out->repeats.push_back(r);
    else
      out->repeats.insert(std::upper_bound(out->repeats.begin(), out->repeats.end(), r,
                                           [](const auto& a, const auto& b) { return a.first < b.first; }),
                          r);
  }
  const unsigned rest = static_cast<unsigned>(n % period);
  if (rest == 0) return true;
  for (unsigned j = 0; j < rest; ++j) last_callsite_[bases(j).call] = bases(j).site;
  const PollBases& b = bases(rest - 1);
  last_handle_ = b.handle;
  last_obj_ = b.obj;
  for (int i = 0; i < 4; ++i) comm_mru_[i] = b.mru[i];
  if (b.have_polls && b.out == out && b.polls_at + static_cast<uint64_t>(b.polls_n) <= out->polls.size()) {
    last_polls_.assign(out->polls.begin() + b.polls_at, out->polls.begin() + b.polls_at + b.polls_n);
    polls_at_ = b.polls_at;
    polls_out_ = out;
    have_polls_ = true;
  } else if (b.have_polls != have_polls_ || b.have_polls) {
    return (error_ = "repeat record's polls out of reach", false);
  }
  return true;
}

}  // namespace cpath
