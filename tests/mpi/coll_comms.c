/* Collection test: communicator creation and destruction. Creates communicators with split
   (including MPI_UNDEFINED and reversed keys), dup, create (from a group, reordered),
   create_group, cart_create, cart_sub, split_type and dup of MPI_COMM_SELF; communicates on
   all of them; frees some; communicates on the survivors; creates more communicators after
   the frees (Open MPI reuses the freed handles) and communicates on those too.

   The expected communicator names and the world rank of every peer are computed on every
   rank: the group of every new communicator is a pure function of the step and of the world
   size, so each rank knows all of them. Names (tools/cpath_read.cpp): "world", "self",
   "<parent>.dup<n>" for the n-th dup of a parent, "<parent>#<call>:<which>" for a communicator
   made by the call-th communicator-creating call on its parent (which = split's colour, the
   world rank of local rank 0 for create/cart_sub/split_type, 0 for cart_create), and
   "c<world rank of local rank 0>.<its counter>" for MPI_Comm_create_group and
   MPI_Intercomm_merge, which still name communicators seed 003's way. An MPI_Comm_idup'ed
   communicator's name is checked by checks/coll_comms.py.
   Needs 4 ranks (ctest default); other sizes >= 2 work too. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll_tally.h"

#define MAXP 64

typedef struct {
  MPI_Comm c;
  char name[64];
  int world[MAXP]; /* local rank -> world rank */
  int size, rank;
  int calls; /* communicator-creating calls made on it so far */
} comm_t;

static int r, n;
static int counter[MAXP]; /* simulated "communicators defined so far + 1" of every process */

/* Every process runs this for every group of a creation step, in the same order. Returns 1 if
   this process is a member and fills *out. */
static int define(const int* members, int size, comm_t* out) {
  const int leader = members[0];
  const int cnt = counter[leader]++;
  for (int i = 0; i < size; ++i)
    if (members[i] == r) {
      out->size = size;
      out->rank = i;
      memcpy(out->world, members, sizeof(int) * (size_t)size);
      out->calls = 0;
      if (size == 1)
        snprintf(out->name, sizeof out->name, "self");
      else
        tally_comm_name(out->name, sizeof out->name, leader, cnt);
      return 1;
    }
  return 0;
}

/* A communicator keyed by its creating call: the `call`-th creating call on `parent`, told
   apart from the others that call made by `which`. Returns 1 if this process is a member. */
static int define_call(const comm_t* parent, int call, int which, const int* members, int size, comm_t* out) {
  for (int i = 0; i < size; ++i)
    if (members[i] == r) {
      out->size = size;
      out->rank = i;
      out->calls = 0;
      memcpy(out->world, members, sizeof(int) * (size_t)size);
      if (size == 1)
        snprintf(out->name, sizeof out->name, "self");
      else
        snprintf(out->name, sizeof out->name, "%.40s#%d:%d", parent->name, call, which);
      return 1;
    }
  return 0;
}

/* Duplicates are named after their parent ("<parent>.dup<n>", the n-th dup/idup of that
   parent) and use no counter; a duplicate of a size-1 communicator is "self". */
static void define_dup(const comm_t* parent, int ordinal, comm_t* out) {
  out->calls = 0;
  out->size = parent->size;
  out->rank = parent->rank;
  memcpy(out->world, parent->world, sizeof(int) * (size_t)parent->size);
  if (parent->size == 1)
    snprintf(out->name, sizeof out->name, "self");
  else
    snprintf(out->name, sizeof out->name, "%s.dup%d", parent->name, ordinal);
}

static void check_comm(const comm_t* c, const char* what) {
  int size = -1, rank = -1;
  MPI_Comm_size(c->c, &size);
  MPI_Comm_rank(c->c, &rank);
  TALLY_CHECK(size == c->size && rank == c->rank, "%s: size %d rank %d, expected %d %d", what, size, rank, c->size,
              c->rank);
}

