#include "eager_limit.h"

#include <cstring>
#include <vector>

namespace cpath {

namespace {

// Reads an integer control variable not bound to an object; false if absent or unreadable.
bool read_cvar(const char* name, long long* out) {
  int index = -1;
  if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS || index < 0) return false;
  char nm[256], desc[16];
  int nl = sizeof nm, dl = sizeof desc, verbosity = 0, bind = 0, scope = 0;
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_T_enum en;
  if (MPI_T_cvar_get_info(index, nm, &nl, &verbosity, &dt, &en, desc, &dl, &bind, &scope) != MPI_SUCCESS) return false;
  if (bind != MPI_T_BIND_NO_OBJECT) return false;
  MPI_T_cvar_handle h;
  int count = 0;
  if (MPI_T_cvar_handle_alloc(index, nullptr, &h, &count) != MPI_SUCCESS) return false;
  bool ok = false;
  if (count == 1) {
    alignas(8) unsigned char buf[64] = {};
    if (MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
      ok = true;
      if (dt == MPI_INT) {
        int v;
        std::memcpy(&v, buf, sizeof v);
        *out = v;
      } else if (dt == MPI_UNSIGNED) {
        unsigned v;
        std::memcpy(&v, buf, sizeof v);
        *out = v;
      } else if (dt == MPI_LONG || dt == MPI_LONG_LONG) {
        long long v;
        std::memcpy(&v, buf, sizeof v);
        *out = v;
      } else if (dt == MPI_UNSIGNED_LONG || dt == MPI_UNSIGNED_LONG_LONG || dt == MPI_COUNT) {
        unsigned long long v;
        std::memcpy(&v, buf, sizeof v);
        *out = static_cast<long long>(v);
      } else {
        ok = false;
      }
    }
  }
  MPI_T_cvar_handle_free(&h);
  return ok;
}

bool mpich_device_is(const char* dev) {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int n = 0;
  if (MPI_Get_library_version(v, &n) != MPI_SUCCESS) return false;
  const char* d = std::strstr(v, "MPICH Device:");
  return d && std::strstr(d, dev) && std::strstr(d, dev) < d + 40;
}

}  // namespace

EagerLimits eager_limits_from_mpi_t() {
  EagerLimits e;
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return e;
  std::string intra_from, inter_from;
  long long v = 0;
  // Open MPI 4 (ob1: vader within a host, tcp between hosts), Open MPI 5 (sm).
  for (const char* n : {"btl_vader_eager_limit", "btl_sm_eager_limit"})
    if (intra_from.empty() && read_cvar(n, &v) && v > 0) {
      e.intra = static_cast<uint64_t>(v);
      intra_from = n;
    }
  if (read_cvar("btl_tcp_eager_limit", &v) && v > 0) {
    e.inter = static_cast<uint64_t>(v);
    inter_from = "btl_tcp_eager_limit";
  }
  // MPICH: the variables of the device actually built in (the others are listed too).
  if (intra_from.empty() && mpich_device_is("ch4")) {
    if (read_cvar("MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE", &v) && v > 0) {
      e.intra = static_cast<uint64_t>(v);
      intra_from = "MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE";
    }
    if (read_cvar("MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE", &v) && v > 0) {
      e.inter = static_cast<uint64_t>(v);
      inter_from = "MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE";
    }
  } else if (intra_from.empty() && mpich_device_is("ch3")) {
    if (read_cvar("MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ", &v)) {
      // -1: nemesis uses its cell payload, 64 KiB less the packet headers.
      e.intra = v > 0 ? static_cast<uint64_t>(v) : 65536 - 128;
      intra_from = "MPIR_CVAR_NEMESIS_SHM_EAGER_MAX_SZ";
    }
    if (read_cvar("MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", &v) && v > 0) {
      e.inter = static_cast<uint64_t>(v);
      inter_from = "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE";
    }
  }
  MPI_T_finalize();
  if (!intra_from.empty() || !inter_from.empty())
    e.source = "MPI_T " + (intra_from.empty() ? "default" : intra_from) + " / " +
               (inter_from.empty() ? "default" : inter_from);
  return e;
}

EagerLimits agree_eager_limits(const Options& opt, MPI_Comm comm) {
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  EagerLimits e;
  if (me == 0) {
    if (opt.eager_set) {
      e.intra = opt.eager_intra;
      e.inter = opt.eager_inter;
      e.source = "option eager=";
    } else {
      e = eager_limits_from_mpi_t();
    }
  }
  unsigned long long v[2] = {e.intra, e.inter};
  PMPI_Bcast(v, 2, MPI_UNSIGNED_LONG_LONG, 0, comm);
  char src[128] = {};
  if (me == 0) std::strncpy(src, e.source.c_str(), sizeof src - 1);
  PMPI_Bcast(src, sizeof src, MPI_CHAR, 0, comm);
  e.intra = v[0];
  e.inter = v[1];
  e.source = src;
  return e;
}

}  // namespace cpath
