program re
  implicit none
  integer(kind=8) :: a, b
  read (*, *) a, b
  print '(A,I0)', 'no answer for ', a + b
  error stop 3
end program re