/* Ring Sendrecv on a communicator: send my world rank to local right, receive from local left. */
static void ring(const comm_t* c, int tag) {
  const int right = (c->rank + 1) % c->size, left = (c->rank + c->size - 1) % c->size;
  int got = -1;
  MPI_Sendrecv(&r, 1, MPI_INT, right, tag, &got, 1, MPI_INT, left, tag, c->c, MPI_STATUS_IGNORE);
  TALLY_CHECK(got == c->world[left], "ring on %s tag %d: got %d expected %d", c->name, tag, got, c->world[left]);
  tally_call("MPI_Sendrecv", 4);
  tally_p2p("send", "MPI_Sendrecv", c->name, right, c->world[right], tag, 4);
  tally_p2p("recv", "MPI_Sendrecv", c->name, left, c->world[left], tag, 0);
}

/* Local rank 0 sends to every other member with MPI_Send; they MPI_Recv. */
static void fan_out(const comm_t* c, int tag) {
  if (c->rank == 0) {
    for (int i = 1; i < c->size; ++i) {
      MPI_Send(&i, 1, MPI_INT, i, tag, c->c);
      tally_call("MPI_Send", 4);
      tally_p2p("send", "MPI_Send", c->name, i, c->world[i], tag, 4);
    }
  } else {
    int got = -1;
    MPI_Recv(&got, 1, MPI_INT, 0, tag, c->c, MPI_STATUS_IGNORE);
    TALLY_CHECK(got == c->rank, "fan_out on %s", c->name);
    tally_call("MPI_Recv", 0);
    tally_p2p("recv", "MPI_Recv", c->name, 0, c->world[0], tag, 0);
  }
}

