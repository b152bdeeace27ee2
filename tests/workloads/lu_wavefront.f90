!-----------------------------------------------------------------------
! lu_wavefront.f90 -- LU-style SSOR proxy application for libcpath.
!
! Written for the libcpath test suite from the published description of
! the NAS LU pseudo-application (symmetric successive over-relaxation on
! a 3-D grid, pipelined lower/upper triangular sweeps).  It contains no
! benchmark source code.  See tests/workloads/README.md for the details.
!
! Problem: A u = f on an n x n x n interior grid (Dirichlet boundary),
! nc = 5 unknowns per point.  A is a symmetric positive definite block
! 7-point operator
!     (A u)_p = D_p u_p - sum_{q nbr of p} a_pq M_dir(pq) u_q
!     D_p     = (sum_q a_pq + sigma) I + K
! with spatially varying edge coefficients a_pq > 0, symmetric 5x5
! coupling matrices M_dir of norm <= 1 and a fixed SPD 5x5 matrix K.
! f = A u_exact (manufactured solution), so the iteration converges to
! u_exact.  One SSOR iteration (A = D + L + U):
!     r     = f - A u                              (compute_rhs)
!     (D + omega L) v = r                          (lower_sweep)
!     (D + omega U) w = D v                        (upper_sweep)
!     u     = u + omega (2 - omega) w              (update_solution)
!
! Decomposition: i and j over a px x py process grid (MPI_Dims_create),
! k is local.  The triangular solves are pipelined over k-planes:
! blocking MPI_Recv from west (i-1) / north (j-1), compute plane,
! blocking MPI_Send to east (i+1) / south (j+1); reversed for the upper
! sweep.  The ordering is the lexicographic one for every process count,
! so the solution field is bitwise independent of the decomposition.
!
! Usage: lu_wavefront [n [niter [nchk]]]   (defaults 48 60 5)
!-----------------------------------------------------------------------
module lu_data
  implicit none
  include 'mpif.h'
  integer, parameter :: nc = 5
  integer, parameter :: tag_lower = 101, tag_upper = 102, tag_halo = 110
  integer :: n, niter, nchk
  integer :: myid, nprocs, px, py, ipx, jpy
  integer :: west, east, north, south
  integer :: nxl, nyl, nz, ig0, jg0, maxface
  double precision :: omega, sigma, hgrid
  double precision :: kmat(nc,nc), mdir(nc,nc,3)
  double precision, allocatable :: u(:,:,:,:), uex(:,:,:,:), frc(:,:,:,:)
  double precision, allocatable :: rsd(:,:,:,:), dlt(:,:,:,:)
  double precision, allocatable :: ax(:,:,:), ay(:,:,:), az(:,:,:)
  double precision, allocatable :: dfac(:,:,:,:)
  double precision, allocatable :: wbuf(:), nbuf(:)
  double precision, allocatable :: hsend(:,:), hrecv(:,:)
end module lu_data

