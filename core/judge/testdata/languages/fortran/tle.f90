program tle
  implicit none
  integer(kind=8) :: a, b, x
  read (*, *) a, b
  x = 0
  do while (x /= -1)
    x = mod(x * 31 + 7, 1000003_8)
  end do
  print '(I0)', a + b + x
end program tle
