#include "pmu/sample_builder.h"

namespace cpath::pmu {
namespace {

uint64_t growth(uint64_t now, uint64_t before) { return now >= before ? now - before : 0; }

uint64_t scaled(uint64_t delta, uint64_t enabled, uint64_t running) {
  if (running == 0 || running >= enabled) return delta;
  return static_cast<uint64_t>(static_cast<long double>(delta) * enabled / running);
}

}  // namespace

Sample SampleBuilder::build(const DecodedSample& d) noexcept {
  Sample s;
  s.time_ns = d.time;
  s.ip = d.ip;
  s.tid = d.tid;
  if (weight_from_period_ || !d.has_read) {
    s.weight_ns = weight_from_period_ ? d.period : 0;
    return s;
  }
  const ReadValues& r = d.read;
  const uint64_t enabled = growth(r.time_enabled, prev_.time_enabled);
  const uint64_t running = growth(r.time_running, prev_.time_running);
  s.weight_ns = enabled;
  auto counter = [&](int index) -> uint64_t {
    if (index < 0 || static_cast<uint32_t>(index) >= r.nr) return 0;
    const auto i = static_cast<uint32_t>(index);
    const uint64_t before = i < prev_.nr ? prev_.value[i] : 0;
    return scaled(growth(r.value[i], before), enabled, running);
  };
  s.cycles = counter(cycles_index_);
  s.instructions = counter(instructions_index_);
  prev_ = r;
  return s;
}

}  // namespace cpath::pmu