!-----------------------------------------------------------------------
program lu_wavefront
  use lu_data
  implicit none
  integer :: ierr, it, nchecks, ios, i, argerr
  integer :: dims(2)
  character(len=64) :: arg
  double precision :: t0, t1, tloc(1), tmax(1)
  double precision :: rn, en, er, rn0, en0, er0, en_prev
  double precision :: ref_rn, ref_er
  logical :: ok, monotone, haveref

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, myid, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! ---- parameters (every rank parses the same command line) ----
  n = 48
  niter = 60
  nchk = 5
  argerr = 0
  do i = 1, min(command_argument_count(), 3)
     call get_command_argument(i, arg)
     select case (i)
     case (1)
        read(arg, *, iostat=ios) n
     case (2)
        read(arg, *, iostat=ios) niter
     case default
        read(arg, *, iostat=ios) nchk
     end select
     if (ios /= 0) argerr = 1
  end do
  if (command_argument_count() > 3) argerr = 1

  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  px = dims(1)
  py = dims(2)
  if (argerr == 0) then
     if (n < 2 .or. n < px .or. n < py .or. niter < 1 .or. nchk < 1) argerr = 2
  end if
  if (argerr /= 0) then
     if (myid == 0) write(*, '(a)') &
          'lu_wavefront: usage: lu_wavefront [n [niter [nchk]]] ' // &
          '(integers, n >= process grid dims, niter >= 1, nchk >= 1)'
     call MPI_Finalize(ierr)
     call exit(2)
  end if

  omega = 1.2d0
  sigma = 0.2d0
  hgrid = 1.0d0 / dble(n + 1)

  call setup_decomposition()
  call setup_problem()

  if (myid == 0) then
     write(*, '(a)') ' LU-style SSOR wavefront proxy (lu_wavefront)'
     write(*, '(a,i5,a,i5,a,i5,a,i6,a,i4)') ' Grid: ', n, ' x', n, ' x', n, &
          '   iterations:', niter, '   norm check every', nchk
     write(*, '(a,i4,a,i4,a,i5,a)') ' Process grid: ', px, ' x', py, &
          '  (', nprocs, ' ranks)'
     write(*, '(a)') '  iter     residual norm      energy error       rel. error'
  end if

  ! initial residual and norms (not timed)
  call exchange_halo(u)
  call compute_rhs(u, frc, rsd)
  call global_norms(rn0, en0, er0)
  if (myid == 0) write(*, '(i6,3es18.9)') 0, rn0, en0, er0
  en_prev = en0
  monotone = .true.
  nchecks = 0
  rn = rn0
  en = en0
  er = er0

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  t0 = MPI_Wtime()
  do it = 1, niter
     call lower_sweep()
     call upper_sweep()
     call update_solution()
     call exchange_halo(u)
     call compute_rhs(u, frc, rsd)
     if (mod(it, nchk) == 0 .or. it == niter) then
        call global_norms(rn, en, er)
        nchecks = nchecks + 1
        if (myid == 0) write(*, '(i6,3es18.9)') it, rn, en, er
        ! SSOR on an SPD matrix contracts the A-norm of the error
        if (en > en_prev * (1.0d0 + 1.0d-10) .and. en > 1.0d-13 * en0) &
             monotone = .false.
        en_prev = en
     end if
  end do
  t1 = MPI_Wtime()
  tloc(1) = t1 - t0
  call MPI_Allreduce(tloc, tmax, 1, MPI_DOUBLE_PRECISION, MPI_MAX, &
       MPI_COMM_WORLD, ierr)

  ! ---- verification ----
  ok = monotone .and. (rn < rn0) .and. (er < er0)   ! also false for NaN
  call reference_values(n, niter, haveref, ref_rn, ref_er)
  if (haveref) then
     if (abs(rn - ref_rn) > 1.0d-8 * ref_rn) ok = .false.
     if (abs(er - ref_er) > 1.0d-8 * ref_er) ok = .false.
  end if

  if (myid == 0) then
     write(*, '(a,l2)') ' Energy norm of error monotone: ', monotone
     write(*, '(a,es23.15,a,es23.15)') ' Residual norm:  initial', rn0, &
          '  final', rn
     write(*, '(a,es23.15,a,es23.15)') ' Relative error: initial', er0, &
          '  final', er
     if (haveref) then
        write(*, '(a,es23.15,a,es23.15)') ' Reference:      residual', ref_rn, &
             '  error', ref_er
     else
        write(*, '(a)') ' Reference values: none for this size (convergence checks only)'
     end if
     write(*, '(a,f12.4)') ' Time in seconds = ', tmax(1)
     if (ok) then
        write(*, '(a)') ' Verification = SUCCESSFUL'
     else
        write(*, '(a)') ' Verification = UNSUCCESSFUL'
     end if
  end if

  call teardown()
  call MPI_Finalize(ierr)
  if (.not. ok) call exit(1)
end program lu_wavefront

!-----------------------------------------------------------------------
! Reference norms for built-in sizes (obtained with 1 rank; the solution
! is bitwise decomposition independent, norms agree to rounding).
!-----------------------------------------------------------------------
subroutine reference_values(nn, nit, have, ref_rn, ref_er)
  implicit none
  integer, intent(in) :: nn, nit
  logical, intent(out) :: have
  double precision, intent(out) :: ref_rn, ref_er
  have = .false.
  ref_rn = 0.0d0
  ref_er = 0.0d0
  if (nn == 12 .and. nit == 10) then
     have = .true.
     ref_rn = 1.491499412959522d-02
     ref_er = 1.981596881675768d-02
  else if (nn == 48 .and. nit == 60) then
     have = .true.
     ref_rn = 1.305350046356144d-06
     ref_er = 2.824334733188123d-06
  end if
