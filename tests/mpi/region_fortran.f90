! User regions from Fortran (`use mpi`): cpath_region_begin/end and cpath_phase are called as
! plain external subroutines, as a user's code would (no libcpath module), with a literal and
! with a blank-padded variable (trailing blanks are not part of the name). Rank 1 computes
! 50 ms in region solve per iteration, the others 5 ms; region halo holds the Allreduce.
program region_fortran
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, it, dlen, st, u
  double precision :: v, s
  character(len=16) :: padded
  character(len=512) :: dir, path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call cpath_phase('setup')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call cpath_phase('iterate')
  padded = 'halo'
  v = rank
  do it = 1, 3
    call cpath_region_begin('solve')
    if (rank == 1) then
      call busy_ms(50)
    else
      call busy_ms(5)
    end if
    call cpath_region_begin(padded)
    call MPI_Allreduce(v, s, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call cpath_region_end(padded)
    call cpath_region_end('solve')
  end do

  call get_environment_variable('CPATH_TEST_EXPECT_DIR', dir, dlen, st)
  if (st == 0 .and. dlen > 0) then
    write (path, '(A,A,I0,A)') dir(1:dlen), '/expect.', rank, '.txt'
    open (newunit=u, file=trim(path), status='replace', action='write')
    write (u, '(A)') '# partial'
    write (u, '(A,I0,A)') 'rank ', rank, ' region begin=3 end=3 name=solve'
    write (u, '(A,I0,A)') 'rank ', rank, ' region begin=3 end=3 name=halo'
    write (u, '(A,I0,A)') 'rank ', rank, ' region phase=1 name=setup'
    write (u, '(A,I0,A)') 'rank ', rank, ' region phase=1 name=iterate'
    close (u)
  end if
  if (rank == 0) print '(A,F6.1)', 'region_fortran done, sum ', s
  call MPI_Finalize(ierr)

contains

  subroutine busy_ms(ms)
    integer, intent(in) :: ms
    integer(kind=8) :: t0, t1, rate
    double precision :: x
    x = 1.0d0
    call system_clock(t0, rate)
    do
      x = x * 1.0000001d0 + 1.0d-9
      call system_clock(t1)
      if ((t1 - t0) * 1000 >= ms * rate) exit
    end do
    if (x < 0) print *, x
  end subroutine busy_ms

end program region_fortran
