#include "comm_name.h"

#include <cinttypes>
#include <cstdio>

namespace cpath {

std::string comm_name(const RankTrace& t, int32_t rec) {
  if (rec < 0 || static_cast<size_t>(rec) >= t.comms.size() || static_cast<size_t>(rec) >= t.comm_table.key.size())
    return "?";
  const CommRecord& cr = t.comms[static_cast<size_t>(rec)];
  const uint64_t key = t.comm_table.key[static_cast<size_t>(rec)];
  if (key == kWorldCommKey) return "world";
  if (cr.flags & kCommSelf) return "self";
  if ((cr.flags & kCommDup) && cr.parent >= 0 && cr.parent < rec)
    return comm_name(t, cr.parent) + ".dup" + std::to_string(cr.dup_ordinal);
  // Made by a collective call on a known parent: the parent's name, the call's number among
  // those made on it, and the colour (or leader) that tells its communicators apart — readable,
  // and the same on every member.
  // (Not an intercommunicator: its two groups have different parents, and its key names it
  // the same on both.)
  if ((cr.flags & kCommByCall) && !(cr.flags & kCommInter) && cr.parent >= 0 && cr.parent < rec)
    return comm_name(t, cr.parent) + "#" + std::to_string(cr.call) + ":" + std::to_string(cr.which);
  char buf[48];
  if (key >> 63)
    std::snprintf(buf, sizeof buf, "i%016" PRIx64, key);
  else
    std::snprintf(buf, sizeof buf, "c%u.%u", static_cast<unsigned>(key >> 32), static_cast<unsigned>(key & 0xffffffffu));
  return buf;
}

}  // namespace cpath