end subroutine reference_values

!-----------------------------------------------------------------------
subroutine setup_decomposition()
  use lu_data
  implicit none
  ipx = mod(myid, px)
  jpy = myid / px
  west = -1
  east = -1
  north = -1
  south = -1
  if (ipx > 0)      west  = myid - 1
  if (ipx < px - 1) east  = myid + 1
  if (jpy > 0)      north = myid - px
  if (jpy < py - 1) south = myid + px
  nxl = n / px
  if (ipx < mod(n, px)) nxl = nxl + 1
  ig0 = ipx * (n / px) + min(ipx, mod(n, px))
  nyl = n / py
  if (jpy < mod(n, py)) nyl = nyl + 1
  jg0 = jpy * (n / py) + min(jpy, mod(n, py))
  nz = n
end subroutine setup_decomposition

!-----------------------------------------------------------------------
! smooth positive edge coefficient at physical position (x, y, z)
!-----------------------------------------------------------------------
double precision function edge_coef(dir, x, y, z)
  implicit none
  integer, intent(in) :: dir
  double precision, intent(in) :: x, y, z
  double precision, parameter :: pi = 3.141592653589793d0
  edge_coef = 1.0d0 + 0.1d0 * dir + 0.4d0 * sin(2.0d0 * pi * x + y) * cos(pi * z) &
       + 0.3d0 * x * y * (1.0d0 - z)
end function edge_coef

!-----------------------------------------------------------------------
! manufactured solution, component m at (x, y, z)
!-----------------------------------------------------------------------
double precision function exact_solution(m, x, y, z)
  implicit none
  integer, intent(in) :: m
  double precision, intent(in) :: x, y, z
  double precision, parameter :: pi = 3.141592653589793d0
  exact_solution = 1.0d0 + 0.1d0 * m + 0.5d0 * x * (1.0d0 - y) + 0.25d0 * z * z &
       + 0.3d0 * sin(pi * (x + 2.0d0 * y + 3.0d0 * z) / (1.0d0 + 0.2d0 * m)) &
       + 0.2d0 * cos(pi * m * x * y) * exp(-z)
end function exact_solution

