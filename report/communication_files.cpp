// Files beside report.json (docs/report.md): the sparse communication matrix and the
// per-rank collective and histogram rows as CSV (one line in pandas or numpy), start-up per
// rank, and the suggested placement as an Open MPI rankfile and an MPICH/Hydra host list.
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <string>

#include "report.h"

namespace cpath {

namespace {

class CsvFile {
 public:
  CsvFile(const std::string& dir, const char* name, std::vector<std::string>* failed)
      : name_(name), failed_(failed), f_(std::fopen((dir + "/" + name).c_str(), "w")) {
    if (!f_) failed_->push_back(name_);
  }
  ~CsvFile() {
    if (f_ && (std::fclose(f_) != 0 || !ok_)) failed_->push_back(name_);
  }
  void line(const char* f, ...) __attribute__((format(printf, 2, 3))) {
    if (!f_) return;
    va_list ap;
    va_start(ap, f);
    ok_ = std::vfprintf(f_, f, ap) >= 0 && ok_;
    va_end(ap);
  }
  explicit operator bool() const { return f_ != nullptr; }

 private:
  std::string name_;
  std::vector<std::string>* failed_;
  FILE* f_;
  bool ok_ = true;
};

std::string optional_bytes(int64_t b) { return b < 0 ? std::string() : std::to_string(b); }

// Host names go into CSV fields as they are unless they need quoting.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

void communication_files(const CommunicationReport& c, const std::string& dir, std::vector<std::string>* failed) {
  {
    CsvFile f(dir, "comm_p2p.csv", failed);
    f.line("src,dst,bytes,messages\n");
    for (const P2PPair& p : c.pairs)
      f.line("%d,%d,%" PRIu64 ",%" PRIu64 "\n", p.src, p.dst, p.bytes, p.messages);
  }
  {
    CsvFile f(dir, "comm_collectives.csv", failed);
    f.line("comm,op,rank,comm_size,calls,bytes_sent,bytes_recv,time_ns\n");
    for (const CollectiveRow& r : c.collectives)
      f.line("%s,%s,%d,%d,%" PRIu64 ",%s,%s,%" PRId64 "\n", r.comm.c_str(), r.op.c_str(), r.rank, r.comm_size, r.calls,
             optional_bytes(r.bytes_sent).c_str(), optional_bytes(r.bytes_recv).c_str(), r.time_ns);
  }
  {
    CsvFile f(dir, "comm_histogram.csv", failed);
    f.line("rank,kind,bin,count\n");
    for (const HistogramRow& h : c.histogram)
      f.line("%d,%s,%d,%" PRIu64 "\n", h.rank, h.kind == kHistP2P ? "p2p" : "collective", h.bin, h.count);
  }
}

void startup_file(const StartupReport& s, const std::string& dir, std::vector<std::string>* failed) {
  CsvFile f(dir, "startup.csv", failed);
  f.line("rank,host,preinit_s,init_s,finalize_s\n");
  for (size_t k = 0; k < s.init_s.size(); ++k) {
    char pre[32] = "";  // empty when the process start time was unknown
    if (s.preinit_s[k] >= 0) std::snprintf(pre, sizeof pre, "%.9f", s.preinit_s[k]);
    f.line("%zu,%s,%s,%.9f,%.9f\n", k, csv_field(k < s.hosts.size() ? s.hosts[k] : "").c_str(), pre, s.init_s[k],
           s.finalize_s[k]);
  }
}

void placement_files(const PlacementReport& p, const std::string& dir, std::vector<std::string>* failed) {
  std::vector<int> next_slot(p.node_names.size(), 0);
  {
    // Open MPI: mpirun --rankfile rankfile -np N ./app   ("rank R=HOST slot=S").
    CsvFile f(dir, p.rankfile.c_str(), failed);
    for (size_t r = 0; r < p.suggested.size(); ++r) {
      const size_t node = static_cast<size_t>(p.suggested[r]);
      f.line("rank %zu=%s slot=%d\n", r, p.node_names[node].c_str(), next_slot[node]++);
    }
  }
  {
    // Hydra gives consecutive ranks to each "host:n" line in turn, so runs of ranks on the same
    // node become one line and any mapping can be written.
    CsvFile f(dir, p.hostfile.c_str(), failed);
    for (size_t r = 0; r < p.suggested.size();) {
      size_t e = r;
      while (e < p.suggested.size() && p.suggested[e] == p.suggested[r]) ++e;
      f.line("%s:%zu\n", p.node_names[static_cast<size_t>(p.suggested[r])].c_str(), e - r);
      r = e;
    }
  }
}

}  // namespace

void write_communication_files(const Report& r, const std::string& dir, std::vector<std::string>* failed) {
  if (r.communication.present) communication_files(r.communication, dir, failed);
  if (r.startup.present) startup_file(r.startup, dir, failed);
  if (r.placement.present && !r.placement.rankfile.empty()) placement_files(r.placement, dir, failed);
}

}  // namespace cpath
