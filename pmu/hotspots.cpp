#include "pmu/hotspots.h"

#include <algorithm>
#include <cstring>

namespace cpath::pmu {
namespace {

constexpr uint8_t kMagic[4] = {'C', 'P', 'H', 'T'};
constexpr uint8_t kVersion = 1;
constexpr uint8_t kFlagCycles = 1;
constexpr uint8_t kFlagInstructions = 2;

std::string row_key(const std::string& function, const std::string& module) {
  std::string k;
  k.reserve(function.size() + module.size() + 1);
  k += function;
  k += '\0';
  k += module;
  return k;
}

void put_varint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}

void put_string(std::vector<uint8_t>& out, const std::string& s) {
  put_varint(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

class Reader {
 public:
  Reader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool varint(uint64_t& v) {
    v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      const uint8_t b = *p_++;
      if (shift == 63 && b > 1) return false;  // would overflow 64 bits
      v |= uint64_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) return true;
    }
    return false;
  }
  bool string(std::string& s) {
    uint64_t n;
    if (!varint(n) || n > left()) return false;
    s.assign(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return true;
  }
  bool bytes(const uint8_t*& p, size_t n) {
    if (n > left()) return false;
    p = p_;
    p_ += n;
    return true;
  }
  size_t left() const { return static_cast<size_t>(end_ - p_); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

bool keep_column(bool mine, bool mine_empty, bool theirs, bool theirs_empty) {
  return (mine || mine_empty) && (theirs || theirs_empty);
}

}  // namespace

void HotspotTable::add(const std::string& function, const std::string& module, uint64_t samples,
                       uint64_t cpu_ns, uint64_t cycles, uint64_t instructions) {
  std::string key = row_key(function, module);
  auto it = index_.find(key);
  if (it == index_.end()) {
    HotspotRow row;
    row.function = function;
    row.module = module;
    rows_.push_back(std::move(row));
    it = index_.emplace(std::move(key), rows_.size() - 1).first;
  }
  HotspotRow& r = rows_[it->second];
  r.samples += samples;
  r.cpu_ns += cpu_ns;
  r.cycles += cycles;
  r.instructions += instructions;
}

void HotspotTable::merge(const HotspotTable& other) {
  const bool cyc = keep_column(has_cycles, empty(), other.has_cycles, other.empty());
  const bool ins = keep_column(has_instructions, empty(), other.has_instructions, other.empty());
  for (const HotspotRow& r : other.rows_)
    add(r.function, r.module, r.samples, r.cpu_ns, r.cycles, r.instructions);
  has_cycles = cyc;
  has_instructions = ins;
}

uint64_t HotspotTable::total_cpu_ns() const noexcept {
  uint64_t t = 0;
  for (const HotspotRow& r : rows_) t += r.cpu_ns;
  return t;
}

std::vector<HotspotRow> HotspotTable::top(size_t n) const {
  std::vector<const HotspotRow*> order;
  order.reserve(rows_.size());
  for (const HotspotRow& r : rows_) order.push_back(&r);
  const size_t k = std::min(n, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(k), order.end(),
                    [](const HotspotRow* a, const HotspotRow* b) {
                      if (a->cpu_ns != b->cpu_ns) return a->cpu_ns > b->cpu_ns;
                      if (a->samples != b->samples) return a->samples > b->samples;
                      if (a->function != b->function) return a->function < b->function;
                      return a->module < b->module;
                    });
  std::vector<HotspotRow> out;
  out.reserve(k);
  for (size_t i = 0; i < k; ++i) out.push_back(*order[i]);
  return out;
}

bool HotspotTable::serialise(std::vector<uint8_t>& out) const noexcept {
  try {
    out.clear();
    // Byte by byte: GCC 12 misreports a range insert here (-Wstringop-overflow).
    for (uint8_t b : kMagic) out.push_back(b);
    out.push_back(kVersion);
    out.push_back(static_cast<uint8_t>((has_cycles ? kFlagCycles : 0) |
                                       (has_instructions ? kFlagInstructions : 0)));
    // A few modules hold most functions: store their names once.
    std::unordered_map<std::string, uint64_t> module_ids;
    std::vector<const std::string*> modules;
    for (const HotspotRow& r : rows_)
      if (module_ids.emplace(r.module, modules.size()).second) modules.push_back(&r.module);
    put_varint(out, modules.size());
    for (const std::string* m : modules) put_string(out, *m);
    put_varint(out, rows_.size());
    for (const HotspotRow& r : rows_) {
      put_string(out, r.function);
      put_varint(out, module_ids[r.module]);
      put_varint(out, r.samples);
      put_varint(out, r.cpu_ns);
      put_varint(out, r.cycles);
      put_varint(out, r.instructions);
    }
    return true;
  } catch (...) {
    out.clear();
    return false;
  }
}

bool HotspotTable::deserialise(const uint8_t* data, size_t len, HotspotTable& out) noexcept {
  try {
    Reader rd(data, len);
    const uint8_t* head;
    if (!rd.bytes(head, 6) || std::memcmp(head, kMagic, 4) != 0 || head[4] != kVersion ||
        (head[5] & ~(kFlagCycles | kFlagInstructions)) != 0)
      return false;
    HotspotTable t;
    t.has_cycles = (head[5] & kFlagCycles) != 0;
    t.has_instructions = (head[5] & kFlagInstructions) != 0;
    uint64_t n_modules;
    if (!rd.varint(n_modules) || n_modules > rd.left()) return false;  // >= 1 byte each
    std::vector<std::string> modules(static_cast<size_t>(n_modules));
    for (std::string& m : modules)
      if (!rd.string(m)) return false;
    uint64_t n_rows;
    if (!rd.varint(n_rows) || n_rows > rd.left() / 6) return false;  // >= 6 bytes each
    std::string function;
    for (uint64_t i = 0; i < n_rows; ++i) {
      uint64_t module, samples, cpu_ns, cycles, instructions;
      if (!rd.string(function) || !rd.varint(module) || module >= n_modules || !rd.varint(samples) ||
          !rd.varint(cpu_ns) || !rd.varint(cycles) || !rd.varint(instructions))
        return false;
      t.add(function, modules[static_cast<size_t>(module)], samples, cpu_ns, cycles, instructions);
    }
    if (rd.left() != 0) return false;
    out = std::move(t);
    return true;
  } catch (...) {
    return false;
  }
}

void HotspotTables::merge(const HotspotTables& other) {
  all.merge(other.all);
  inside.merge(other.inside);
  compute.merge(other.compute);
  mpi.merge(other.mpi);
}

bool HotspotTables::serialise(std::vector<uint8_t>& out) const noexcept {
  try {
    out.clear();
    std::vector<uint8_t> one;
    for (const HotspotTable* t : {&all, &inside, &compute, &mpi}) {
      if (!t->serialise(one)) return false;
      put_varint(out, one.size());
      out.insert(out.end(), one.begin(), one.end());
    }
    return true;
  } catch (...) {
    out.clear();
    return false;
  }
}

bool HotspotTables::deserialise(const uint8_t* data, size_t len, HotspotTables& out) noexcept {
  try {
    Reader rd(data, len);
    HotspotTables t;
    for (HotspotTable* table : {&t.all, &t.inside, &t.compute, &t.mpi}) {
      uint64_t n;
      const uint8_t* p;
      if (!rd.varint(n) || !rd.bytes(p, static_cast<size_t>(std::min<uint64_t>(n, SIZE_MAX))) ||
          !HotspotTable::deserialise(p, static_cast<size_t>(n), *table))
        return false;
    }
    if (rd.left() != 0) return false;
    out = std::move(t);
    return true;
  } catch (...) {
    return false;
  }
}

bool aggregate_hotspots(const std::vector<Sample>& samples, const std::vector<TimeInterval>& intervals,
                        const FunctionResolver& resolve, bool has_cycles, bool has_instructions,
                        HotspotTables& out, const std::vector<std::string>& labels) noexcept {
  try {
    out = HotspotTables{};
    for (HotspotTable* t : {&out.all, &out.inside, &out.compute, &out.mpi}) {
      t->has_cycles = has_cycles;
      t->has_instructions = has_instructions;
    }

    std::vector<TimeInterval> sorted;
    const std::vector<TimeInterval>* iv = &intervals;
    auto by_start = [](const TimeInterval& a, const TimeInterval& b) { return a.t0 < b.t0; };
    if (!std::is_sorted(intervals.begin(), intervals.end(), by_start)) {
      sorted = intervals;
      std::stable_sort(sorted.begin(), sorted.end(), by_start);
      iv = &sorted;
    }

    // Resolve each distinct address once (the resolver is the expensive part).
    std::unordered_map<uint64_t, FunctionKey> keys;
    for (const Sample& s : samples) {
      auto it = keys.find(s.ip);
      if (it == keys.end()) it = keys.emplace(s.ip, resolve ? resolve(s.ip) : FunctionKey{"[unknown]", "[unknown]"}).first;
      const FunctionKey& k = it->second;
      const uint64_t cyc = has_cycles ? s.cycles : 0;
      const uint64_t ins = has_instructions ? s.instructions : 0;
      out.all.add(k.function, k.module, 1, s.weight_ns, cyc, ins);

      // Last interval starting at or before the sample, if it still covers it.
      auto after = std::upper_bound(iv->begin(), iv->end(), s.time_ns,
                                    [](uint64_t t, const TimeInterval& i) { return t < i.t0; });
      if (after == iv->begin()) continue;
      const TimeInterval& in = *(after - 1);
      if (!in.holds(s)) continue;
      const bool mpi = in.kind == IntervalKind::mpi || !k.mpi_call.empty() || k.tool;
      const std::string* call = in.kind == IntervalKind::mpi && in.label < labels.size() ? &labels[in.label]
                                : !k.mpi_call.empty() && !labels.empty()                ? &k.mpi_call
                                                                                         : nullptr;
      if (call)
        out.inside.add("inside " + *call, "(MPI)", 1, s.weight_ns, cyc, ins);
      else
        out.inside.add(k.function, k.module, 1, s.weight_ns, cyc, ins);
      (mpi ? out.mpi : out.compute).add(k.function, k.module, 1, s.weight_ns, cyc, ins);
    }
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace cpath::pmu