!-----------------------------------------------------------------------
subroutine setup_problem()
  use lu_data
  implicit none
  integer :: i, j, k, m, perm(nc,3)
  double precision :: x, y, z
  double precision, external :: edge_coef, exact_solution

  ! fixed SPD coupling K = 0.2 * tridiag(-1, 2, -1)
  kmat = 0.0d0
  do m = 1, nc
     kmat(m, m) = 0.4d0
  end do
  do m = 1, nc - 1
     kmat(m, m + 1) = -0.2d0
     kmat(m + 1, m) = -0.2d0
  end do
  ! M_dir = 0.9 I + 0.1 P_dir with a symmetric permutation P_dir
  perm(:, 1) = (/ 2, 1, 4, 3, 5 /)
  perm(:, 2) = (/ 1, 3, 2, 5, 4 /)
  perm(:, 3) = (/ 5, 4, 3, 2, 1 /)
  mdir = 0.0d0
  do k = 1, 3
     do m = 1, nc
        mdir(m, m, k) = mdir(m, m, k) + 0.9d0
        mdir(m, perm(m, k), k) = mdir(m, perm(m, k), k) + 0.1d0
     end do
  end do

  allocate(u(nc, 0:nxl+1, 0:nyl+1, 0:nz+1), uex(nc, 0:nxl+1, 0:nyl+1, 0:nz+1))
  allocate(frc(nc, 0:nxl+1, 0:nyl+1, 0:nz+1), rsd(nc, 0:nxl+1, 0:nyl+1, 0:nz+1))
  allocate(dlt(nc, 0:nxl+1, 0:nyl+1, 0:nz+1))
  allocate(ax(0:nxl, 1:nyl, 1:nz), ay(1:nxl, 0:nyl, 1:nz), az(1:nxl, 1:nyl, 0:nz))
  allocate(dfac(nc, nc, nxl, nyl))
  maxface = nc * max(nxl, nyl) * nz
  allocate(wbuf(nc * nyl), nbuf(nc * nxl))
  allocate(hsend(maxface, 4), hrecv(maxface, 4))

  do k = 1, nz
     z = k * hgrid
     do j = 1, nyl
        y = (jg0 + j) * hgrid
        do i = 0, nxl
           x = (ig0 + i + 0.5d0) * hgrid
           ax(i, j, k) = edge_coef(1, x, y, z)
        end do
     end do
     do j = 0, nyl
        y = (jg0 + j + 0.5d0) * hgrid
        do i = 1, nxl
           x = (ig0 + i) * hgrid
           ay(i, j, k) = edge_coef(2, x, y, z)
        end do
     end do
  end do
  do k = 0, nz
     z = (k + 0.5d0) * hgrid
     do j = 1, nyl
        y = (jg0 + j) * hgrid
        do i = 1, nxl
           x = (ig0 + i) * hgrid
           az(i, j, k) = edge_coef(3, x, y, z)
        end do
     end do
  end do

  do k = 0, nz + 1
     z = k * hgrid
     do j = 0, nyl + 1
        y = (jg0 + j) * hgrid
        do i = 0, nxl + 1
           x = (ig0 + i) * hgrid
           do m = 1, nc
              uex(m, i, j, k) = exact_solution(m, x, y, z)
           end do
        end do
     end do
  end do

  ! f = A u_exact  (compute_rhs gives 0 - A u_exact)
  dlt = 0.0d0
  call compute_rhs(uex, dlt, rsd)
  frc = -rsd

  ! initial guess: exact on the global boundary, zero inside
  u = 0.0d0
  if (west < 0)  u(:, 0, :, :) = uex(:, 0, :, :)
  if (east < 0)  u(:, nxl+1, :, :) = uex(:, nxl+1, :, :)
  if (north < 0) u(:, :, 0, :) = uex(:, :, 0, :)
  if (south < 0) u(:, :, nyl+1, :) = uex(:, :, nyl+1, :)
  u(:, :, :, 0) = uex(:, :, :, 0)
  u(:, :, :, nz+1) = uex(:, :, :, nz+1)

  dlt = 0.0d0
  rsd = 0.0d0
end subroutine setup_problem

!-----------------------------------------------------------------------
subroutine teardown()
  use lu_data
  implicit none
  deallocate(u, uex, frc, rsd, dlt, ax, ay, az, dfac, wbuf, nbuf, hsend, hrecv)
end subroutine teardown

