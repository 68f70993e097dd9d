// Allocates and touches 100 MiB of JavaScript arrays (1 MiB each), kept live until the
// answer is printed.
const [a, b]: bigint[] = require('fs').readFileSync(0, 'utf8').trim().split(/\s+/).map(BigInt);
const blocks: number[][] = [];
for (let i = 0; i < 100; i++) {
  blocks.push(new Array<number>(1 << 17).fill(i + 0.5));
}
let s = 0;
for (const block of blocks) s += block[block.length - 1];
if (s !== 5000) throw new Error('lost a block');
console.log(String(a + b));
