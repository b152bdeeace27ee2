#include "eager_limit.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <vector>

#include "tool_collectives.h"

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

// UCX_RNDV_THRESH as a byte count ("16384", "16k", "1m", "2g"; "inf": never rendezvous);
// false for "auto", per-transport lists and anything else.
bool ucx_rndv_thresh(unsigned long long* out) {
  const char* v = std::getenv("UCX_RNDV_THRESH");
  if (!v || !*v) return false;
  if (!strcasecmp(v, "inf")) {
    *out = ~0ull;
    return true;
  }
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (end == v) return false;
  int shift = 0;
  if (*end == 'k' || *end == 'K') shift = 10;
  else if (*end == 'm' || *end == 'M') shift = 20;
  else if (*end == 'g' || *end == 'G') shift = 30;
  if (shift) ++end;
  if (*end == 'b' || *end == 'B') ++end;
  if (*end || n == 0 || n > (~0ull >> shift)) return false;
  *out = n << shift;
  return true;
}

// The point-to-point layer Open MPI selected ("ob1", "ucx", "cm"), read from its selected
// component (mca_base_component_2_1_0_t: major version 2, project "ompi" at byte 12, type
// "pml" at 40, the component's name at 84, as Open MPI 4.1 lays it out); "" when the symbol
// is not visible or does not look like that, which the caller takes as Open MPI's default
// within a host, ob1, and says so. Reads the first 148 bytes only (the structure is larger).
std::string open_mpi_pml() {
  const auto* p = static_cast<const unsigned char*>(dlsym(RTLD_DEFAULT, "mca_pml_base_selected_component"));
  if (!p) return "";
  int major = 0;
  std::memcpy(&major, p, sizeof major);
  if (major != 2 || std::memcmp(p + 12, "ompi", 5) != 0 || std::memcmp(p + 40, "pml", 4) != 0) return "";
  const char* name = reinterpret_cast<const char*>(p + 84);
  const size_t n = strnlen(name, 64);
  if (n == 0 || n == 64) return "";
  for (size_t i = 0; i < n; ++i)
    if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || name[i] == '_')) return "";
  return std::string(name, n);
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
  if (intra_from.empty() && mpich_device_is("ch4:ucx")) {
    // Point-to-point goes through UCX, within a host too: POSIX shared-memory cell sizes say
    // nothing. UCX sends rendezvous from its threshold on; "auto" (the default) chooses it
    // per transport, and MPICH 4.0.2 with UCX 1.13 on shared memory was measured sending
    // 8255 bytes eagerly and 8256 by rendezvous (MPI_Send blocking 30 ms for a late
    // receiver), where the cell size gave 69632.
    unsigned long long t = 0;
    if (ucx_rndv_thresh(&t)) {
      e.intra = e.inter = t - 1;
      e.source = "UCX_RNDV_THRESH";
    } else {
      e.intra = 8255;
      e.source = "UCX rendezvous threshold auto: 8256 measured within a host (UCX 1.13) / default";
    }
    e.hold_nothing();  // measured: an MPI_Send of 8255 bytes returned at once for a late receiver
    MPI_T_finalize();
    return e;
  }
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
  e.hold_nothing();
  // Open MPI's ob1 sends a standard message inline (MPI_Send, MPI_Isend return at once) only up
  // to 256 bytes, a constant of pml_ob1_isend.c that no parameter changes; a larger eager
  // message goes out in a shared-memory fragment and the send completes when the receiver's
  // progress hands the fragment back. Measured with Open MPI 4.1.4: an MPI_Send, MPI_Isend or
  // MPI_Sendrecv of 257-4040 bytes to a rank computing 20 ms before its MPI_Recv (or before the
  // MPI_Wait of a receive posted first) waited the 20 ms in about two of three tries, 256
  // bytes never. Between hosts (tcp) the data is handed to the socket: not held.
  //
  // Every ob1 BTL's eager limit counts ob1's header too: ob1 sends eagerly while the payload is
  // at most btl_eager_limit - sizeof(mca_pml_ob1_hdr_t) (pml_ob1_sendreq.h), 56 bytes on x86-64
  // (Open MPI 4.1.4: MPI_Bsend and MPI_Send of 4040 bytes went eagerly, 4041 bytes by
  // rendezvous, with btl_vader_eager_limit 4096).
  const bool ob1_intra = intra_from == "btl_vader_eager_limit" || intra_from == "btl_sm_eager_limit";
  const bool ob1_inter = inter_from == "btl_tcp_eager_limit";
  if (ob1_intra || ob1_inter) {
    const std::string pml = open_mpi_pml();
    if (pml.empty() || pml == "ob1") {
      constexpr uint64_t kOb1Header = 56;
      auto payload = [](uint64_t btl_limit) { return btl_limit > kOb1Header ? btl_limit - kOb1Header : 0; };
      if (ob1_intra) e.intra = payload(e.intra);
      if (ob1_inter) e.inter = payload(e.inter);
      e.hold_nothing();
      if (ob1_intra) e.inline_intra = std::min<uint64_t>(e.intra, 256);
      e.source += pml.empty() ? " (pml unknown, ob1 assumed)" : "";
      e.source += ob1_intra ? ", less ob1's 56-byte header; ob1 inline limit 256" : ", less ob1's 56-byte header";
    }
  }
  return e;
}

