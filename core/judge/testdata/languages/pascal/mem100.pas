program mem100;
{ Allocates and touches 100 MiB in 1 MiB blocks, live until the answer is printed. }
const
  blockSize = 1024 * 1024;
var
  a, b, s: int64;
  i: integer;
  blocks: array[0..99] of PByte;
begin
  readln(a, b);
  s := 0;
  for i := 0 to 99 do
  begin
    GetMem(blocks[i], blockSize);
    FillChar(blocks[i]^, blockSize, i + 1);
  end;
  for i := 0 to 99 do
    s := s + blocks[i][blockSize - 1];
  if s <> 5050 then
    halt(1);
  writeln(a + b);
end.
