/* libcpath_stub.so: the region API of include/cpath.h doing nothing. Programs link it so
   that they run without libcpath; when libcpath.so is preloaded its own definitions come
   first in the symbol search order and record the markers. Only libc is needed. */
#include <stddef.h>

#include "cpath.h"

#define STUB __attribute__((visibility("default"), weak))

STUB void cpath_region_begin(const char* name) { (void)name; }
STUB void cpath_region_end(const char* name) { (void)name; }
STUB void cpath_phase(const char* name) { (void)name; }

/* Fortran manglings (name, hidden length). */
#define FSTUB(f)                                         \
  STUB void f##_(const char* n, size_t l) { (void)n, (void)l; } \
  STUB void f##__(const char* n, size_t l) { (void)n, (void)l; }
FSTUB(cpath_region_begin)
FSTUB(cpath_region_end)
FSTUB(cpath_phase)
STUB void CPATH_REGION_BEGIN(const char* n, size_t l) { (void)n, (void)l; }
STUB void CPATH_REGION_END(const char* n, size_t l) { (void)n, (void)l; }
STUB void CPATH_PHASE(const char* n, size_t l) { (void)n, (void)l; }
