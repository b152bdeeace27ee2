#include "trace_file.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "byte_io.h"

namespace cpath {

namespace {

struct FileCloser {
  void operator()(FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<FILE, FileCloser>;

bool put_section(FILE* f, uint32_t type, const std::vector<uint8_t>& payload) {
  ByteWriter h;
  h.put<uint32_t>(type);
  h.put<uint32_t>(0);
  h.put<uint64_t>(payload.size());
  return std::fwrite(h.bytes().data(), 1, h.bytes().size(), f) == h.bytes().size() &&
         std::fwrite(payload.data(), 1, payload.size(), f) == payload.size();
}

}  // namespace

std::vector<uint8_t> serialise_modules(const ModuleMap& mm) {
  ByteWriter md;
  md.put<uint32_t>(static_cast<uint32_t>(mm.modules().size()));
  for (const ModuleInfo& m : mm.modules()) {
    md.put<uint64_t>(m.base);
    md.put<uint64_t>(m.start);
    md.put<uint64_t>(m.end);
    md.put_string(m.path);
  }
  return std::move(md.bytes());
}

bool write_trace_file(const std::string& path, const RankTrace& t, const std::vector<ThreadStream>& streams,
                      std::string* error) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) {
    if (error) *error = "cannot create " + path + ": " + std::strerror(errno);
    return false;
  }
  ByteWriter hdr;
  hdr.put_bytes(kTraceMagic, sizeof kTraceMagic);
  hdr.put<uint32_t>(kTraceVersion);
  const bool paths = t.call_paths.active();
  hdr.put<uint32_t>(static_cast<uint32_t>(5 + (paths ? 1 : 0) + streams.size()));
  bool ok = std::fwrite(hdr.bytes().data(), 1, hdr.bytes().size(), f.get()) == hdr.bytes().size();

  std::string meta;
  for (const auto& kv : t.meta) meta += kv.first + "=" + kv.second + "\n";
  ok = ok && put_section(f.get(), kSecMeta, std::vector<uint8_t>(meta.begin(), meta.end()));

  ByteWriter clk;
  put_clock_section(clk, t.ticks, t.align, t.align_error_ns);
  ok = ok && put_section(f.get(), kSecClock, clk.bytes());

  ByteWriter cm;
  put_comms_section(cm, t.comms.data(), t.comms.size(), &t.comm_table);
  ok = ok && put_section(f.get(), kSecComms, cm.bytes());

  ok = ok && put_section(f.get(), kSecModules, serialise_modules(t.modules));

  ByteWriter tp;
  put_topology_section(tp, t.topologies.data(), t.topologies.size());
  ok = ok && put_section(f.get(), kSecTopology, tp.bytes());

  if (paths) {
    ByteWriter cp;
    put_call_paths_section(cp, t.call_paths.depth, t.call_paths.size(), [&](uint32_t i, uint32_t* len) {
      return t.call_paths.path(i + 1, len);
    });
    ok = ok && put_section(f.get(), kSecCallPaths, cp.bytes());
  }