!-----------------------------------------------------------------------
! face exchange of v with the four in-plane neighbours
! (MPI_Irecv + MPI_Send + MPI_Waitall)
!-----------------------------------------------------------------------
subroutine exchange_halo(v)
  use lu_data
  implicit none
  double precision, intent(inout) :: v(nc, 0:nxl+1, 0:nyl+1, 0:nz+1)
  integer :: req(4), nreq, ierr, i, j, k, l, nwe, nns
  integer :: stats(MPI_STATUS_SIZE, 4)

  nwe = nc * nyl * nz
  nns = nc * nxl * nz
  nreq = 0
  if (west >= 0) then
     nreq = nreq + 1
     call MPI_Irecv(hrecv(:, 1), nwe, MPI_DOUBLE_PRECISION, west, tag_halo, &
          MPI_COMM_WORLD, req(nreq), ierr)
  end if
  if (east >= 0) then
     nreq = nreq + 1
     call MPI_Irecv(hrecv(:, 2), nwe, MPI_DOUBLE_PRECISION, east, tag_halo, &
          MPI_COMM_WORLD, req(nreq), ierr)
  end if
  if (north >= 0) then
     nreq = nreq + 1
     call MPI_Irecv(hrecv(:, 3), nns, MPI_DOUBLE_PRECISION, north, tag_halo, &
          MPI_COMM_WORLD, req(nreq), ierr)
  end if
  if (south >= 0) then
     nreq = nreq + 1
     call MPI_Irecv(hrecv(:, 4), nns, MPI_DOUBLE_PRECISION, south, tag_halo, &
          MPI_COMM_WORLD, req(nreq), ierr)
  end if

  if (west >= 0) then
     l = 0
     do k = 1, nz
        do j = 1, nyl
           hsend(l+1:l+nc, 1) = v(:, 1, j, k)
           l = l + nc
        end do
     end do
     call MPI_Send(hsend(:, 1), nwe, MPI_DOUBLE_PRECISION, west, tag_halo, &
          MPI_COMM_WORLD, ierr)
  end if
  if (east >= 0) then
     l = 0
     do k = 1, nz
        do j = 1, nyl
           hsend(l+1:l+nc, 2) = v(:, nxl, j, k)
           l = l + nc
        end do
     end do
     call MPI_Send(hsend(:, 2), nwe, MPI_DOUBLE_PRECISION, east, tag_halo, &
          MPI_COMM_WORLD, ierr)
  end if
  if (north >= 0) then
     l = 0
     do k = 1, nz
        do i = 1, nxl
           hsend(l+1:l+nc, 3) = v(:, i, 1, k)
           l = l + nc
        end do
     end do
     call MPI_Send(hsend(:, 3), nns, MPI_DOUBLE_PRECISION, north, tag_halo, &
          MPI_COMM_WORLD, ierr)
  end if
  if (south >= 0) then
     l = 0
     do k = 1, nz
        do i = 1, nxl
           hsend(l+1:l+nc, 4) = v(:, i, nyl, k)
           l = l + nc
        end do
     end do
     call MPI_Send(hsend(:, 4), nns, MPI_DOUBLE_PRECISION, south, tag_halo, &
          MPI_COMM_WORLD, ierr)
  end if

  if (nreq > 0) call MPI_Waitall(nreq, req, stats, ierr)

  if (west >= 0) then
     l = 0
     do k = 1, nz
        do j = 1, nyl
           v(:, 0, j, k) = hrecv(l+1:l+nc, 1)
           l = l + nc
        end do
     end do
  end if
  if (east >= 0) then
     l = 0
     do k = 1, nz
        do j = 1, nyl
           v(:, nxl+1, j, k) = hrecv(l+1:l+nc, 2)
           l = l + nc
        end do
     end do
  end if
  if (north >= 0) then
     l = 0
     do k = 1, nz
        do i = 1, nxl
           v(:, i, 0, k) = hrecv(l+1:l+nc, 3)
           l = l + nc
        end do
     end do
  end if
  if (south >= 0) then
     l = 0
     do k = 1, nz
        do i = 1, nxl
           v(:, i, nyl+1, k) = hrecv(l+1:l+nc, 4)
           l = l + nc
        end do
     end do
  end if
end subroutine exchange_halo

!-----------------------------------------------------------------------
! r = b - A v on the interior (v must have valid halos)
!-----------------------------------------------------------------------
subroutine compute_rhs(v, b, r)
  use lu_data
  implicit none
  double precision, intent(in)  :: v(nc, 0:nxl+1, 0:nyl+1, 0:nz+1)
  double precision, intent(in)  :: b(nc, 0:nxl+1, 0:nyl+1, 0:nz+1)
  double precision, intent(out) :: r(nc, 0:nxl+1, 0:nyl+1, 0:nz+1)
  integer :: i, j, k, m, l
  double precision :: d, s, t

  do k = 1, nz
     do j = 1, nyl
        do i = 1, nxl
           d = ax(i-1, j, k) + ax(i, j, k) + ay(i, j-1, k) + ay(i, j, k) &
                + az(i, j, k-1) + az(i, j, k) + sigma
           do m = 1, nc
              s = d * v(m, i, j, k)
              do l = 1, nc
                 t = kmat(m, l) * v(l, i, j, k) &
                      - mdir(m, l, 1) * (ax(i-1, j, k) * v(l, i-1, j, k) &
                                       + ax(i, j, k)   * v(l, i+1, j, k)) &
                      - mdir(m, l, 2) * (ay(i, j-1, k) * v(l, i, j-1, k) &
                                       + ay(i, j, k)   * v(l, i, j+1, k)) &
                      - mdir(m, l, 3) * (az(i, j, k-1) * v(l, i, j, k-1) &
                                       + az(i, j, k)   * v(l, i, j, k+1))
                 s = s + t
              end do
              r(m, i, j, k) = b(m, i, j, k) - s
           end do
        end do
     end do
  end do
end subroutine compute_rhs

