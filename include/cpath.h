/* libcpath public API: named user regions and phase markers.

   Mark the parts of your program you want the report to name:

     cpath_region_begin("solve");
     ...                                  (MPI calls, computation, nested regions)
     cpath_region_end("solve");

     cpath_phase("time stepping");        (phases follow each other: a marker ends the previous one)

   The report then gives the critical path by region (how much of the path each region holds,
   compute vs MPI) and names activities by region ("compute in region solve between ...").

   - Regions nest, per thread. cpath_region_end(name) closes the innermost open region of that
     name (and any region opened inside it and left open); cpath_region_end(NULL) closes the
     innermost region. An end without a matching begin is ignored (and counted in the report).
   - Names are copied the first time a thread uses them, so any string works (literals, stack
     buffers, std::string::c_str()); the per-call cost is that of a wrapped MPI call.
   - Markers are not MPI calls: they never change the critical path, only how it is named.
   - Link with the stub library (pkg-config libcpath, or CMake target libcpath::cpath): its
     functions do nothing, so the program runs the same without libcpath. Preloaded
     (`cpath mpirun ...` or LD_PRELOAD=libcpath.so), libcpath's own definitions take over.
     Compiling with -DCPATH_DISABLE removes the calls entirely (no library needed at all).
   - Fortran: call cpath_region_begin('solve'), call cpath_region_end('solve'),
     call cpath_phase('setup'); trailing blanks are ignored. No module is needed.

   Thread-safe; callable before MPI_Init and after MPI_Finalize (markers outside MPI_Init ..
   MPI_Finalize are ignored); kept while MPI_Pcontrol(0) pauses the recording of MPI calls. */
#ifndef CPATH_H
#define CPATH_H

#define CPATH_VERSION_MAJOR 0
#define CPATH_VERSION_MINOR 2
#define CPATH_VERSION_PATCH 0

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CPATH_DISABLE
void cpath_region_begin(const char* name);
void cpath_region_end(const char* name);
void cpath_phase(const char* name);
#else
#define cpath_region_begin(name) ((void)sizeof(name))
#define cpath_region_end(name) ((void)sizeof(name))
#define cpath_phase(name) ((void)sizeof(name))
#endif

#ifdef __cplusplus
}

namespace cpath {
/* Scoped region: begins in the constructor, ends in the destructor (also on exceptions). */
class ScopedRegion {
 public:
  explicit ScopedRegion(const char* name) : name_(name) { cpath_region_begin(name); }
  ~ScopedRegion() { cpath_region_end(name_); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;

 private:
  const char* name_;
};
}  // namespace cpath
#endif

#endif /* CPATH_H */
