const [a, b]: bigint[] = require('fs').readFileSync(0, 'utf8').trim().split(/\s+/).map(BigInt);
const sum: number = a + b;
console.log(sum);
