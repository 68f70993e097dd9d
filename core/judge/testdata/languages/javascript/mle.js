// Allocates and touches 1 GiB of JavaScript arrays (8 MiB each), all kept live: the
// heap, not off-heap buffers, so V8's own limit is what stops it.
const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\s+/).map(BigInt);
const blocks = [];
for (let i = 0; i < 128; i++) {
  blocks.push(new Array(1 << 20).fill(i + 0.5));
}
let s = 0;
for (const block of blocks) s += block[block.length - 1];
console.log(String(a + b + BigInt(Math.round(s - s))));