!-----------------------------------------------------------------------
! form and LU-factor the diagonal blocks D_p of k-plane k into dfac
!-----------------------------------------------------------------------
subroutine jacobian_plane(k)
  use lu_data
  implicit none
  integer, intent(in) :: k
  integer :: i, j, m, l, c
  double precision :: d, blk(nc, nc)

  do j = 1, nyl
     do i = 1, nxl
        d = ax(i-1, j, k) + ax(i, j, k) + ay(i, j-1, k) + ay(i, j, k) &
             + az(i, j, k-1) + az(i, j, k) + sigma
        blk = kmat
        do m = 1, nc
           blk(m, m) = blk(m, m) + d
        end do
        ! Doolittle LU without pivoting (blk is SPD, diagonally dominant);
        ! the unit lower factor is stored below the diagonal
        do c = 1, nc - 1
           do m = c + 1, nc
              blk(m, c) = blk(m, c) / blk(c, c)
              do l = c + 1, nc
                 blk(m, l) = blk(m, l) - blk(m, c) * blk(c, l)
              end do
           end do
        end do
        dfac(:, :, i, j) = blk
     end do
  end do
end subroutine jacobian_plane

!-----------------------------------------------------------------------
! solve (LU) x = t in place with a factor from jacobian_plane
!-----------------------------------------------------------------------
subroutine block_solve(f, t)
  use lu_data, only: nc
  implicit none
  double precision, intent(in) :: f(nc, nc)
  double precision, intent(inout) :: t(nc)
  integer :: m, l
  do m = 2, nc
     do l = 1, m - 1
        t(m) = t(m) - f(m, l) * t(l)
     end do
  end do
  do m = nc, 1, -1
     do l = m + 1, nc
        t(m) = t(m) - f(m, l) * t(l)
     end do
     t(m) = t(m) / f(m, m)
  end do
end subroutine block_solve

