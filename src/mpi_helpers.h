// Small MPI queries the generated wrappers use to compute byte counts and to read Fortran
// statuses. They run only after the wrapped call succeeded, and only on arguments that are
// significant on the calling rank.
#pragma once
#include <mpi.h>

#include <cstdint>

namespace cpath {

// Enough MPI_Fint for one Fortran status of any MPI we build against.
constexpr int kFStatusMax = 16;
constexpr int kFStatusSize = static_cast<int>(sizeof(MPI_Status) / sizeof(MPI_Fint));
static_assert(kFStatusSize <= kFStatusMax, "Fortran status larger than expected");
static_assert(sizeof(MPI_Fint) == sizeof(int), "count arrays are read as int");

inline uint64_t type_size(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return 0;
  // The _x form: a datatype of 2 GiB or more has no int size (MPI_UNDEFINED), and 0 bytes would
  // make its collective one that moves no data (rule 4).
  MPI_Count s = 0;
  if (PMPI_Type_size_x(t, &s) != MPI_SUCCESS || s < 0) return 0;
  return static_cast<uint64_t>(s);
}

// type_size with a one-entry per-thread cache. Only predefined datatypes are cached: they
// are never freed, so a handle can never come back meaning another type.
template <class TS>
uint64_t type_size_miss(TS* ts, MPI_Datatype t) {
  const uint64_t s = type_size(t);
  int ni = 0, na = 0, nd = 0, combiner = 0;
  if (t != MPI_DATATYPE_NULL && PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) == MPI_SUCCESS &&
      combiner == MPI_COMBINER_NAMED) {
    ts->last_type = t;
    ts->last_type_size = s;
  }
  return s;
}

template <class TS>
inline __attribute__((always_inline)) uint64_t type_size(TS* ts, MPI_Datatype t) {
  if (t == ts->last_type && t != MPI_DATATYPE_NULL) return ts->last_type_size;
  return type_size_miss(ts, t);
}

// Number of peers a collective's count arrays cover: the group size, or the remote group's
// size on an intercommunicator.
int coll_size(MPI_Comm c);
// Number of in-neighbours of a process topology (neighbourhood collectives).
int in_degree(MPI_Comm c);
bool is_root(MPI_Comm c, int root);
// Sums of count arrays: int, or MPI_Count for the large-count (_c) variants and Fortran's wide
// integers. Templates, so that MPI libraries without MPI_Count-taking functions never
// instantiate them.
template <typename Count>
uint64_t sum_counts(const Count* counts, int n) {
  if (!counts) return 0;
  uint64_t s = 0;
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0) s += static_cast<uint64_t>(counts[i]);
  return s;
}
template <typename Count>
uint64_t sum_typed(const Count* counts, const MPI_Datatype* types, int n) {
  if (!counts || !types) return 0;
  uint64_t s = 0;
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0) s += static_cast<uint64_t>(counts[i]) * type_size(types[i]);
  return s;
}
template <typename Count>
uint64_t sum_typed_f(const Count* counts, const MPI_Fint* types, int n) {
  if (!counts || !types) return 0;
  uint64_t s = 0;
  for (int i = 0; i < n; ++i)
    if (counts[i] > 0) s += static_cast<uint64_t>(counts[i]) * type_size(MPI_Type_f2c(types[i]));
  return s;
}

// Fortran status -> C status; leaves source/tag at MPI_PROC_NULL/MPI_ANY_TAG-like values if
// the call failed.
void status_from_fortran(const MPI_Fint* f, int rc, MPI_Status* out);

// Uniform access to a C or Fortran array of statuses.
class StatusesView {
 public:
  explicit StatusesView(const MPI_Status* c) : c_(c) {}
  StatusesView(const MPI_Fint* f, int rc) : f_(f), rc_(rc) {}
  const MPI_Status* at(int i) {
    if (c_) return c_ + i;
    status_from_fortran(f_ + static_cast<long>(i) * kFStatusSize, rc_, &tmp_);
    return &tmp_;
  }
  bool ok(int i, int rc) { return rc == MPI_SUCCESS || at(i)->MPI_ERROR == MPI_SUCCESS; }

 private:
  const MPI_Status* c_ = nullptr;
  const MPI_Fint* f_ = nullptr;
  int rc_ = MPI_SUCCESS;
  MPI_Status tmp_;
};

}  // namespace cpath
