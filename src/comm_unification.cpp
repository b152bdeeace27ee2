#include "comm_unification.h"

#include <algorithm>
#include <map>

#include "tool_collectives.h"

namespace cpath {

uint64_t record_key(const CommRecord& r) {
  if (r.flags & kCommWorld) return kWorldCommKey;
  return (static_cast<uint64_t>(static_cast<uint32_t>(r.key_rank)) << 32) | r.key_counter;
}

static uint64_t mix64(uint64_t h) {
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 29;
  h *= 0x94d049bb133111ebull;
  h ^= h >> 32;
  return h;
}

uint64_t dup_key(uint64_t parent_key, uint32_t ordinal) {
  uint64_t h = parent_key ^ (0x9e3779b97f4a7c15ull * (ordinal + 1));
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 29;
  h |= 1ull << 63;
  return h == kWorldCommKey ? h - 1 : h;
}

uint64_t call_key(uint64_t parent_key, uint32_t call, int32_t which) {
  // Top bit set: never equal to a seed-003 key (world rank < 2^31 in the top half).
  uint64_t h = mix64(parent_key ^ 0x2545f4914f6cdd1dull);
  h = mix64(h ^ (static_cast<uint64_t>(call) * 0x9e3779b97f4a7c15ull));
  h = mix64(h ^ static_cast<uint64_t>(static_cast<uint32_t>(which)) ^ 0xd6e8feb86659fd93ull);
  h |= 1ull << 63;
  return h == kWorldCommKey ? h - 1 : h;
}

int key_owner(uint64_t key, const CommRecord& r, int world_size) {
  if (!(r.flags & kCommByCall)) return r.key_rank;
  return static_cast<int>(mix64(key) % static_cast<uint64_t>(world_size > 0 ? world_size : 1));
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
  t->remote_group.assign(records.size(), CommTable::kNotInter);
  t->groups.clear();
  t->group_index.clear();
  std::vector<int32_t> world(static_cast<size_t>(world_size));
  for (int i = 0; i < world_size; ++i) world[static_cast<size_t>(i)] = i;
  t->groups.push_back(std::move(world));
  for (size_t i = 0; i < records.size(); ++i) {
    const CommRecord& r = records[i];
    if (r.flags & kCommInter) t->remote_group[i] = -1;
    if (r.flags & kCommDup) {
      // Parents precede children in the record list.
      const uint64_t pk = r.parent >= 0 ? t->key[static_cast<size_t>(r.parent)] : 0;
      t->key[i] = dup_key(pk, r.dup_ordinal);
      t->group[i] = r.parent >= 0 ? t->group[static_cast<size_t>(r.parent)] : -1;
      continue;
    }
    t->key[i] = record_key(r);
    if (r.flags & kCommInter) {
      // Both groups resolved by the exchange when this job holds them (kCommInterKnown).
      if ((r.flags & kCommInterKnown) && pending) pending->push_back(i);
    } else if (r.flags & kCommWorldGroup) {
      t->group[i] = 0;
    } else if (r.size == 1) {
      t->group[i] = intern_group(t, {world_rank});
    } else if (pending) {
      pending->push_back(i);
    }
  }
}

namespace {

// One member's claim on a communicator: "I am local rank `local` of the `size` members of `key`".
// An intercommunicator's sides are claimed as two communicators (side_key); `inter` (1 + side)
// asks the owner for the other side's group too.
struct Claim {
  uint64_t key;
  int32_t local, size, world;
  int32_t inter;
};

uint64_t side_key(uint64_t key, int side) { return key ^ (side ? 0x6a09e667f3bcc909ull : 0x3c6ef372fe94f82bull); }

// The key a record claims, and its `inter` marker.
uint64_t claim_key(const CommRecord& r, uint64_t key, int32_t* inter) {
  *inter = 0;
  if (!(r.flags & kCommInter)) return key;
  const int side = (r.flags & kCommInterSide1) ? 1 : 0;
  *inter = 1 + side;
  return side_key(key, side);
}

// Sorts the claims and turns each key's into its group (world ranks by local rank). A key
// whose claims disagree on the size, leave a slot empty or fill one twice (a member's trace
// missing, or two communicators hashed to one key) gets no group: unknown, never wrong.
// Output: (key, offset into `ranks`, size or 0 when unknown), sorted by key.
struct Resolved {
  uint64_t key;
  size_t offset;
  int32_t size;
};
void resolve_claims(std::vector<Claim>* claims, std::vector<Resolved>* out, std::vector<int32_t>* ranks) {
  std::sort(claims->begin(), claims->end(), [](const Claim& a, const Claim& b) {
    return a.key != b.key ? a.key < b.key : a.local < b.local;
  });
  size_t i = 0;
  while (i < claims->size()) {
    size_t j = i;
    while (j < claims->size() && (*claims)[j].key == (*claims)[i].key) ++j;
    const int32_t n = (*claims)[i].size;
    bool ok = n > 0 && static_cast<size_t>(n) == j - i;
    for (size_t k = i; ok && k < j; ++k)
      ok = (*claims)[k].size == n && (*claims)[k].local == static_cast<int32_t>(k - i);
    out->push_back({(*claims)[i].key, ranks->size(), ok ? n : 0});
    if (ok)
      for (size_t k = i; k < j; ++k) ranks->push_back((*claims)[k].world);
    i = j;
  }
}

const Resolved* find_resolved(const std::vector<Resolved>& v, uint64_t key) {
  auto it = std::lower_bound(v.begin(), v.end(), key, [](const Resolved& r, uint64_t k) { return r.key < k; });
  return it != v.end() && it->key == key ? &*it : nullptr;
}

// Exchange of int32 lists with every rank: Alltoall of counts, Alltoallv of data.
std::vector<int32_t> exchange(const std::vector<std::vector<int32_t>>& out, MPI_Comm comm, std::vector<int>* from_disp,
                              std::vector<int>* from_count) {
  const size_t np = out.size();
  std::vector<int> scount(np), sdisp(np);
  from_count->assign(np, 0);
  from_disp->assign(np, 0);
  std::vector<int32_t> sbuf;
  for (size_t p = 0; p < np; ++p) {
    sdisp[p] = static_cast<int>(sbuf.size());
    scount[p] = static_cast<int>(out[p].size());
    sbuf.insert(sbuf.end(), out[p].begin(), out[p].end());
  }
  tool_alltoall(scount.data(), 1, MPI_INT, from_count->data(), 1, MPI_INT, comm);
  int total = 0;
  for (size_t p = 0; p < np; ++p) {
    (*from_disp)[p] = total;
    total += (*from_count)[p];
  }
  std::vector<int32_t> rbuf(static_cast<size_t>(total > 0 ? total : 1));
  if (sbuf.empty()) sbuf.push_back(0);
  tool_alltoallv(sbuf.data(), scount.data(), sdisp.data(), MPI_INT, rbuf.data(), from_count->data(), from_disp->data(),
                 MPI_INT, comm);
  rbuf.resize(static_cast<size_t>(total));
  return rbuf;
}

int32_t hi(uint64_t k) { return static_cast<int32_t>(static_cast<uint32_t>(k >> 32)); }
int32_t lo(uint64_t k) { return static_cast<int32_t>(static_cast<uint32_t>(k)); }
uint64_t join(int32_t h, int32_t l) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(h)) << 32) | static_cast<uint32_t>(l);
}

