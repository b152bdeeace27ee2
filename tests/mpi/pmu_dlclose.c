/* Rank 0 computes in plugin A (dlopen), dlcloses it, then loads plugin B, which the loader
   often puts where A was, and computes a little in it ("none" instead of B's path: nothing is
   loaded after A). Samples are symbolised at MPI_Finalize: A's must still be named A's, not
   B's or "[unknown]". The CPU time each kernel measured itself is the truth, on stderr. */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

typedef double (*Kernel)(double);

static double run(const char* path, const char* name, double each, int times, int me) {
  double used = 0;
  void* h = NULL;
  Kernel k = NULL;
  if (me == 0) {
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    k = h ? (Kernel)dlsym(h, name) : NULL;
    if (!k) fprintf(stderr, "pmu_dlclose: cannot load %s from %s: %s\n", name, path, dlerror());
  }
  for (int i = 0; i < times; ++i) {
    if (k) used += k(each);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (h) dlclose(h);
  if (me == 0) fprintf(stderr, "pmu_dlclose %s %.6f\n", name, used);
  return used;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  if (argc < 3) {
    if (me == 0) fprintf(stderr, "usage: pmu_dlclose PLUGIN_A PLUGIN_B|none\n");
    MPI_Finalize();
    return 2;
  }
  run(argv[1], "plugin_a_kernel", 0.08, 5, me);
  if (strcmp(argv[2], "none")) run(argv[2], "plugin_b_kernel", 0.02, 3, me);
  MPI_Finalize();
  return 0;
}
