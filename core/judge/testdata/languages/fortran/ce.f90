program ce
  implicit none
  integer(kind=8) :: a, b
  read (*, *) a, b
  a = 'not a number'
  print '(I0)', a + b
end program ce
