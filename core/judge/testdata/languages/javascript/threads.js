// Four worker threads each sum a quarter of 1..4000000; the total is checked before a+b.
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');

if (isMainThread) {
  const [a, b] = require('fs').readFileSync(0, 'utf8').trim().split(/\s+/).map(BigInt);
  const n = 4000000;
  const parts = [];
  for (let t = 0; t < 4; t++) {
    parts.push(new Promise((resolve, reject) => {
      const w = new Worker(__filename, { workerData: { from: t * n / 4 + 1, to: (t + 1) * n / 4 } });
      w.once('message', resolve);
      w.once('error', reject);
    }));
  }
  Promise.all(parts).then((sums) => {
    if (sums.reduce((x, y) => x + y, 0) !== n * (n + 1) / 2) throw new Error('wrong sum');
    console.log(String(a + b));
  });
} else {
  let s = 0;
  for (let i = workerData.from; i <= workerData.to; i++) s += i;
  parentPort.postMessage(s);
}
