#include "comm_unification.h"

#include <algorithm>
#include <map>

namespace cpath {

uint64_t record_key(const CommRecord& r) {
  if (r.flags & kCommWorld) return kWorldCommKey;
  return (static_cast<uint64_t>(static_cast<uint32_t>(r.key_rank)) << 32) | r.key_counter;
}

uint64_t dup_key(uint64_t parent_key, uint32_t ordinal) {
  uint64_t h = parent_key ^ (0x9e3779b97f4a7c15ull * (ordinal + 1));
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 29;
  h |= 1ull << 63;
  return h == kWorldCommKey ? h - 1 : h;
}

int32_t intern_group(CommTable* t, std::vector<int32_t> ranks) {
  if (t->group_index.size() != t->groups.size()) {
    t->group_index.clear();
    for (size_t i = 0; i < t->groups.size(); ++i) t->group_index.emplace(t->groups[i], static_cast<int32_t>(i));
  }
  auto it = t->group_index.find(ranks);
  if (it != t->group_index.end()) return it->second;
  const int32_t id = static_cast<int32_t>(t->groups.size());
  t->group_index.emplace(ranks, id);
  t->groups.push_back(std::move(ranks));
  return id;
}

void assign_local_keys(const std::vector<CommRecord>& records, int world_rank, int world_size, CommTable* t,
                       std::vector<size_t>* pending) {
  t->world_size = world_size;
  t->key.assign(records.size(), 0);
  t->group.assign(records.size(), -1);
  t->groups.clear();
  std::vector<int32_t> world(static_cast<size_t>(world_size));
  for (int i = 0; i < world_size; ++i) world[static_cast<size_t>(i)] = i;
  t->groups.push_back(std::move(world));
  for (size_t i = 0; i < records.size(); ++i) {
    const CommRecord& r = records[i];
    if (r.flags & kCommDup) {
      // Parents precede children in the record list.
      const uint64_t pk = r.parent >= 0 ? t->key[static_cast<size_t>(r.parent)] : 0;
      t->key[i] = dup_key(pk, r.dup_ordinal);
      t->group[i] = r.parent >= 0 ? t->group[static_cast<size_t>(r.parent)] : -1;
      continue;
    }
    t->key[i] = record_key(r);
    if (r.flags & kCommInter) {
      t->group[i] = -1;
    } else if (r.flags & kCommWorldGroup) {
      t->group[i] = 0;
    } else if (r.size == 1) {
      t->group[i] = intern_group(t, {world_rank});
    } else if (pending) {
      pending->push_back(i);
    }
  }
}

CommTable unify_communicators(const std::vector<CommRecord>& records, MPI_Comm comm) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  CommTable t;
  std::vector<size_t> pending;
  assign_local_keys(records, me, np, &t, &pending);

