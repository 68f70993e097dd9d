program wa;
var a, b: int64;
begin
  readln(a, b);
  writeln(a + b + 1);
end.