  for (const ThreadStream& s : streams) {
    uint64_t n = 4;
    for (const auto& sp : s.spans) n += sp.second;
    ByteWriter h;
    h.put<uint32_t>(kSecThread);
    h.put<uint32_t>(0);
    h.put<uint64_t>(n);
    h.put<uint32_t>(s.thread);
    ok = ok && std::fwrite(h.bytes().data(), 1, h.bytes().size(), f.get()) == h.bytes().size();
    for (const auto& sp : s.spans)
      ok = ok && std::fwrite(sp.first, 1, sp.second, f.get()) == sp.second;
  }
  if (std::fflush(f.get()) != 0) ok = false;
  if (!ok && error) *error = "write error on " + path + ": " + std::strerror(errno);
  return ok;
}

bool read_trace_file(const std::string& path, RankTrace* t, std::string* error) {
  auto fail = [&](const std::string& m) {
    if (error) *error = path + ": " + m;
    return false;
  };
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) return fail(std::strerror(errno));
  std::vector<uint8_t> all;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) all.insert(all.end(), buf, buf + n);
  ByteReader r(all.data(), all.size());
  char magic[8];
  uint32_t version = 0, sections = 0;
  for (char& c : magic) r.get(c);
  if (!r.ok() || std::memcmp(magic, kTraceMagic, 8) != 0) return fail("not a libcpath trace file");
  if (!r.get(version) || version < kTraceVersionMin || version > kTraceVersion) return fail("unsupported trace version");
  if (!r.get(sections)) return fail("truncated header");
  *t = RankTrace();
  for (uint32_t s = 0; s < sections; ++s) {
    uint32_t type = 0, flags = 0;
    uint64_t len = 0;
    if (!r.get(type) || !r.get(flags) || !r.get(len) || len > r.left()) {
      // A partial trace whose rank was killed while writing it: what came before is kept,
      // and the last thread's records as far as they go.
      if (t->partial.empty()) return fail("truncated section");
      if (type != kSecThread || !r.ok() || r.left() < 4) break;
      len = r.left();
    }
    ByteReader p(r.pos(), static_cast<size_t>(len));
    r.skip(static_cast<size_t>(len));
    if (type == kSecMeta) {
      std::string text(reinterpret_cast<const char*>(p.pos()), static_cast<size_t>(len));
      size_t i = 0;
      while (i < text.size()) {
        size_t e = text.find('\n', i);
        if (e == std::string::npos) e = text.size();
        std::string line = text.substr(i, e - i);
        const size_t eq = line.find('=');
        if (eq != std::string::npos) t->meta.emplace_back(line.substr(0, eq), line.substr(eq + 1));
        i = e + 1;
      }
      t->rank = std::atoi(t->meta_value("rank").c_str());
      t->size = std::atoi(t->meta_value("size").c_str());
      t->partial = t->meta_value("partial");
      t->end_tick = std::strtoull(t->meta_value("end_tick").c_str(), nullptr, 10);
    } else if (type == kSecClock) {
      p.get(t->ticks.tick0);
      p.get(t->ticks.ns0);
      p.get(t->ticks.ns_per_tick);
      p.get(t->ticks.inject_skew_ns);
      p.get(t->ticks.inject_drift);
      p.get(t->align.ref_local_ns);
      p.get(t->align.offset_ns);
      p.get(t->align.drift);
      p.get(t->align_error_ns);
      if (!p.ok()) return fail("bad clock section");
    } else if (type == kSecComms) {
      uint32_t nc = 0;
      p.get(nc);
      if (nc > len) return fail("bad communicator count");
      t->comms.resize(nc);
      for (CommRecord& c : t->comms) {
        p.get(c.handle);
        p.get(c.created_tick);
        p.get(c.parent);
        p.get(c.key_rank);
        p.get(c.key_counter);
        p.get(c.local_rank);
        p.get(c.size);
        p.get(c.remote_size);
        p.get(c.flags);
        p.get(c.dup_ordinal);
        p.get(c.creator_call);
      }
      t->comm_table.key.resize(nc);
      t->comm_table.group.resize(nc);
      for (uint32_t i = 0; i < nc; ++i) {
        p.get(t->comm_table.key[i]);
        p.get(t->comm_table.group[i]);
      }
      uint32_t ng = 0;
      p.get(ng);
      if (ng > len) return fail("bad group count");
      t->comm_table.groups.resize(ng);
      for (auto& g : t->comm_table.groups) {
        uint32_t gl = 0;
        p.get(gl);
        if (gl > len) return fail("bad group");
        g.resize(gl);
        for (int32_t& x : g) p.get(x);
      }
      if (!p.ok()) return fail("bad communicator section");
      if (p.left() >= 8ull * nc)
        for (CommRecord& c : t->comms) {
          p.get(c.call);
          p.get(c.which);
        }
      t->comm_table.remote_group.assign(nc, CommTable::kNotInter);
      if (p.left() >= 4ull * nc) {
        for (int32_t& g : t->comm_table.remote_group) p.get(g);
      } else {
        for (uint32_t i = 0; i < nc; ++i)
          if (t->comms[i].flags & kCommInter) t->comm_table.remote_group[i] = -1;
      }
      for (int32_t& g : t->comm_table.remote_group)
        if (g != CommTable::kNotInter && (g < -1 || static_cast<size_t>(g) >= ng)) g = -1;
      t->comm_table.world_size = t->size;
      // Not unified (the rank died first): what needs no other rank, here (cpath-ref unifies
      // the raw records of all ranks present itself).
      if (t->meta_value("comm_table") == "unresolved") assign_local_keys(t->comms, t->rank, t->size, &t->comm_table, nullptr);
    } else if (type == kSecModules) {
      uint32_t nm = 0;
      p.get(nm);
      if (nm > len) return fail("bad module count");
      for (uint32_t i = 0; i < nm; ++i) {
        ModuleInfo m;
        p.get(m.base);
        p.get(m.start);
        p.get(m.end);
        p.get_string(m.path);
        t->modules.modules().push_back(m);
      }
      t->modules.sort();
      if (!p.ok()) return fail("bad module section");
    } else if (type == kSecTopology) {
      uint32_t nt = 0;
      p.get(nt);
      if (nt > len) return fail("bad topology count");
      t->topologies.resize(nt);
      for (CommTopology& c : t->topologies) {
        uint32_t kind = 0, n = 0;
        p.get(c.record);
        p.get(kind);
        c.kind = static_cast<TopoKind>(kind);
        p.get(n);
        if (n > len) return fail("bad topology");
        c.sources.resize(n);
        for (int32_t& r : c.sources) p.get(r);
        p.get(n);
        if (n > len) return fail("bad topology");
        c.destinations.resize(n);
        for (int32_t& r : c.destinations) p.get(r);
      }
      if (!p.ok()) return fail("bad topology section");
    } else if (type == kSecCallPaths) {
      uint32_t np = 0;
      p.get(t->call_paths.depth);
      p.get(np);
      if (np > len) return fail("bad call path count");
      for (uint32_t i = 0; i < np; ++i) {
        uint32_t fl = 0;
        p.get(fl);
        if (fl > len) return fail("bad call path");
        for (uint32_t k = 0; k < fl; ++k) {
          uint64_t a = 0;
          p.get(a);
          t->call_paths.frames.push_back(a);
        }
        t->call_paths.begin.push_back(static_cast<uint32_t>(t->call_paths.frames.size()));
      }
      if (!p.ok()) return fail("bad call path section");
    } else if (type == kSecThread) {
      uint32_t idx = 0;
      if (!p.get(idx)) return fail("bad thread section");
      DecodedThread d;
      TraceDecoder dec(idx);
      // A partial trace may end inside a record (a thread was writing it when the rank died):
      // what decodes is kept.
      if (!dec.decode(p.pos(), p.pos() + p.left(), &d) && t->partial.empty())
        return fail("thread " + std::to_string(idx) + ": " + dec.error());
      t->trace_bytes += p.left();
      t->threads.push_back(std::move(d));
    }
  }
  return true;
}

}  // namespace cpath