namespace {

// The answer of MPI_T depends on the library and on how it is configured. Open MPI's
// MPI_T_init_thread opens every component to register its variables (0.3-0.4 s of CPU on rank
// 0 while the others wait in MPI_Finalize, most of the fixed cost of a short run), so the
// answer is kept per configuration: the library's version string and file (path, size,
// mtime), every environment variable the libraries read their parameters from (mpirun --mca
// and -genv arrive as these), and the parameter files Open MPI reads. Anything else that could
// change the limit without changing one of these is what eager_cache=0 is for.
std::string configuration_key() {
  std::string k = "libcpath eager cache 4\n";
  char v[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int n = 0;
  if (MPI_Get_library_version(v, &n) == MPI_SUCCESS) k.append(v, strnlen(v, sizeof v));
  k += "\n";
  // Which point-to-point layer Open MPI chose can depend on the hardware alone.
  k += "pml " + open_mpi_pml() + "\n";
  auto file = [&k](const char* path) {
    struct stat st;
    if (!path || stat(path, &st) != 0) return;
    k += path;
    k += " " + std::to_string(static_cast<long long>(st.st_size)) + " " +
         std::to_string(static_cast<long long>(st.st_mtim.tv_sec)) + "." +
         std::to_string(static_cast<long long>(st.st_mtim.tv_nsec)) + "\n";
  };
  Dl_info info;
  if (dladdr(reinterpret_cast<void*>(&PMPI_Init), &info) && info.dli_fname) file(info.dli_fname);
  // Open MPI's launcher also passes per-job values as OMPI_MCA_ variables (job id, URIs):
  // only the frameworks that choose and size the transports count, or nothing would ever hit.
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const char* x = *e;
    bool keep = false;
    if (std::strncmp(x, "OMPI_MCA_", 9) == 0) {
      for (const char* fw : {"btl", "pml", "mtl", "eager", "param_file", "opal_cuda"})
        if (std::strncmp(x + 9, fw, std::strlen(fw)) == 0) keep = true;
    } else {
      for (const char* prefix : {"MPIR_CVAR_", "UCX_", "FI_", "PSM2_"})
        if (std::strncmp(x, prefix, std::strlen(prefix)) == 0) keep = true;
    }
    if (keep) env.emplace_back(x);
  }
  std::sort(env.begin(), env.end());
  for (const std::string& e : env) k += e + "\n";
  const char* home = std::getenv("HOME");
  if (home) file((std::string(home) + "/.openmpi/mca-params.conf").c_str());
  file("/etc/openmpi/openmpi-mca-params.conf");
  if (const char* prefix = std::getenv("OPAL_PREFIX")) file((std::string(prefix) + "/etc/openmpi-mca-params.conf").c_str());
  return k;
}

std::string cache_path(const std::string& key) {
  std::string dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) dir = x;
  else if (const char* h = std::getenv("HOME"); h && *h) dir = std::string(h) + "/.cache";
  else return "";
  dir += "/libcpath";
  uint64_t h = 1469598103934665603ull;  // FNV-1a: a file name, not a security boundary
  for (unsigned char c : key) h = (h ^ c) * 1099511628211ull;
  char name[40];
  std::snprintf(name, sizeof name, "/eager-%016llx.txt", static_cast<unsigned long long>(h));
  return dir + name;
}

