program re;
var a, b, z: int64;
begin
  readln(a, b);
  z := a - a;
  writeln((a + b) div z);
end.
