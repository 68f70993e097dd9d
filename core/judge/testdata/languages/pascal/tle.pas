program tle;
var a, b, x: int64;
begin
  readln(a, b);
  x := 0;
  while x <> -1 do
    x := (x * 31 + 7) mod 1000003;
  writeln(a + b + x);
end.
