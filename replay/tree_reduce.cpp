#include "tree_reduce.h"

#include "yielding_wait.h"
#include "byte_io.h"
#include "tool_collectives.h"

namespace cpath {

namespace {
constexpr int kTreeTag = 0x6374;

void reduce_impl(StringTable* table, MPI_Comm comm, bool use_max) {
  tree_merge_to_root(
      comm, kTreeTag,
      [&](const std::vector<uint8_t>& bytes) {
        StringTable other;
        deserialize_table(bytes, &other);
        for (auto& [k, v] : other) {
          auto& mine = (*table)[k];
          if (use_max) {
            if (mine.empty() || (!v.empty() && v[0] > mine[0])) mine = v;
            continue;
          }
          if (mine.size() < v.size()) mine.resize(v.size(), 0.0);
          for (size_t i = 0; i < v.size(); ++i) mine[i] += v[i];
        }
      },
      [&] { return serialize_table(*table); });
}
}  // namespace

void tree_merge_to_root(MPI_Comm comm, int tag, const std::function<void(const std::vector<uint8_t>&)>& merge_child,
                        const std::function<std::vector<uint8_t>()>& serialize) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  // Children of me are me + 2^k for 2^k > me; the parent is me without its highest bit.
  for (int step = 1; step < np; step *= 2) {
    if (step <= me) continue;
    const int child = me + step;
    if (child >= np) break;
    MPI_Status st;
    probe_yielding(child, tag, comm, &st);
    int n = 0;
    PMPI_Get_count(&st, MPI_BYTE, &n);
    std::vector<uint8_t> buf(static_cast<size_t>(n));
    PMPI_Recv(buf.data(), n, MPI_BYTE, child, tag, comm, MPI_STATUS_IGNORE);
    merge_child(buf);
  }
  if (me > 0) {
    int hb = 1;
    while (hb * 2 <= me) hb *= 2;
    const std::vector<uint8_t> buf = serialize();
    PMPI_Send(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, me - hb, tag, comm);
  }
}

std::vector<uint8_t> serialize_table(const StringTable& t) {
  ByteWriter w;
  w.put<uint32_t>(static_cast<uint32_t>(t.size()));
  for (const auto& [k, v] : t) {
    w.put_string(k);
    w.put<uint32_t>(static_cast<uint32_t>(v.size()));
    for (double d : v) w.put<double>(d);
  }
  return std::move(w.bytes());
}

bool deserialize_table(const std::vector<uint8_t>& b, StringTable* t) {
  ByteReader r(b.data(), b.size());
  uint32_t n = 0;
  if (!r.get(n)) return false;
  for (uint32_t i = 0; i < n; ++i) {
    std::string k;
    uint32_t m = 0;
    if (!r.get_string(k) || !r.get(m) || m > r.left()) return false;
    std::vector<double> v(m);
    for (double& d : v) r.get(d);
    (*t)[k] = std::move(v);
  }
  return r.ok();
}

void reduce_table_to_root(StringTable* table, MPI_Comm comm) { reduce_impl(table, comm, false); }
void reduce_table_to_root_max(StringTable* table, MPI_Comm comm) { reduce_impl(table, comm, true); }

void broadcast_strings(std::vector<std::string>* v, MPI_Comm comm) {
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  ByteWriter w;
  if (me == 0) {
    w.put<uint32_t>(static_cast<uint32_t>(v->size()));
    for (const std::string& s : *v) w.put_string(s);
  }
  long long n = static_cast<long long>(w.bytes().size());
  tool_bcast(&n, 1, MPI_LONG_LONG, 0, comm);
  std::vector<uint8_t> buf(static_cast<size_t>(n));
  if (me == 0) buf = w.bytes();
  tool_bcast(buf.data(), static_cast<int>(n), MPI_BYTE, 0, comm);
  if (me != 0) {
    ByteReader r(buf.data(), buf.size());
    uint32_t k = 0;
    r.get(k);
    v->clear();
    for (uint32_t i = 0; i < k; ++i) {
      std::string s;
      if (!r.get_string(s)) break;
      v->push_back(std::move(s));
    }
  }
}

bool gather_bytes_to_root(const std::vector<uint8_t>& mine, MPI_Comm comm,
                          const std::function<void(int rank, const uint8_t* data, size_t size)>& take,
                          uint64_t round_bytes, uint64_t limit, uint64_t* total) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  // Sizes first: rank 0 cuts the rounds so that each Gatherv's int counts and displacements hold.
  unsigned long long my_size = mine.size();
  std::vector<unsigned long long> sizes(me == 0 ? static_cast<size_t>(np) : 0);
  tool_gather(&my_size, 1, MPI_UNSIGNED_LONG_LONG, sizes.data(), 1, MPI_UNSIGNED_LONG_LONG, 0, comm);
  std::vector<int> round_begin;  // first rank of each round, then np; empty = too large
  uint64_t sum = 0;
  if (me == 0) {
    uint64_t in_round = 0;
    round_begin.push_back(0);
    for (int r = 0; r < np; ++r) {
      const uint64_t s = sizes[static_cast<size_t>(r)];
      sum += s;
      if (in_round + s > round_bytes && in_round > 0) {
        round_begin.push_back(r);
        in_round = 0;
      }
      in_round += s;
    }
    round_begin.push_back(np);
    if (sum > limit) round_begin.clear();
    if (total) *total = sum;
  }
  int rounds = me == 0 ? static_cast<int>(round_begin.size()) : 0;
  tool_bcast(&rounds, 1, MPI_INT, 0, comm);
  round_begin.resize(static_cast<size_t>(rounds));
  if (rounds > 0) tool_bcast(round_begin.data(), rounds, MPI_INT, 0, comm);
  std::vector<uint8_t> buf;
  std::vector<int> counts(me == 0 ? static_cast<size_t>(np) : 0), displs(counts.size());
  for (int k = 0; k + 1 < rounds; ++k) {
    const int lo = round_begin[static_cast<size_t>(k)], hi = round_begin[static_cast<size_t>(k) + 1];
    const bool in_round = me >= lo && me < hi;
    if (me == 0) {
      size_t off = 0;
      for (int r = 0; r < np; ++r) {
        counts[static_cast<size_t>(r)] = r >= lo && r < hi ? static_cast<int>(sizes[static_cast<size_t>(r)]) : 0;
        displs[static_cast<size_t>(r)] = static_cast<int>(off);
        off += static_cast<size_t>(counts[static_cast<size_t>(r)]);
      }
      buf.assign(off, 0);
    }
    tool_gatherv(mine.data(), in_round ? static_cast<int>(mine.size()) : 0, MPI_BYTE, buf.data(), counts.data(),
                 displs.data(), MPI_BYTE, 0, comm);
    if (me == 0)
      for (int r = lo; r < hi; ++r)
        take(r, buf.data() + displs[static_cast<size_t>(r)], static_cast<size_t>(counts[static_cast<size_t>(r)]));
  }
  return me != 0 || rounds > 0;
}

}  // namespace cpath