uint64_t other_side(uint64_t claimed, int32_t inter) {
  const int side = inter - 1;
  return side_key(side_key(claimed, side), 1 - side);
}

// Record i's group (and an intercommunicator's remote group) from the resolved groups, when
// they have the sizes the record says.
void set_groups(const CommRecord& rec, uint64_t key, const std::vector<Resolved>& known, const std::vector<int32_t>& ranks,
                CommTable* t, size_t i) {
  auto group_of = [&](uint64_t k, int32_t size) {
    const Resolved* r = find_resolved(known, k);
    if (!r || r->size != size || r->size <= 0) return -1;
    return intern_group(t, std::vector<int32_t>(ranks.begin() + static_cast<long>(r->offset),
                                                ranks.begin() + static_cast<long>(r->offset + static_cast<size_t>(r->size))));
  };
  int32_t inter = 0;
  const uint64_t ck = claim_key(rec, key, &inter);
  t->group[i] = group_of(ck, rec.size);
  if (inter) t->remote_group[i] = group_of(other_side(ck, inter), rec.remote_size);
}

// Duplicates of communicators resolved by the exchange take their parent's group.
void inherit_dup_groups(const std::vector<CommRecord>& records, CommTable* t) {
  for (size_t i = 0; i < records.size(); ++i)
    if ((records[i].flags & kCommDup) && records[i].parent >= 0) {
      t->group[i] = t->group[static_cast<size_t>(records[i].parent)];
      t->remote_group[i] = t->remote_group[static_cast<size_t>(records[i].parent)];
    }
}

}  // namespace