  // Phase 1: each member tells the defining process (key_rank) its (key, local rank).
  // Phase 2: each defining process sends the assembled group back to every member.
  // Message item: key_rank, key_counter, local_rank (phase 1) / key_rank, key_counter, size,
  // ranks... (phase 2). Sparse in data, O(P) in the count exchange.
  std::vector<std::vector<int32_t>> to(static_cast<size_t>(np));
  std::map<uint64_t, std::vector<int32_t>> mine;  // groups this process defines, by key
  for (size_t i : pending) {
    const CommRecord& r = records[i];
    if (r.key_rank == me) {
      auto& g = mine[t.key[i]];
      g.assign(static_cast<size_t>(r.size), -1);
      g[static_cast<size_t>(r.local_rank)] = me;
    }
  }
  for (size_t i : pending) {
    const CommRecord& r = records[i];
    if (r.key_rank != me && r.key_rank >= 0 && r.key_rank < np) {
      auto& v = to[static_cast<size_t>(r.key_rank)];
      v.insert(v.end(), {r.key_rank, static_cast<int32_t>(r.key_counter), r.local_rank});
    }
  }
  auto exchange = [&](std::vector<std::vector<int32_t>>& out) {
    std::vector<int> scount(static_cast<size_t>(np)), rcount(static_cast<size_t>(np)), sdisp(static_cast<size_t>(np)),
        rdisp(static_cast<size_t>(np));
    std::vector<int32_t> sbuf;
    for (int p = 0; p < np; ++p) {
      sdisp[static_cast<size_t>(p)] = static_cast<int>(sbuf.size());
      scount[static_cast<size_t>(p)] = static_cast<int>(out[static_cast<size_t>(p)].size());
      sbuf.insert(sbuf.end(), out[static_cast<size_t>(p)].begin(), out[static_cast<size_t>(p)].end());
    }
    PMPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, comm);
    int total = 0;
    for (int p = 0; p < np; ++p) {
      rdisp[static_cast<size_t>(p)] = total;
      total += rcount[static_cast<size_t>(p)];
    }
    std::vector<int32_t> rbuf(static_cast<size_t>(total > 0 ? total : 1));
    PMPI_Alltoallv(sbuf.data(), scount.data(), sdisp.data(), MPI_INT, rbuf.data(), rcount.data(), rdisp.data(),
                   MPI_INT, comm);
    std::vector<std::vector<int32_t>> in(static_cast<size_t>(np));
    for (int p = 0; p < np; ++p)
      in[static_cast<size_t>(p)].assign(rbuf.begin() + rdisp[static_cast<size_t>(p)],
                                        rbuf.begin() + rdisp[static_cast<size_t>(p)] + rcount[static_cast<size_t>(p)]);
    return in;
  };
  std::vector<std::vector<int32_t>> in = exchange(to);
  std::map<uint64_t, std::vector<int32_t>> members;  // key -> world ranks of members (to reply to)
  for (int p = 0; p < np; ++p) {
    const auto& v = in[static_cast<size_t>(p)];
    for (size_t j = 0; j + 3 <= v.size(); j += 3) {
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(v[j])) << 32) | static_cast<uint32_t>(v[j + 1]);
      auto it = mine.find(key);
      if (it == mine.end() || v[j + 2] < 0 || static_cast<size_t>(v[j + 2]) >= it->second.size()) continue;
      it->second[static_cast<size_t>(v[j + 2])] = p;
      members[key].push_back(p);
    }
  }
  std::vector<std::vector<int32_t>> back(static_cast<size_t>(np));
  for (auto& [key, ranks] : members) {
    const auto& g = mine[key];
    for (int32_t p : ranks) {
      auto& v = back[static_cast<size_t>(p)];
      v.push_back(static_cast<int32_t>(key >> 32));
      v.push_back(static_cast<int32_t>(key & 0xffffffffu));
      v.push_back(static_cast<int32_t>(g.size()));
      v.insert(v.end(), g.begin(), g.end());
    }
  }
  std::vector<std::vector<int32_t>> got = exchange(back);
  std::map<uint64_t, std::vector<int32_t>> known = mine;
  for (const auto& v : got) {
    size_t j = 0;
    while (j + 3 <= v.size()) {
      const uint64_t key = (static_cast<uint64_t>(static_cast<uint32_t>(v[j])) << 32) | static_cast<uint32_t>(v[j + 1]);
      const size_t n = static_cast<size_t>(v[j + 2]);
      if (j + 3 + n > v.size()) break;
      known[key].assign(v.begin() + static_cast<long>(j + 3), v.begin() + static_cast<long>(j + 3 + n));
      j += 3 + n;
    }
  }
  for (size_t i : pending) {
    auto it = known.find(t.key[i]);
    if (it != known.end() && std::find(it->second.begin(), it->second.end(), -1) == it->second.end())
      t.group[i] = intern_group(&t, it->second);
  }
  // idup children of communicators resolved just now.
  for (size_t i = 0; i < records.size(); ++i)
    if ((records[i].flags & kCommDup) && records[i].parent >= 0)
      t.group[i] = t.group[static_cast<size_t>(records[i].parent)];
  return t;
}

}  // namespace cpath
