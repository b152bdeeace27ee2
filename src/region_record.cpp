// Decoding of region markers (region_record.h); the writer is in user_regions.cpp.
#include "region_record.h"

#include "trace_decoder.h"
#include "varint.h"

namespace cpath {

bool TraceDecoder::decode_region(unsigned kind, const uint8_t*& p, const uint8_t* end, DecodedThread* out) {
  uint64_t v = 0, id = 0;
  if (kind == kRegionNameRecord) {
    uint64_t len = 0;
    if (!get_varint(p, end, id) || !get_varint(p, end, len) || len > kMaxRegionName ||
        len > static_cast<uint64_t>(end - p) || id == 0 || id > (1u << 24)) {
      error_ = "bad region name record";
      return false;
    }
    if (out->region_names.size() <= id) out->region_names.resize(id + 1);
    out->region_names[id].assign(reinterpret_cast<const char*>(p), len);
    p += len;
    return true;
  }
  if (kind < static_cast<unsigned>(RegionKind::Begin) || kind > static_cast<unsigned>(RegionKind::Phase)) {
    error_ = "unknown region record";
    return false;
  }
  if (!get_varint(p, end, v) || !get_varint(p, end, id)) {
    error_ = "truncated region record";
    return false;
  }
  RegionMark m;
  m.tick = last_tick_ + static_cast<uint64_t>(unzigzag(v));
  last_tick_ = m.tick;
  m.kind = static_cast<RegionKind>(kind);
  m.id = static_cast<uint32_t>(id);
  m.thread = thread_;
  m.next_event = static_cast<uint32_t>(out->events.size());
  if (id == 0 ? m.kind != RegionKind::End : id >= out->region_names.size()) {
    error_ = "region marker before its name";
    return false;
  }
  out->regions.push_back(m);
  return true;
}

}  // namespace cpath