CommTable unify_communicators(const std::vector<CommRecord>& records, MPI_Comm comm) {
  int me = 0, np = 1;
  PMPI_Comm_rank(comm, &me);
  PMPI_Comm_size(comm, &np);
  CommTable t;
  std::vector<size_t> pending;
  assign_local_keys(records, me, np, &t, &pending);

  // Phase 1: each member sends (key, local rank, size, inter) to the key's owner (both sides
  // of an intercommunicator to one owner, that of its key).
  std::vector<std::vector<int32_t>> to(static_cast<size_t>(np));
  for (size_t i : pending) {
    const CommRecord& r = records[i];
    const int owner = key_owner(t.key[i], r, np);
    if (owner < 0 || owner >= np) continue;
    int32_t inter = 0;
    const uint64_t ck = claim_key(r, t.key[i], &inter);
    to[static_cast<size_t>(owner)].insert(to[static_cast<size_t>(owner)].end(), {hi(ck), lo(ck), r.local_rank, r.size, inter});
  }
  std::vector<int> disp, count;
  std::vector<int32_t> in = exchange(to, comm, &disp, &count);
  std::vector<Claim> claims;
  claims.reserve(in.size() / 5);
  for (int p = 0; p < np; ++p)
    for (int j = disp[static_cast<size_t>(p)]; j + 5 <= disp[static_cast<size_t>(p)] + count[static_cast<size_t>(p)]; j += 5)
      claims.push_back({join(in[static_cast<size_t>(j)], in[static_cast<size_t>(j) + 1]), in[static_cast<size_t>(j) + 2],
                        in[static_cast<size_t>(j) + 3], p, in[static_cast<size_t>(j) + 4]});
  std::vector<Resolved> resolved;
  std::vector<int32_t> ranks;
  resolve_claims(&claims, &resolved, &ranks);

  // Phase 2: the owner answers every member with (key, size, world ranks...), size 0 = unknown;
  // an intercommunicator's member also gets the other side's group.
  std::vector<std::vector<int32_t>> back(static_cast<size_t>(np));
  for (const Claim& c : claims) {
    auto& v = back[static_cast<size_t>(c.world)];
    auto answer = [&](uint64_t key) {
      const Resolved* r = find_resolved(resolved, key);
      v.insert(v.end(), {hi(key), lo(key), r ? r->size : 0});
      if (r && r->size > 0) v.insert(v.end(), ranks.begin() + static_cast<long>(r->offset), ranks.begin() + static_cast<long>(r->offset + static_cast<size_t>(r->size)));
    };
    answer(c.key);
    if (c.inter) answer(other_side(c.key, c.inter));
  }
  std::vector<int32_t> got = exchange(back, comm, &disp, &count);
  std::vector<Resolved> known;
  for (size_t j = 0; j + 3 <= got.size();) {
    const int32_t n = got[j + 2];
    if (n < 0 || j + 3 + static_cast<size_t>(n) > got.size()) break;
    known.push_back({join(got[j], got[j + 1]), j + 3, n});
    j += 3 + static_cast<size_t>(n);
  }
  std::sort(known.begin(), known.end(), [](const Resolved& a, const Resolved& b) { return a.key < b.key; });
  for (size_t i : pending) set_groups(records[i], t.key[i], known, got, &t, i);
  inherit_dup_groups(records, &t);
  return t;
}

std::vector<CommTable> unify_offline(const std::vector<const std::vector<CommRecord>*>& records,
                                     const std::vector<int>& world_ranks, int world_size) {
  std::vector<CommTable> tables(records.size());
  std::vector<std::vector<size_t>> pending(records.size());
  std::vector<Claim> claims;
  for (size_t k = 0; k < records.size(); ++k) {
    assign_local_keys(*records[k], world_ranks[k], world_size, &tables[k], &pending[k]);
    for (size_t i : pending[k]) {
      const CommRecord& r = (*records[k])[i];
      int32_t inter = 0;
      const uint64_t ck = claim_key(r, tables[k].key[i], &inter);
      claims.push_back({ck, r.local_rank, r.size, world_ranks[k], inter});
    }
  }
  std::vector<Resolved> resolved;
  std::vector<int32_t> ranks;
  resolve_claims(&claims, &resolved, &ranks);
  for (size_t k = 0; k < records.size(); ++k) {
    for (size_t i : pending[k]) set_groups((*records[k])[i], tables[k].key[i], resolved, ranks, &tables[k], i);
    inherit_dup_groups(*records[k], &tables[k]);
  }
  return tables;
}

}  // namespace cpath