!-----------------------------------------------------------------------
! lower-triangular sweep: (D + omega L) v = r, wavefront over k-planes
!-----------------------------------------------------------------------
subroutine lower_sweep()
  use lu_data
  implicit none
  integer :: i, j, k, m, l, p, ierr
  double precision :: t(nc)

  do k = 1, nz
     if (west >= 0) then
        call MPI_Recv(wbuf, nc * nyl, MPI_DOUBLE_PRECISION, west, tag_lower, &
             MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        p = 0
        do j = 1, nyl
           dlt(:, 0, j, k) = wbuf(p+1:p+nc)
           p = p + nc
        end do
     end if
     if (north >= 0) then
        call MPI_Recv(nbuf, nc * nxl, MPI_DOUBLE_PRECISION, north, tag_lower, &
             MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        p = 0
        do i = 1, nxl
           dlt(:, i, 0, k) = nbuf(p+1:p+nc)
           p = p + nc
        end do
     end if

     call jacobian_plane(k)

     do j = 1, nyl
        do i = 1, nxl
           do m = 1, nc
              t(m) = 0.0d0
              do l = 1, nc
                 t(m) = t(m) + mdir(m, l, 1) * ax(i-1, j, k) * dlt(l, i-1, j, k) &
                             + mdir(m, l, 2) * ay(i, j-1, k) * dlt(l, i, j-1, k) &
                             + mdir(m, l, 3) * az(i, j, k-1) * dlt(l, i, j, k-1)
              end do
              t(m) = rsd(m, i, j, k) + omega * t(m)
           end do
           call block_solve(dfac(1, 1, i, j), t)
           dlt(:, i, j, k) = t
        end do
     end do

     if (east >= 0) then
        p = 0
        do j = 1, nyl
           wbuf(p+1:p+nc) = dlt(:, nxl, j, k)
           p = p + nc
        end do
        call MPI_Send(wbuf, nc * nyl, MPI_DOUBLE_PRECISION, east, tag_lower, &
             MPI_COMM_WORLD, ierr)
     end if
     if (south >= 0) then
        p = 0
        do i = 1, nxl
           nbuf(p+1:p+nc) = dlt(:, i, nyl, k)
           p = p + nc
        end do
        call MPI_Send(nbuf, nc * nxl, MPI_DOUBLE_PRECISION, south, tag_lower, &
             MPI_COMM_WORLD, ierr)
     end if
  end do
end subroutine lower_sweep

!-----------------------------------------------------------------------
! upper-triangular sweep: (D + omega U) w = D v, in place in dlt,
! i.e. w = v + omega D^-1 (sum of upper neighbour couplings of w)
!-----------------------------------------------------------------------
subroutine upper_sweep()
  use lu_data
  implicit none
  integer :: i, j, k, m, l, p, ierr
  double precision :: t(nc)

  do k = nz, 1, -1
     if (east >= 0) then
        call MPI_Recv(wbuf, nc * nyl, MPI_DOUBLE_PRECISION, east, tag_upper, &
             MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        p = 0
        do j = 1, nyl
           dlt(:, nxl+1, j, k) = wbuf(p+1:p+nc)
           p = p + nc
        end do
     end if
     if (south >= 0) then
        call MPI_Recv(nbuf, nc * nxl, MPI_DOUBLE_PRECISION, south, tag_upper, &
             MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
        p = 0
        do i = 1, nxl
           dlt(:, i, nyl+1, k) = nbuf(p+1:p+nc)
           p = p + nc
        end do
     end if

     call jacobian_plane(k)

     do j = nyl, 1, -1
        do i = nxl, 1, -1
           do m = 1, nc
              t(m) = 0.0d0
              do l = 1, nc
                 t(m) = t(m) + mdir(m, l, 1) * ax(i, j, k) * dlt(l, i+1, j, k) &
                             + mdir(m, l, 2) * ay(i, j, k) * dlt(l, i, j+1, k) &
                             + mdir(m, l, 3) * az(i, j, k) * dlt(l, i, j, k+1)
              end do
              t(m) = omega * t(m)
           end do
           call block_solve(dfac(1, 1, i, j), t)
           dlt(:, i, j, k) = dlt(:, i, j, k) + t
        end do
     end do

     if (west >= 0) then
        p = 0
        do j = 1, nyl
           wbuf(p+1:p+nc) = dlt(:, 1, j, k)
           p = p + nc
        end do
        call MPI_Send(wbuf, nc * nyl, MPI_DOUBLE_PRECISION, west, tag_upper, &
             MPI_COMM_WORLD, ierr)
     end if
     if (north >= 0) then
        p = 0
        do i = 1, nxl
           nbuf(p+1:p+nc) = dlt(:, i, 1, k)
           p = p + nc
        end do
        call MPI_Send(nbuf, nc * nxl, MPI_DOUBLE_PRECISION, north, tag_upper, &
             MPI_COMM_WORLD, ierr)
     end if
  end do
end subroutine upper_sweep

!-----------------------------------------------------------------------
subroutine update_solution()
  use lu_data
  implicit none
  integer :: i, j, k
  double precision :: fac
  fac = omega * (2.0d0 - omega)
  do k = 1, nz
     do j = 1, nyl
        do i = 1, nxl
           u(:, i, j, k) = u(:, i, j, k) + fac * dlt(:, i, j, k)
        end do
     end do
  end do
end subroutine update_solution

!-----------------------------------------------------------------------
! rn = RMS residual, en = sqrt(e.A e / N) (energy norm of the error,
! e = u_exact - u, A e = r), er = ||e|| / ||u_exact||
!-----------------------------------------------------------------------
subroutine global_norms(rn, en, er)
  use lu_data
  implicit none
  double precision, intent(out) :: rn, en, er
  double precision :: loc(4), glob(4), e
  integer :: i, j, k, m, ierr

  loc = 0.0d0
  do k = 1, nz
     do j = 1, nyl
        do i = 1, nxl
           do m = 1, nc
              e = uex(m, i, j, k) - u(m, i, j, k)
              loc(1) = loc(1) + rsd(m, i, j, k)**2
              loc(2) = loc(2) + e * rsd(m, i, j, k)
              loc(3) = loc(3) + e * e
              loc(4) = loc(4) + uex(m, i, j, k)**2
           end do
        end do
     end do
  end do
  call MPI_Allreduce(loc, glob, 4, MPI_DOUBLE_PRECISION, MPI_SUM, &
       MPI_COMM_WORLD, ierr)
  rn = sqrt(glob(1) / (dble(nc) * dble(n)**3))
  en = sqrt(max(glob(2), 0.0d0) / (dble(nc) * dble(n)**3))
  er = sqrt(glob(3) / glob(4))
end subroutine global_norms
