program mle;
{ Allocates and touches 1 GiB in 16 MiB blocks, all kept live. }
const
  blockSize = 16 * 1024 * 1024;
var
  a, b, s: int64;
  i: integer;
  blocks: array[0..63] of PByte;
begin
  readln(a, b);
  s := 0;
  for i := 0 to 63 do
  begin
    GetMem(blocks[i], blockSize);
    FillChar(blocks[i]^, blockSize, i + 1);
  end;
  for i := 0 to 63 do
    s := s + blocks[i][blockSize - 1];
  writeln(a + b + s - s);
end.
