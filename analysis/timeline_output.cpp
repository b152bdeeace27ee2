#include "timeline_output.h"

#include <cstdio>
#include <functional>
#include <memory>

#include "yielding_wait.h"
#include "clock.h"
#include "timeline_window.h"
#include "tool_collectives.h"

namespace cpath {

namespace {

constexpr size_t kChunk = size_t{4} << 20;
constexpr int kFunnelTag = 0x746c;

// Where a rank's bytes go: its offset in a file opened by every rank with MPI-IO, or (when
// MPI-IO is not usable) rank 0's stdio file, to which the other ranks send their parts in turn.
class Sink {
 public:
  // `total`: the file's size, the same on every rank. Below `mpiio_min` bytes rank 0 writes the
  // file alone: the first MPI_File_open of a job sets up the library's I/O layer (Open MPI's
  // ompio opens its fs/fbtl/fcoll components: 0.2-0.4 s measured here), which costs more than
  // sending a few MiB to one rank.
  Sink(const std::string& path, uint64_t total, uint64_t mpiio_min, MPI_Comm comm) : comm_(comm) {
    PMPI_Comm_rank(comm, &me_);
    PMPI_Comm_size(comm, &np_);
    if (total < mpiio_min) {
      if (me_ == 0) {
        f_ = std::fopen(path.c_str(), "wb");
        ok_ = f_ != nullptr;
      }
      return;
    }
    // The application may have made file errors fatal (MPI_FILE_NULL's handler is inherited).
    MPI_Errhandler old;
    PMPI_File_get_errhandler(MPI_FILE_NULL, &old);
    PMPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    const int rc = PMPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh_);
    PMPI_File_set_errhandler(MPI_FILE_NULL, old);
    PMPI_Errhandler_free(&old);
    int mine = rc == MPI_SUCCESS, all = 0;
    tool_allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    mpiio_ = all != 0;
    if (!mpiio_ && me_ == 0) {
      if (fh_ != MPI_FILE_NULL) fh_ = MPI_FILE_NULL;  // mixed outcome: leave it, closing is collective
      f_ = std::fopen(path.c_str(), "wb");
      ok_ = f_ != nullptr;
    }
  }

  // This rank's bytes, in order, starting at `offset`.
  void write(uint64_t offset, const void* data, size_t n) {
    if (!n) return;
    if (mpiio_) {
      if (!started_) off_ = offset, started_ = true;
      const int rc = PMPI_File_write_at(fh_, static_cast<MPI_Offset>(off_), data, static_cast<int>(n), MPI_BYTE,
                                        MPI_STATUS_IGNORE);
      ok_ = ok_ && rc == MPI_SUCCESS;
      off_ += n;
    } else if (me_ == 0) {
      ok_ = ok_ && std::fwrite(data, 1, n, f_) == n;
    } else {
      PMPI_Send(data, static_cast<int>(n), MPI_BYTE, 0, kFunnelTag, comm_);
    }
  }

  // Collective: closes the file at `total` bytes; true if every rank wrote all its bytes.
  bool finish(uint64_t total) {
    if (mpiio_) {
      PMPI_File_set_size(fh_, static_cast<MPI_Offset>(total));
      PMPI_File_close(&fh_);
    } else if (me_ == 0) {
      // The other ranks' parts, in rank order; each ends with an empty message.
      std::string buf;
      for (int r = 1; r < np_; ++r) {
        while (true) {
          MPI_Status st;
          probe_yielding(r, kFunnelTag, comm_, &st);
          int n = 0;
          PMPI_Get_count(&st, MPI_BYTE, &n);
          buf.resize(static_cast<size_t>(n));
          PMPI_Recv(&buf[0], n, MPI_BYTE, r, kFunnelTag, comm_, MPI_STATUS_IGNORE);
          if (n == 0) break;
          if (f_) ok_ = ok_ && std::fwrite(buf.data(), 1, buf.size(), f_) == buf.size();
        }
      }
      if (f_) ok_ = (std::fclose(f_) == 0) && ok_;
      f_ = nullptr;
    } else {
      PMPI_Send(nullptr, 0, MPI_BYTE, 0, kFunnelTag, comm_);
    }
    int mine = ok_, all = 0;
    tool_allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm_);
    return all != 0;
  }
  bool parallel() const { return mpiio_; }

