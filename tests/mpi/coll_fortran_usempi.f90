! Collection test: a Fortran 90 program using the `use mpi` module. Like coll_fortran_mpif, it
! tallies every MPI call and writes the totals to $CPATH_TEST_EXPECT_DIR/expect.<rank>.txt.
! Covers MPI_Init_thread (the provided level is recorded: checks/coll_events.py), Ssend, Wait with a status, Waitsome's 1-based indices (wildcard receives with
! distinct tags, with a statuses array and with MPI_STATUSES_IGNORE), Test/Testall loops,
! Probe/Iprobe, MPI_IN_PLACE, rooted collectives, Comm_dup + Comm_split + Comm_free.
! Only one Isend is outstanding at a time, so the "unresolved" line can be asserted.
program coll_fortran_usempi
  use mpi
  implicit none
  integer, parameter :: maxk = 64
  character(len=40) :: cname(maxk)
  integer(kind=8) :: ccount(maxk), cbytes(maxk)
  character(len=120) :: pkey(maxk)
  integer(kind=8) :: pcount(maxk), pbytes(maxk)
  integer :: nc, np_
  integer :: ierr, rank, nprocs, left, right, i, k, outcount, done, errors, cnt, provided
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2), indices(2)
  integer :: reqs(2), ibuf(8), rbuf(8), a, b, dup, sub, srank, ssize, color
  logical :: flag
  double precision :: d(2), dres(2)
  integer, allocatable :: gat(:), all(:)
  character(len=32) :: dupname, subname

  nc = 0
  np_ = 0
  errors = 0
  provided = -1
  call MPI_Init_thread(MPI_THREAD_SERIALIZED, provided, ierr)
  call tc('MPI_Init_thread', 0)
  if (ierr /= MPI_SUCCESS .or. provided < MPI_THREAD_SERIALIZED) errors = errors + 1
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  allocate (gat(2 * nprocs), all(nprocs))
  do i = 1, 8
    ibuf(i) = rank * 10 + i
  end do

  ! Ssend around the ring (tag 1, 8 integers), even ranks first.
  if (mod(rank, 2) == 0) then
    call MPI_Ssend(ibuf, 8, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 8, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(rbuf, 8, MPI_INTEGER, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Ssend(ibuf, 8, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  end if
  if (rbuf(8) /= left * 10 + 8) errors = errors + 1
  call tc('MPI_Ssend', 32)
  call tc('MPI_Recv', 0)
  call tp('send', 'MPI_Ssend', 'world', right, right, 1, 32)
  call tp('recv', 'MPI_Recv', 'world', left, left, 1, 0)

  ! Irecv + Isend, each completed by MPI_Wait (the receive with a status), tag 2.
  call MPI_Irecv(rbuf, 3, MPI_INTEGER, left, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 3, MPI_INTEGER, right, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Wait(reqs(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(reqs(1), status, ierr)
  if (status(MPI_SOURCE) /= left .or. status(MPI_TAG) /= 2) errors = errors + 1
  call tc('MPI_Irecv', 0)
  call tc('MPI_Isend', 12)
  call tc('MPI_Wait', 0)
  call tc('MPI_Wait', 0)
  call tp('recv', 'MPI_Irecv', 'world', left, left, 2, 0)
  call tp('send', 'MPI_Isend', 'world', right, right, 2, 12)

  ! Waitsome over two wildcard receives: tag 3 comes from the left, tag 4 from the right.
  ! Round 1 with a statuses array, round 2 (tags 5, 6) with MPI_STATUSES_IGNORE.
  do k = 0, 1
    call MPI_Irecv(a, 1, MPI_INTEGER, MPI_ANY_SOURCE, 3 + 2 * k, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Irecv(b, 1, MPI_INTEGER, MPI_ANY_SOURCE, 4 + 2 * k, MPI_COMM_WORLD, reqs(2), ierr)
    call MPI_Send(rank, 1, MPI_INTEGER, right, 3 + 2 * k, MPI_COMM_WORLD, ierr)
    call MPI_Send(rank, 1, MPI_INTEGER, left, 4 + 2 * k, MPI_COMM_WORLD, ierr)
    call tc('MPI_Irecv', 0)
    call tc('MPI_Irecv', 0)
    call tc('MPI_Send', 4)
    call tc('MPI_Send', 4)
    call tp('send', 'MPI_Send', 'world', right, right, 3 + 2 * k, 4)
    call tp('send', 'MPI_Send', 'world', left, left, 4 + 2 * k, 4)
    call tp('recv', 'MPI_Irecv', 'world', left, left, 3 + 2 * k, 0)
    call tp('recv', 'MPI_Irecv', 'world', right, right, 4 + 2 * k, 0)
    done = 0
    do while (done < 2)
      if (k == 0) then
        call MPI_Waitsome(2, reqs, outcount, indices, statuses, ierr)
        do i = 1, outcount
          if (indices(i) == 1 .and. statuses(MPI_SOURCE, i) /= left) errors = errors + 1
          if (indices(i) == 2 .and. statuses(MPI_SOURCE, i) /= right) errors = errors + 1
        end do
      else
        call MPI_Waitsome(2, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
      end if
      call tc('MPI_Waitsome', 0)
      if (outcount == MPI_UNDEFINED .or. outcount < 1) then
        errors = errors + 1
        exit
      end if
      done = done + outcount
    end do
    if (a /= left .or. b /= right) errors = errors + 1
  end do

  ! Test loop (tag 7) and Testall loop (tag 8).
  call MPI_Irecv(rbuf, 1, MPI_INTEGER, left, 7, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 1, MPI_INTEGER, right, 7, MPI_COMM_WORLD, reqs(2), ierr)
  call tc('MPI_Irecv', 0)
  call tc('MPI_Isend', 4)
  call tp('recv', 'MPI_Irecv', 'world', left, left, 7, 0)
  call tp('send', 'MPI_Isend', 'world', right, right, 7, 4)
  do i = 1, 2
    flag = .false.
    do while (.not. flag)
      call MPI_Test(reqs(i), flag, status, ierr)
      call tc('MPI_Test', 0)
    end do
  end do
  call MPI_Irecv(rbuf, 2, MPI_INTEGER, left, 8, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 2, MPI_INTEGER, right, 8, MPI_COMM_WORLD, reqs(2), ierr)
  call tc('MPI_Irecv', 0)
  call tc('MPI_Isend', 8)
  call tp('recv', 'MPI_Irecv', 'world', left, left, 8, 0)
  call tp('send', 'MPI_Isend', 'world', right, right, 8, 8)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, reqs, flag, statuses, ierr)
    call tc('MPI_Testall', 0)
  end do
  if (statuses(MPI_SOURCE, 1) /= left .or. statuses(MPI_TAG, 1) /= 8) errors = errors + 1

  ! Probe (tag 9, 5 integers) and an Iprobe loop (tag 10).
  call MPI_Send(ibuf, 5, MPI_INTEGER, right, 9, MPI_COMM_WORLD, ierr)
  call MPI_Send(ibuf, 1, MPI_INTEGER, right, 10, MPI_COMM_WORLD, ierr)
  call tc('MPI_Send', 20)
  call tc('MPI_Send', 4)
  call tp('send', 'MPI_Send', 'world', right, right, 9, 20)
  call tp('send', 'MPI_Send', 'world', right, right, 10, 4)
  call MPI_Probe(left, 9, MPI_COMM_WORLD, status, ierr)
  call tc('MPI_Probe', 0)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  if (cnt /= 5) errors = errors + 1
  call MPI_Recv(rbuf, 5, MPI_INTEGER, left, 9, MPI_COMM_WORLD, status, ierr)
  call tc('MPI_Recv', 0)
  call tp('recv', 'MPI_Recv', 'world', left, left, 9, 0)
  flag = .false.
  do while (.not. flag)
    call MPI_Iprobe(left, 10, MPI_COMM_WORLD, flag, status, ierr)
    call tc('MPI_Iprobe', 0)
  end do
  call MPI_Recv(rbuf, 1, MPI_INTEGER, left, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call tc('MPI_Recv', 0)
  call tp('recv', 'MPI_Recv', 'world', left, left, 10, 0)

  ! Collectives.
  d = (/ dble(rank), 1.0d0 /)
  call MPI_Reduce(d, dres, 2, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call tc('MPI_Reduce', 16)
  call MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD, ierr)
  call tc('MPI_Allreduce', 16)
  if (d(1) /= dble(nprocs - 1)) errors = errors + 1
  call MPI_Gather(ibuf, 2, MPI_INTEGER, gat, 2, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  if (rank == nprocs - 1) then
    call tc('MPI_Gather', 8 * nprocs)
  else
    call tc('MPI_Gather', 8)
  end if
  call MPI_Allgather(rank, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call tc('MPI_Allgather', 4 * nprocs)
  if (all(nprocs) /= nprocs - 1) errors = errors + 1
  call MPI_Alltoall(gat, 1, MPI_INTEGER, all, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call tc('MPI_Alltoall', 4 * nprocs)
  call MPI_Scan(1, a, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call tc('MPI_Scan', 4)
  if (a /= rank + 1) errors = errors + 1
  call MPI_Bcast(d, 2, MPI_DOUBLE_PRECISION, 1, MPI_COMM_WORLD, ierr)
  call tc('MPI_Bcast', 16)

  ! Comm_dup (named after its parent: the first duplicate of world; duplicates use no
  ! counter), then a split of the duplicate by parity (rank 0's counter 1 for the even half,
  ! rank 1's counter 1 for the odd half).
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call tc('MPI_Comm_dup', 0)
  dupname = 'world.dup0'
  call MPI_Send(rank, 1, MPI_INTEGER, right, 11, dup, ierr)
  call MPI_Recv(a, 1, MPI_INTEGER, left, 11, dup, MPI_STATUS_IGNORE, ierr)
  if (a /= left) errors = errors + 1
  call tc('MPI_Send', 4)
  call tc('MPI_Recv', 0)
  call tp('send', 'MPI_Send', trim(dupname), right, right, 11, 4)
  call tp('recv', 'MPI_Recv', trim(dupname), left, left, 11, 0)
  color = mod(rank, 2)
  call MPI_Comm_split(dup, color, rank, sub, ierr)
  call tc('MPI_Comm_split', 0)
  ! the first communicator-creating call on dup, told apart by the colour
  if (color == 0) then
    subname = 'world.dup0#0:0'
  else
    subname = 'world.dup0#0:1'
  end if
  call MPI_Comm_rank(sub, srank, ierr)
  call MPI_Comm_size(sub, ssize, ierr)
  call MPI_Barrier(sub, ierr)
  call tc('MPI_Barrier', 0)
  ! local rank 0 sends to every other member of its half (tag 12)
  if (srank == 0) then
    do i = 1, ssize - 1
      call MPI_Send(i, 1, MPI_INTEGER, i, 12, sub, ierr)
      call tc('MPI_Send', 4)
      call tp('send', 'MPI_Send', trim(subname), i, 2 * i + color, 12, 4)
    end do
  else
    call MPI_Recv(a, 1, MPI_INTEGER, 0, 12, sub, status, ierr)
    call tc('MPI_Recv', 0)
    call tp('recv', 'MPI_Recv', trim(subname), 0, color, 12, 0)
    if (a /= srank) errors = errors + 1
  end if
  call MPI_Comm_free(sub, ierr)
  call MPI_Comm_free(dup, ierr)
  call tc('MPI_Comm_free', 0)
  call tc('MPI_Comm_free', 0)

  call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call tc('MPI_Allreduce', 4)
  if (rank == 0) print '(A,I0,A,I0)', 'coll_fortran_usempi: ranks=', nprocs, ' errors=', errors
  call tc('MPI_Finalize', 0)
  call emit()
  call MPI_Finalize(ierr)
  if (errors /= 0) stop 1

contains

  subroutine tc(name, bytes)
    character(len=*), intent(in) :: name
    integer, intent(in) :: bytes
    integer :: k
    do k = 1, nc
      if (cname(k) == name) then
        ccount(k) = ccount(k) + 1
        cbytes(k) = cbytes(k) + bytes
        return
      end if
    end do
    nc = nc + 1
    cname(nc) = name
    ccount(nc) = 1
    cbytes(nc) = bytes
  end subroutine tc

  subroutine tp(kind, call, comm, peer, wpeer, tag, bytes)
    character(len=*), intent(in) :: kind, call, comm
    integer, intent(in) :: peer, wpeer, tag, bytes
    character(len=120) :: key
    integer :: k
    write (key, '(A,A,A,A,A,A,I0,A,I0,A,I0)') kind, ' ', call, ' comm=', comm, ' peer=', peer, ' wpeer=', wpeer, &
      ' tag=', tag
    do k = 1, np_
      if (pkey(k) == key) then
        pcount(k) = pcount(k) + 1
        pbytes(k) = pbytes(k) + bytes
        return
      end if
    end do
    np_ = np_ + 1
    pkey(np_) = key
    pcount(np_) = 1
    pbytes(np_) = bytes
  end subroutine tp

  subroutine emit()
    character(len=4096) :: dir
    character(len=4200) :: path
    integer :: dlen, st, k, u
    call get_environment_variable('CPATH_TEST_EXPECT_DIR', dir, dlen, st)
    if (st /= 0 .or. dlen == 0) return
    write (path, '(A,A,I0,A)') dir(1:dlen), '/expect.', rank, '.txt'
    open (newunit=u, file=trim(path), status='replace', action='write')
    do k = 1, nc
      write (u, '(A,I0,A,A,A,I0,A,I0)') 'rank ', rank, ' call ', trim(cname(k)), ' count=', ccount(k), &
        ' bytes=', cbytes(k)
    end do
    do k = 1, np_
      write (u, '(A,I0,A,A,A,I0,A,I0)') 'rank ', rank, ' ', trim(pkey(k)), ' count=', pcount(k), ' bytes=', pbytes(k)
    end do
    write (u, '(A,I0,A)') 'rank ', rank, ' unresolved unknown_requests=0 never_completed=0'
    close (u)
    ! for checks/coll_events.py: MPI_Init_thread records the provided level
    write (path, '(A,A,I0,A)') dir(1:dlen), '/directives.', rank, '.txt'
    open (newunit=u, file=trim(path), status='replace', action='write')
    write (u, '(A,I0)') 'event MPI_Init_thread aux=', provided
    close (u)
  end subroutine emit

end program coll_fortran_usempi