static void free_comm(comm_t* c) {
  MPI_Comm_free(&c->c);
  tally_call("MPI_Comm_free", 0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  tally_call("MPI_Init", 0);
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  if (n > MAXP) MPI_Abort(MPI_COMM_WORLD, 2);
  for (int i = 0; i < MAXP; ++i) counter[i] = 1;
  int m[MAXP], k, call;
  comm_t W;
  W.size = n;
  W.rank = r;
  W.calls = 0;
  for (int w = 0; w < n; ++w) W.world[w] = w;
  snprintf(W.name, sizeof W.name, "world");

  /* A: split by parity, key = -rank (so local order is descending world rank) */
  comm_t A;
  MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &A.c);
  tally_call("MPI_Comm_split", 0);
  call = W.calls++;
  for (int color = 0; color < 2; ++color) {
    k = 0;
    for (int w = n - 1; w >= 0; --w)
      if (w % 2 == color) m[k++] = w;
    if (k) define_call(&W, call, color, m, k, &A);
  }
  check_comm(&A, "A");

  /* B: dup of world */
  comm_t B;
  MPI_Comm_dup(MPI_COMM_WORLD, &B.c);
  tally_call("MPI_Comm_dup", 0);
  W.calls++;
  define_dup(&W, 0, &B);
  check_comm(&B, "B");

  /* C: MPI_Comm_create from the group {n-1, 0, 1} (in that order); rank 2.. get MPI_COMM_NULL */
  comm_t C;
  int inC;
  {
    MPI_Group wg, cg;
    int ranks[3] = {n - 1, 0, 1};
    const int cn = n >= 3 ? 3 : 2;
    if (n < 3) ranks[0] = 1, ranks[1] = 0;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, cn, ranks, &cg);
    MPI_Comm_create(MPI_COMM_WORLD, cg, &C.c);
    MPI_Group_free(&cg);
    MPI_Group_free(&wg);
    tally_call("MPI_Comm_group", 0);
    tally_call("MPI_Group_incl", 0);
    tally_call("MPI_Comm_create", 0);
    tally_calls_n("MPI_Group_free", 2, 0);
    inC = define_call(&W, W.calls++, ranks[0], ranks, cn, &C);
    TALLY_CHECK(inC == (C.c != MPI_COMM_NULL), "Comm_create membership");
    if (inC) check_comm(&C, "C");
  }

  /* D: 2-D cart, no reorder; E: its rows; F: its columns */
  int dims[2] = {0, 0}, periods[2] = {0, 0};
  MPI_Dims_create(n, 2, dims);
  comm_t D, E, F;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &D.c);
  tally_call("MPI_Cart_create", 0);
  for (int w = 0; w < n; ++w) m[w] = w;
  define_call(&W, W.calls++, 0, m, n, &D);
  check_comm(&D, "D");
  int rows[2] = {0, 1}, cols[2] = {1, 0};
  MPI_Cart_sub(D.c, rows, &E.c);
  tally_call("MPI_Cart_sub", 0);
  call = D.calls++;
  for (int c0 = 0; c0 < dims[0]; ++c0) {
    for (int c1 = 0; c1 < dims[1]; ++c1) m[c1] = c0 * dims[1] + c1;
    define_call(&D, call, m[0], m, dims[1], &E);
  }
  check_comm(&E, "E");
  MPI_Cart_sub(D.c, cols, &F.c);
  tally_call("MPI_Cart_sub", 0);
  call = D.calls++;
  for (int c1 = 0; c1 < dims[1]; ++c1) {
    for (int c0 = 0; c0 < dims[0]; ++c0) m[c0] = c0 * dims[1] + c1;
    define_call(&D, call, m[0], m, dims[0], &F);
  }
  check_comm(&F, "F");

  /* Communicate on everything */
  ring(&A, 1);
  ring(&B, 2);
  if (inC) ring(&C, 3);
  ring(&D, 4);
  ring(&E, 5);
  ring(&F, 6);
  fan_out(&A, 7);
  fan_out(&B, 8);

  /* Free A, B, D, F; keep C and E */
  free_comm(&A);
  free_comm(&B);
  free_comm(&D);
  free_comm(&F);
  if (inC) ring(&C, 10);
  ring(&E, 11);
  if (inC) fan_out(&C, 12);

  /* New communicators after the frees (Open MPI hands out the freed handles again) */
  comm_t G, H, I, S, T;
  MPI_Comm_split(MPI_COMM_WORLD, r < n / 2 ? 0 : 1, r, &G.c);
  tally_call("MPI_Comm_split", 0);
  call = W.calls++;
  for (int color = 0; color < 2; ++color) {
    k = 0;
    for (int w = 0; w < n; ++w)
      if ((w < n / 2 ? 0 : 1) == color) m[k++] = w;
    if (k) define_call(&W, call, color, m, k, &G);
  }
  check_comm(&G, "G");
  MPI_Comm_dup(E.c, &H.c);
  tally_call("MPI_Comm_dup", 0);
  E.calls++;
  define_dup(&E, 0, &H);
  check_comm(&H, "H");
  /* I: everyone except world rank 1, key n - rank (descending) */
  MPI_Comm_split(MPI_COMM_WORLD, r == 1 ? MPI_UNDEFINED : 0, n - r, &I.c);
  tally_call("MPI_Comm_split", 0);
  k = 0;
  for (int w = n - 1; w >= 0; --w)
    if (w != 1) m[k++] = w;
  const int inI = define_call(&W, W.calls++, 0, m, k, &I);
  TALLY_CHECK(inI == (I.c != MPI_COMM_NULL), "split with MPI_UNDEFINED");
  if (inI) check_comm(&I, "I");
  /* S: dup of MPI_COMM_SELF (every process defines its own) */
  MPI_Comm_dup(MPI_COMM_SELF, &S.c);
  tally_call("MPI_Comm_dup", 0);
  {
    comm_t self;
    self.size = 1;
    self.rank = 0;
    self.world[0] = r;
    snprintf(self.name, sizeof self.name, "self");
    define_dup(&self, 0, &S);
  }
  check_comm(&S, "S");
  /* T: split_type shared (one node), key = rank */
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, r, MPI_INFO_NULL, &T.c);
  tally_call("MPI_Comm_split_type", 0);
  for (int w = 0; w < n; ++w) m[w] = w;
  define_call(&W, W.calls++, 0, m, n, &T);
  check_comm(&T, "T");
  /* U: create_group over the even ranks, called by them only, in descending order */
  comm_t U;
  int inU = r % 2 == 0;
  k = 0;
  for (int w = n - 1; w >= 0; --w)
    if (w % 2 == 0) m[k++] = w;
  if (inU) {
    MPI_Group wg, ug;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_incl(wg, k, m, &ug);
    MPI_Comm_create_group(MPI_COMM_WORLD, ug, 77, &U.c);
    MPI_Group_free(&ug);
    MPI_Group_free(&wg);
    tally_call("MPI_Comm_group", 0);
    tally_call("MPI_Group_incl", 0);
    tally_call("MPI_Comm_create_group", 0);
    tally_calls_n("MPI_Group_free", 2, 0);
  }
  TALLY_CHECK(define(m, k, &U) == inU, "create_group membership");
  if (inU) check_comm(&U, "U");

  ring(&G, 20);
  ring(&H, 21);
  if (inI) ring(&I, 22);
  ring(&S, 23);
  ring(&T, 24);
  if (inU) ring(&U, 25);
  if (inC) ring(&C, 26);
  ring(&E, 27);
  fan_out(&G, 28);
  if (inI) fan_out(&I, 29);

  /* X: intercommunicator between the two halves of G; M: X merged (low half first, so M
     has the world's order). X's key names its pair of groups (no process's counter is used),
     the same on both sides; its remote group is reconstructed, so checks/coll_comms.py
     checks the world peer of its traffic too; M is an ordinary communicator again. */
  comm_t M;
  if (n % 2 == 0) {
    MPI_Comm X;
    const int low = r < n / 2;
    MPI_Intercomm_create(G.c, 0, MPI_COMM_WORLD, low ? n / 2 : 0, 99, &X);
    tally_call("MPI_Intercomm_create", 0);
    int rsize = -1, lr = -1;
    MPI_Comm_remote_size(X, &rsize);
    MPI_Comm_rank(X, &lr);
    TALLY_CHECK(rsize == n / 2 && lr == G.rank, "intercomm sizes");
    int got = -1;
    MPI_Sendrecv(&r, 1, MPI_INT, lr, 32, &got, 1, MPI_INT, lr, 32, X, MPI_STATUS_IGNORE);
    const int partner = low ? r + n / 2 : r - n / 2;
    TALLY_CHECK(got == partner, "intercomm Sendrecv: got %d expected %d", got, partner);
    tally_call("MPI_Sendrecv", 4);
    tally_directive("inter send MPI_Sendrecv peer=%d wpeer=%d tag=32 count=1 bytes=4", lr, partner);
    tally_directive("inter recv MPI_Sendrecv peer=%d wpeer=%d tag=32 count=1 bytes=0", lr, partner);
    MPI_Intercomm_merge(X, low ? 0 : 1, &M.c);
    tally_call("MPI_Intercomm_merge", 0);
    for (int w = 0; w < n; ++w) m[w] = w;
    define(m, n, &M);
    check_comm(&M, "M");
    ring(&M, 33);
    fan_out(&M, 34);
    MPI_Comm_free(&X);
    tally_call("MPI_Comm_free", 0);
    free_comm(&M);
  }

  /* MPI_COMM_SELF itself */
  comm_t self;
  self.c = MPI_COMM_SELF;
  self.size = 1;
  self.rank = 0;
  self.world[0] = r;
  snprintf(self.name, sizeof self.name, "self");
  ring(&self, 30);

  /* Idup of world: a hashed name, checked by checks/coll_comms.py */
  MPI_Comm J;
  MPI_Request rq;
  MPI_Comm_idup(MPI_COMM_WORLD, &J, &rq);
  MPI_Wait(&rq, MPI_STATUS_IGNORE);
  tally_call("MPI_Comm_idup", 0);
  tally_call("MPI_Wait", 0);
  {
    const int right = (r + 1) % n, left = (r + n - 1) % n;
    int got = -1;
    MPI_Sendrecv(&r, 1, MPI_INT, right, 31, &got, 1, MPI_INT, left, 31, J, MPI_STATUS_IGNORE);
    TALLY_CHECK(got == left, "idup ring");
    tally_call("MPI_Sendrecv", 4);
    /* for checks/coll_comms.py: the same lines with the idup'ed communicator's name */
    tally_directive("idup send MPI_Sendrecv peer=%d wpeer=%d tag=31 count=1 bytes=4", right, right);
    tally_directive("idup recv MPI_Sendrecv peer=%d wpeer=%d tag=31 count=1 bytes=0", left, left);
  }
  MPI_Comm_free(&J);
  tally_call("MPI_Comm_free", 0);

  free_comm(&G);
  free_comm(&H);
  if (inI) free_comm(&I);
  free_comm(&S);
  free_comm(&T);
  if (inU) free_comm(&U);
  if (inC) free_comm(&C);
  free_comm(&E);

  int errors = tally_errors, total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  tally_call("MPI_Allreduce", 4);
  if (r == 0) printf("coll_comms: %d ranks, %d check failures\n", n, total);
  tally_call("MPI_Finalize", 0);
  tally_emit(1);
  MPI_Finalize();
  return total ? 1 : 0;
}
