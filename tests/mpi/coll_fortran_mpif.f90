! Collection test: a Fortran 90 program using include 'mpif.h'. It tallies every MPI call it
! makes and writes the totals, in the format of `cpath-read --summary`, to
! $CPATH_TEST_EXPECT_DIR/expect.<rank>.txt (nothing when the variable is unset).
! Covers MPI_STATUS_IGNORE and status arrays, MPI_STATUSES_IGNORE, Waitany's 1-based index
! (wildcard receives with distinct tags: a wrong index would pair a tag with the wrong
! source), MPI_IN_PLACE, Bcast, Comm_split/Comm_free and traffic on the sub-communicator.
! Only one Isend is outstanding at a time, so the "unresolved" line can be asserted.
program coll_fortran_mpif
  implicit none
  include 'mpif.h'
  integer, parameter :: maxk = 64
  character(len=40) :: cname(maxk)
  integer(kind=8) :: ccount(maxk), cbytes(maxk)
  character(len=120) :: pkey(maxk)
  integer(kind=8) :: pcount(maxk), pbytes(maxk)
  integer :: nc, np_
  integer :: ierr, rank, nprocs, left, right, i, idx, color, sub, srank, ssize, sleft, sright
  integer :: status(MPI_STATUS_SIZE), statuses(MPI_STATUS_SIZE, 2)
  integer :: reqs(2), ibuf(10), rbuf(10), vals(3), bc(4), sv, rv
  double precision :: dbuf(3), drbuf(3)
  integer :: errors
  character(len=32) :: subname

  nc = 0
  np_ = 0
  errors = 0
  call MPI_Init(ierr)
  call tc('MPI_Init', 0)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  ! Blocking Send/Recv around the ring: status array (tag 1), then MPI_STATUS_IGNORE (tag 2).
  do i = 1, 10
    ibuf(i) = rank * 100 + i
  end do
  if (mod(rank, 2) == 0) then
    call MPI_Send(ibuf, 10, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(rbuf, 10, MPI_INTEGER, left, 1, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(rbuf, 10, MPI_INTEGER, left, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(ibuf, 10, MPI_INTEGER, right, 1, MPI_COMM_WORLD, ierr)
  end if
  if (status(MPI_SOURCE) /= left .or. status(MPI_TAG) /= 1 .or. rbuf(10) /= left * 100 + 10) errors = errors + 1
  call tc('MPI_Send', 40)
  call tc('MPI_Recv', 0)
  call tp('send', 'MPI_Send', 'world', right, right, 1, 40)
  call tp('recv', 'MPI_Recv', 'world', left, left, 1, 0)

  dbuf = (/ 1.0d0, 2.0d0, dble(rank) /)
  if (mod(rank, 2) == 0) then
    call MPI_Send(dbuf, 3, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, ierr)
    call MPI_Recv(drbuf, 3, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Recv(drbuf, 3, MPI_DOUBLE_PRECISION, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Send(dbuf, 3, MPI_DOUBLE_PRECISION, right, 2, MPI_COMM_WORLD, ierr)
  end if
  if (drbuf(3) /= dble(left)) errors = errors + 1
  call tc('MPI_Send', 24)
  call tc('MPI_Recv', 0)
  call tp('send', 'MPI_Send', 'world', right, right, 2, 24)
  call tp('recv', 'MPI_Recv', 'world', left, left, 2, 0)

  ! Isend/Irecv + Waitall with MPI_STATUSES_IGNORE (tag 3), then with a statuses array (tag 4).
  call MPI_Irecv(rbuf, 4, MPI_INTEGER, left, 3, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 4, MPI_INTEGER, right, 3, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  if (rbuf(4) /= left * 100 + 4) errors = errors + 1
  call tc('MPI_Irecv', 0)
  call tc('MPI_Isend', 16)
  call tc('MPI_Waitall', 0)
  call tp('recv', 'MPI_Irecv', 'world', left, left, 3, 0)
  call tp('send', 'MPI_Isend', 'world', right, right, 3, 16)

  call MPI_Irecv(rbuf, 2, MPI_INTEGER, right, 4, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(ibuf, 2, MPI_INTEGER, left, 4, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, statuses, ierr)
  if (statuses(MPI_SOURCE, 1) /= right .or. statuses(MPI_TAG, 1) /= 4) errors = errors + 1
  call tc('MPI_Irecv', 0)
  call tc('MPI_Isend', 8)
  call tc('MPI_Waitall', 0)
  call tp('recv', 'MPI_Irecv', 'world', right, right, 4, 0)
  call tp('send', 'MPI_Isend', 'world', left, left, 4, 8)

  ! Waitany over two wildcard-source receives with distinct tags: tag 5 always comes from
  ! the left neighbour, tag 6 from the right one.
  call MPI_Irecv(sv, 1, MPI_INTEGER, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(rv, 1, MPI_INTEGER, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, right, 5, MPI_COMM_WORLD, ierr)
  call MPI_Send(rank, 1, MPI_INTEGER, left, 6, MPI_COMM_WORLD, ierr)
  call tc('MPI_Irecv', 0)
  call tc('MPI_Irecv', 0)
  call tc('MPI_Send', 4)
  call tc('MPI_Send', 4)
  call tp('send', 'MPI_Send', 'world', right, right, 5, 4)
  call tp('send', 'MPI_Send', 'world', left, left, 6, 4)
  do i = 1, 2
    call MPI_Waitany(2, reqs, idx, status, ierr)
    call tc('MPI_Waitany', 0)
    if (idx == 1) then
      if (status(MPI_TAG) /= 5 .or. status(MPI_SOURCE) /= left) errors = errors + 1
    else if (idx == 2) then
      if (status(MPI_TAG) /= 6 .or. status(MPI_SOURCE) /= right) errors = errors + 1
    else
      errors = errors + 1
    end if
  end do
  if (sv /= left .or. rv /= right) errors = errors + 1
  call tp('recv', 'MPI_Irecv', 'world', left, left, 5, 0)
  call tp('recv', 'MPI_Irecv', 'world', right, right, 6, 0)

  ! Collectives: Allreduce in place (3 integers), Bcast of 4 integers from rank 0.
  vals = (/ rank, 1, 2 /)
  call MPI_Allreduce(MPI_IN_PLACE, vals, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call tc('MPI_Allreduce', 12)
  if (vals(1) /= nprocs * (nprocs - 1) / 2 .or. vals(2) /= nprocs) errors = errors + 1
  bc = rank
  if (rank == 0) bc = (/ 7, 8, 9, 10 /)
  call MPI_Bcast(bc, 4, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call tc('MPI_Bcast', 16)
  if (bc(4) /= 10) errors = errors + 1

  ! Split by parity, key = rank: the first communicator-creating call on the world, told
  ! apart by the colour (names: tools/cpath_read.cpp).
  color = mod(rank, 2)
  call MPI_Comm_split(MPI_COMM_WORLD, color, rank, sub, ierr)
  call tc('MPI_Comm_split', 0)
  call MPI_Comm_rank(sub, srank, ierr)
  call MPI_Comm_size(sub, ssize, ierr)
  if (srank /= rank / 2) errors = errors + 1
  write (subname, '(A,I0)') 'world#0:', color
  call MPI_Barrier(sub, ierr)
  call tc('MPI_Barrier', 0)
  sright = mod(srank + 1, ssize)
  sleft = mod(srank + ssize - 1, ssize)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, sright, 7, rv, 1, MPI_INTEGER, sleft, 7, sub, status, ierr)
  if (rv /= 2 * sleft + color) errors = errors + 1
  call tc('MPI_Sendrecv', 4)
  call tp('send', 'MPI_Sendrecv', trim(subname), sright, 2 * sright + color, 7, 4)
  call tp('recv', 'MPI_Sendrecv', trim(subname), sleft, 2 * sleft + color, 7, 0)
  call MPI_Comm_free(sub, ierr)
  call tc('MPI_Comm_free', 0)

  call MPI_Allreduce(MPI_IN_PLACE, errors, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call tc('MPI_Allreduce', 4)
  if (rank == 0) print '(A,I0,A,I0)', 'coll_fortran_mpif: ranks=', nprocs, ' errors=', errors
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
  end subroutine emit

end program coll_fortran_mpif
