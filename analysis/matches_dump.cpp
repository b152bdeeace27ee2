#include "matches_dump.h"

#include <cstdio>

namespace cpath {

void write_matches_file(const std::string& path, const OpTable& ops, const std::vector<SenderOp>& senders) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  uint32_t nsend = 0, nrecv = 0, npeek = 0;
  for (uint32_t i = 0; i < ops.ops.size(); ++i) {
    const OpKind k = ops.ops[i].kind;
    const SenderOp s = i < senders.size() ? senders[i] : SenderOp();
    const long long src_op = s.rank >= 0 ? static_cast<long long>(s.op) : -1;
    if (k == OpKind::Send)
      std::fprintf(f, "send %u %u\n", nsend++, i);
    else if (k == OpKind::Recv)
      std::fprintf(f, "recv %u %d %lld\n", nrecv++, s.rank, src_op);
    else if (k == OpKind::Peek)
      std::fprintf(f, "peek %u %d %lld\n", npeek++, s.rank, src_op);
  }
  std::fclose(f);
}

}  // namespace cpath
