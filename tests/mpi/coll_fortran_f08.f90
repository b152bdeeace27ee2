! use mpi_f08 (Open MPI: mpi_*_f08_; MPICH: mpi_*_f08_, mpi_*_f08ts_). Known calls per rank,
! checked by checks/coll_f08.py: wildcard receives with the status ignored and returned,
! requests, a split communicator, Pcontrol without IERROR, and every optional IERROR left out.
program f08hello
  use mpi_f08
  implicit none
  integer :: rank, nprocs, i
  type(MPI_Request) :: req(2)
  type(MPI_Status) :: st
  type(MPI_Comm) :: sub
  double precision :: x, y
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  x = rank
  do i = 1, 5
    call MPI_Allreduce(x, y, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  end do
  call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, req(1))
  call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, mod(rank+1,nprocs), rank, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
  call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, mod(rank+1,nprocs), 9, MPI_COMM_WORLD)
  call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
  call MPI_Send(x, 1, MPI_DOUBLE_PRECISION, mod(rank+1,nprocs), 10, MPI_COMM_WORLD)
  call MPI_Recv(y, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank,2), rank, sub)
  call MPI_Barrier(sub)
  call MPI_Comm_free(sub)
  call MPI_Pcontrol(1)
  if (rank == 0) print *, 'f08 done', y
  call MPI_Finalize()
end program