 private:
  MPI_Comm comm_;
  int me_ = 0, np_ = 1;
  MPI_File fh_ = MPI_FILE_NULL;
  FILE* f_ = nullptr;
  bool mpiio_ = false, ok_ = true, started_ = false;
  uint64_t off_ = 0;
};

}  // namespace

TimelineSummary write_timeline(const TimelinePart& part, const std::string& dir, uint64_t cap, uint64_t mpiio_min,
                               const std::string& app,
                               int64_t origin_ns, int64_t span_ns, MPI_Comm comm) {
  const int64_t t_start = monotonic_raw_ns();
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  TimelineInfo info;
  info.ranks = np;
  info.origin_ns = origin_ns;
  info.span_ns = span_ns;
  info.cap_bytes = cap;
  info.app = app;

  // Job-wide histograms (JSON bytes and slice counts by the bin each slice begins in, the
  // path's weight per bin); every rank takes the same decision from the same sums.
  std::vector<uint64_t> local = timeline_histogram(part, info, me == 0), global(local.size(), 0);
  TimelineWindow bins;
  bins.bins = kTimelineBins;
  bins.origin = origin_ns;
  bins.span = span_ns > 0 ? span_ns : 1;
  std::vector<double> weight, weight_sum(kTimelineBins, 0.0);
  add_path_weight(part, bins, &weight);
  tool_allreduce(local.data(), global.data(), static_cast<int>(local.size()), MPI_UINT64_T, MPI_SUM, comm);
  tool_allreduce(weight.data(), weight_sum.data(), static_cast<int>(kTimelineBins), MPI_DOUBLE, MPI_SUM, comm);
  const TimelineWindow w = decide_timeline_window(global, weight_sum, &info);

  // Exact sizes, then offsets.
  const std::string header = timeline_json_header(info), footer = timeline_json_footer();
  uint64_t json = timeline_json_fixed_size(part, info, me == 0);
  for (uint32_t b = 0; b < kTimelineBins; ++b) {
    if (w.keeps_bin(b)) json += local[b];
    if (w.keeps_path_bin(b)) json += local[kTlHistPath + b];
  }
  if (me == 0) json += header.size();
  if (me == np - 1) json += footer.size();
  std::vector<uint8_t> bin = timeline_bin_part(part, w);
  if (me == 0) {
    std::vector<uint8_t> h = timeline_bin_header(info);
    bin.insert(bin.begin(), h.begin(), h.end());
  }
  uint64_t sizes[2] = {json, bin.size()}, offsets[2] = {0, 0}, totals[2] = {0, 0};
  tool_exscan(sizes, offsets, 2, MPI_UINT64_T, MPI_SUM, comm);
  if (me == 0) offsets[0] = offsets[1] = 0;
  tool_allreduce(sizes, totals, 2, MPI_UINT64_T, MPI_SUM, comm);

  bool ok = true;
  {
    Sink out(dir + "/timeline.json", totals[0], mpiio_min, comm);
    std::string buf;
    buf.reserve(kChunk + 4096);
    uint64_t written = 0;
    auto flush = [&](std::string_view b) {
      out.write(offsets[0], b.data(), b.size());
      written += b.size();
    };
    if (me == 0) buf = header;
    timeline_json_part(part, info, w, me == 0, &buf, kChunk, flush);
    if (me == np - 1) buf += footer;
    flush(buf);
    ok = written == json;
    ok = out.finish(totals[0]) && ok;
  }
  {
    Sink out(dir + "/timeline.bin", totals[1], mpiio_min, comm);
    out.write(offsets[1], bin.data(), bin.size());  // no copy: the kept slices can be tens of MiB
    ok = out.finish(totals[1]) && ok;
  }
  int mine = ok, all = 0;
  tool_allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
  double t = static_cast<double>(monotonic_raw_ns() - t_start) * 1e-9, t_max = 0;
  tool_reduce(&t, &t_max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);

  TimelineSummary s;
  s.written = all != 0;
  s.file = "timeline.json";
  s.bytes = totals[0];
  s.cap_bytes = cap;
  s.capped = info.capped;
  s.window_begin_s = static_cast<double>(info.window_begin_ns - origin_ns) * 1e-9;
  s.window_end_s = static_cast<double>(info.window_end_ns - origin_ns) * 1e-9;
  s.slices_total = info.slices_total;
  s.slices_kept = info.slices_kept;
  s.write_s = t_max;
  s.note = info.note;
  if (!s.written) s.note = "timeline.json could not be written completely into " + dir;
  return s;
}

}  // namespace cpath
