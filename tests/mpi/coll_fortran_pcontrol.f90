! Collection test: MPI_PCONTROL from Fortran (include 'mpif.h'). The MPI standard's Fortran
! binding is MPI_PCONTROL(LEVEL) -- there is no IERROR argument -- so a wrapper must not touch
! a second argument. Pcontrol(0) pauses recording (the Barrier and the Send/Recv in between
! are not recorded), Pcontrol(1) resumes; both Pcontrol calls are recorded.
program coll_fortran_pcontrol
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, right, left, a, i, u, dlen, st
  character(len=4096) :: dir
  character(len=4200) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Pcontrol(0)
  ! paused: none of these are recorded
  do i = 1, 3
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 1, a, 1, MPI_INTEGER, left, 1, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
  end do
  call MPI_Pcontrol(1)
  call MPI_Sendrecv(rank, 1, MPI_INTEGER, right, 2, a, 1, MPI_INTEGER, left, 2, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A,I0)', 'coll_fortran_pcontrol: a=', a

  call get_environment_variable('CPATH_TEST_EXPECT_DIR', dir, dlen, st)
  if (st == 0 .and. dlen > 0) then
    write (path, '(A,A,I0,A)') dir(1:dlen), '/expect.', rank, '.txt'
    open (newunit=u, file=trim(path), status='replace', action='write')
    write (u, '(A,I0,A)') 'rank ', rank, ' call MPI_Init count=1 bytes=0'
    write (u, '(A,I0,A)') 'rank ', rank, ' call MPI_Barrier count=2 bytes=0'
    write (u, '(A,I0,A)') 'rank ', rank, ' call MPI_Pcontrol count=2 bytes=0'
    write (u, '(A,I0,A)') 'rank ', rank, ' call MPI_Sendrecv count=1 bytes=4'
    write (u, '(A,I0,A)') 'rank ', rank, ' call MPI_Finalize count=1 bytes=0'
    write (u, '(A,I0,A,I0,A,I0,A)') 'rank ', rank, ' send MPI_Sendrecv comm=world peer=', right, ' wpeer=', right, &
      ' tag=2 count=1 bytes=4'
    write (u, '(A,I0,A,I0,A,I0,A)') 'rank ', rank, ' recv MPI_Sendrecv comm=world peer=', left, ' wpeer=', left, &
      ' tag=2 count=1 bytes=0'
    close (u)
    ! for checks/coll_pcontrol.py: the levels that must be recorded, in order
    write (path, '(A,A,I0,A)') dir(1:dlen), '/directives.', rank, '.txt'
    open (newunit=u, file=trim(path), status='replace', action='write')
    write (u, '(A)') 'pcontrol_levels 0 1'
    close (u)
  end if
  call MPI_Finalize(ierr)
end program coll_fortran_pcontrol
