program ce;
var a, b: int64;
begin
  readln(a, b);
  a := 'not a number';
  writeln(a + b)
end
