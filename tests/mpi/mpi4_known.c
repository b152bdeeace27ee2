/* Known answers for the MPI-4.0 calls (issue 14). In every mode rank 1 computes 60 ms before
   its part of the exchange with rank 0, rank 0 then computes 100 ms more and everybody meets
   in a barrier: the path ends on rank 0, and goes through rank 1's compute only if the
   analysis models the new call right (rank 3 plays the same game with rank 2, 10x shorter).
   mpi4_known persistent  MPI_Allreduce_init + MPI_Bcast_init started 3 times each; rank 1
                          computes 40 ms before every MPI_Start of the allreduce (120 ms: at
                          20 ms a rank descheduled that long in one iteration, under a loaded
                          CI, took the path of that iteration and left rank 1 40 ms)
   mpi4_known partitioned MPI_Psend_init/MPI_Precv_init, 4 partitions: rank 1 computes 15 ms
                          before each MPI_Pready (its MPI_Start comes first, so only a model
                          where the transfer completes at the last MPI_Pready finds the 60 ms)
   mpi4_known isendrecv   MPI_Isendrecv between 0 and 1 (2 and 3), then MPI_Wait
   mpi4_known isendrecv_test  the same, polled with MPI_Test (0.2 ms of work between polls): the
                          loop waited for rank 1, as the MPI_Wait did (the request's receive is
                          polled too, not only its send)
   mpi4_known parrived    a partitioned exchange whose receiver polls each partition with
                          MPI_Parrived (0.2 ms of work between polls) before its MPI_Wait; rank 1
                          marks all 4 partitions ready after 60 ms: the loop waited for rank 1
   mpi4_known partitioned_wait  a partitioned message of 32 bytes whose sender marks every
                          partition ready at once, then computes 60 ms before its MPI_Wait:
                          MPICH 4.0 delivers it only then (rank 0 prints how long its MPI_Wait
                          took; where it waited, rank 1's 60 ms are on the path)
   mpi4_known partitioned_late_recv  the other way round: rank 0 sends 32 bytes, marks both
                          partitions ready and waits; rank 1 computes 60 ms before its MPI_Start.
                          MPICH 4.0 sends only after the receiver's MPI_Start (rank 1 prints how
                          long rank 0's MPI_Wait took, through the receive's data); where rank 0
                          waited, rank 1's 60 ms are on the path
   mpi4_known large_count MPI_Send_c / MPI_Recv_c, then MPI_Allreduce_c
   mpi4_known persistent_order  MPI_Bcast_init + MPI_Barrier_init, started in one order on even
                          ranks and the other on odd ranks (MPI-4 allows it; MPICH's coll/p_order
                          test); rank 1 computes 60 ms before its starts and rank 0 100 ms after
                          its MPI_Waitall: instances pair by init, so rank 0's barrier waited for
                          rank 1 (pairing by start order would pair rank 0's broadcast with rank
                          1's barrier)
   Built only against an MPI library with MPI-4.0 (MPICH 4.0). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "expect.h"

#include "busy.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int me, np;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  const char* mode = argc > 1 ? argv[1] : "persistent";
  const int sender = me % 2 == 1, partner = me ^ 1, paired = partner < np;
  const double late = me == 1 ? 1.0 : 0.1;  /* rank 1's delays, others' a tenth */
  double v[4] = {me, me, me, me}, s[4] = {0, 0, 0, 0};
  expect_partial();
  if (!strcmp(mode, "persistent")) {
    MPI_Request ar, br;
    MPI_Allreduce_init(v, s, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    MPI_Bcast_init(v, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &br);
    for (int it = 0; it < 3; ++it) {
      compute_ms(me == 1 ? 40.0 : 1.0);
      MPI_Start(&ar);
      MPI_Wait(&ar, MPI_STATUS_IGNORE);
      MPI_Start(&br);
      MPI_Wait(&br, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&ar);
    MPI_Request_free(&br);
    expect_call("MPI_Allreduce_init", 1, 32);
    expect_call("MPI_Bcast_init", 1, 16);
    expect_call("MPI_Start", 6, 0);
    expect_call("MPI_Wait", 6, 0);
    if (me == 0) compute_ms(100.0);
  } else if (!strcmp(mode, "partitioned")) {
    if (paired) {
      MPI_Request r;
      if (sender) {
        MPI_Psend_init(v, 4, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        for (int p = 0; p < 4; ++p) {
          compute_ms(15.0 * late);
          MPI_Pready(p, r);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        expect_call("MPI_Psend_init", 1, 32);
        expect_call("MPI_Pready", 4, 0);
      } else {
        MPI_Precv_init(s, 4, 1, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        expect_call("MPI_Precv_init", 1, 0);
        compute_ms(100.0 * late);
      }
      MPI_Request_free(&r);
      expect_call("MPI_Start", 1, 0);
      expect_call("MPI_Wait", 1, 0);
    }
  } else if (!strcmp(mode, "isendrecv")) {
    if (paired) {
      MPI_Request r;
      if (sender) compute_ms(60.0 * late);
      MPI_Isendrecv(v, 4, MPI_DOUBLE, partner, 3, s, 4, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      if (!sender) compute_ms(100.0 * late);
      expect_call("MPI_Isendrecv", 1, 32);
      expect_call("MPI_Wait", 1, 0);
    }
  } else if (!strcmp(mode, "isendrecv_test")) {
    if (paired) {
      MPI_Request r;
      int done = 0;
      if (sender) compute_ms(60.0 * late);
      MPI_Isendrecv(v, 4, MPI_DOUBLE, partner, 3, s, 4, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD, &r);
      while (!done) {
        compute_ms(0.2);
        MPI_Test(&r, &done, MPI_STATUS_IGNORE);
      }
      if (s[0] != partner) printf("mpi4_known isendrecv_test: wrong data %g\n", s[0]);
      if (!sender) compute_ms(100.0 * late);
      expect_call("MPI_Isendrecv", 1, 32);
    }
  } else if (!strcmp(mode, "parrived")) {
    if (paired) {
      MPI_Request r;
      if (sender) {
        MPI_Psend_init(v, 4, 1, MPI_DOUBLE, partner, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        compute_ms(60.0 * late);
        MPI_Pready_range(0, 3, r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        MPI_Precv_init(s, 4, 1, MPI_DOUBLE, partner, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        for (int p = 0; p < 4; ++p) {
          int flag = 0;
          while (!flag) {
            compute_ms(0.2);
            MPI_Parrived(r, p, &flag);
          }
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (s[3] != partner) printf("mpi4_known parrived: wrong data %g\n", s[3]);
        compute_ms(100.0 * late);
      }
      MPI_Request_free(&r);
    }
  } else if (!strcmp(mode, "partitioned_wait")) {
    if (paired) {
      MPI_Request r;
      if (sender) {
        MPI_Psend_init(v, 4, 1, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        MPI_Pready_range(0, 3, r);
        compute_ms(60.0 * late);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        MPI_Precv_init(s, 4, 1, MPI_DOUBLE, partner, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        const double t = now_ms();
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (me == 0) printf("mpi4_known partitioned_wait: rank 0 waited %.1f ms\n", now_ms() - t);
        if (s[3] != partner) printf("mpi4_known partitioned_wait: wrong data %g\n", s[3]);
        compute_ms(100.0 * late);
      }
      MPI_Request_free(&r);
    }
  } else if (!strcmp(mode, "partitioned_late_recv")) {
    if (paired) {
      MPI_Request r;
      if (!sender) {
        double took[4] = {me, me, me, 0};
        MPI_Psend_init(took, 4, 1, MPI_DOUBLE, partner, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        MPI_Pready_range(0, 3, r);
        const double t = now_ms();
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        took[3] = now_ms() - t;
        MPI_Send(&took[3], 1, MPI_DOUBLE, partner, 14, MPI_COMM_WORLD);
        compute_ms(100.0 * late);
      } else {
        compute_ms(60.0 * late);
        MPI_Precv_init(s, 4, 1, MPI_DOUBLE, partner, 13, MPI_COMM_WORLD, MPI_INFO_NULL, &r);
        MPI_Start(&r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        double took = 0;
        MPI_Recv(&took, 1, MPI_DOUBLE, partner, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (me == 1) printf("mpi4_known partitioned_late_recv: rank 0 waited %.1f ms\n", took);
        if (s[0] != partner) printf("mpi4_known partitioned_late_recv: wrong data %g\n", s[0]);
      }
      MPI_Request_free(&r);
    }
  } else if (!strcmp(mode, "persistent_order")) {
    MPI_Request r[2];
    MPI_Bcast_init(v, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
    MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
    if (me == 1) compute_ms(60);
    for (int k = 0; k < 2; ++k) MPI_Start(&r[me % 2 ? 1 - k : k]);
    MPI_Status st[2];
    MPI_Waitall(2, r, st);
    if (me == 0) compute_ms(100);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
  } else if (!strcmp(mode, "large_count")) {
    if (paired) {
      if (sender) {
        compute_ms(60.0 * late);
        MPI_Send_c(v, (MPI_Count)4, MPI_DOUBLE, partner, 5, MPI_COMM_WORLD);
        expect_call("MPI_Send_c", 1, 32);
      } else {
        MPI_Recv_c(s, (MPI_Count)4, MPI_DOUBLE, partner, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect_call("MPI_Recv_c", 1, 0);
        compute_ms(100.0 * late);
      }
    }
    MPI_Allreduce_c(v, s, (MPI_Count)1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    expect_call("MPI_Allreduce_c", 1, 8);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect_call("MPI_Barrier", 1, 0);
  if (me == 0) printf("mpi4_known %s done\n", mode);
  MPI_Finalize();
  return 0;
}
