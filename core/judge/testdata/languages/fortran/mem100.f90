! Allocates and touches 100 MiB (100 * 2**17 eight-byte integers), live until the
! answer is printed.
program mem100
  implicit none
  integer(kind=8) :: a, b
  integer(kind=8), allocatable :: big(:)
  read (*, *) a, b
  allocate (big(13107200))
  big = 7
  if (sum(big) /= 7_8 * 13107200_8) error stop 1
  print '(I0)', a + b
end program mem100
