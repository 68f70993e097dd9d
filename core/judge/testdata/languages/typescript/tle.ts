const [a, b]: bigint[] = require('fs').readFileSync(0, 'utf8').trim().split(/\s+/).map(BigInt);
let x: number = 0;
while (x !== -1) {
  x = (x * 31 + 7) % 1000003;
}
console.log(String(a + b + BigInt(x)));