// The file holds the key itself after the answer, so a hash collision or an edited file is a
// miss, never a wrong answer.
bool read_cache(const std::string& path, const std::string& key, EagerLimits* e) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) return false;
  std::string text;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof buf, f)) > 0 && text.size() < (1u << 20)) text.append(buf, got);
  std::fclose(f);
  unsigned long long intra = 0, inter = 0, inline_intra = 0, inline_inter = 0;
  int used = 0;
  if (std::sscanf(text.c_str(), "%llu %llu %llu %llu\n%n", &intra, &inter, &inline_intra, &inline_inter, &used) != 4 ||
      used <= 0)
    return false;
  const size_t eol = text.find('\n', static_cast<size_t>(used));
  if (eol == std::string::npos || text.compare(eol + 1, std::string::npos, key) != 0) return false;
  e->intra = intra;
  e->inter = inter;
  e->inline_intra = inline_intra;
  e->inline_inter = inline_inter;
  e->source = text.substr(static_cast<size_t>(used), eol - static_cast<size_t>(used));
  return !e->source.empty();
}

// Best effort: a cache that cannot be written costs the next run the MPI_T query, nothing else.
void write_cache(const std::string& path, const std::string& key, const EagerLimits& e) {
  const size_t slash = path.rfind('/');
  const std::string dir = path.substr(0, slash), parent = dir.substr(0, dir.rfind('/'));
  mkdir(parent.c_str(), 0700);
  mkdir(dir.c_str(), 0700);
  const std::string tmp = path + "." + std::to_string(static_cast<long long>(getpid()));
  FILE* f = std::fopen(tmp.c_str(), "w");
  if (!f) return;
  const bool ok = std::fprintf(f, "%llu %llu %llu %llu\n%s\n%s", static_cast<unsigned long long>(e.intra),
                               static_cast<unsigned long long>(e.inter), static_cast<unsigned long long>(e.inline_intra),
                               static_cast<unsigned long long>(e.inline_inter), e.source.c_str(), key.c_str()) > 0;
  if (std::fclose(f) == 0 && ok) std::rename(tmp.c_str(), path.c_str());  // atomic: concurrent jobs
  else std::remove(tmp.c_str());
}

EagerLimits eager_limits_cached() {
  const std::string key = configuration_key(), path = cache_path(key);
  EagerLimits e;
  if (!path.empty() && read_cache(path, key, &e)) {
    e.source += " (cached in " + path + ")";
    return e;
  }
  e = eager_limits_from_mpi_t();
  // Only what MPI_T said is worth keeping: the defaults cost nothing to find again.
  if (!path.empty() && e.source.compare(0, 5, "MPI_T") == 0) write_cache(path, key, e);
  return e;
}

}  // namespace

EagerLimits agree_eager_limits(const Options& opt, MPI_Comm comm) {
  int me = 0;
  PMPI_Comm_rank(comm, &me);
  EagerLimits e;
  if (me == 0) {
    if (opt.eager_set) {
      e.intra = opt.eager_intra;
      e.inter = opt.eager_inter;
      e.hold_nothing();  // the option states the limits as they are: no eager send held below them
      e.source = "option eager=";
    } else {
      e = opt.eager_cache ? eager_limits_cached() : eager_limits_from_mpi_t();
    }
  }
  unsigned long long v[4] = {e.intra, e.inter, e.inline_intra, e.inline_inter};
  tool_bcast(v, 4, MPI_UNSIGNED_LONG_LONG, 0, comm);
  char src[512] = {};
  if (me == 0) std::strncpy(src, e.source.c_str(), sizeof src - 1);
  tool_bcast(src, sizeof src, MPI_CHAR, 0, comm);
  e.intra = v[0];
  e.inter = v[1];
  e.inline_intra = v[2];
  e.inline_inter = v[3];
  e.source = src;
  return e;
}

}  // namespace cpath
