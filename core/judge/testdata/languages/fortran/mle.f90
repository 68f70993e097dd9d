! Allocates and touches 1 GiB (2**27 eight-byte integers).
program mle
  implicit none
  integer(kind=8) :: a, b
  integer(kind=8), allocatable :: big(:)
  read (*, *) a, b
  allocate (big(134217728))
  big = 7
  print '(I0)', a + b + big(134217728) - 7
end program mle
