using System;
using System.Threading;

// Four threads each sum a quarter of 1..4000000; the total is checked before a+b.
public class Program {
    public static void Main() {
        string[] p = Console.ReadLine().Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(p[0]), b = long.Parse(p[1]);
        const long n = 4000000;
        var parts = new long[4];
        var threads = new Thread[4];
        for (int t = 0; t < 4; t++) {
            int k = t;
            threads[t] = new Thread(() => {
                long s = 0;
                for (long i = k * n / 4 + 1; i <= (k + 1) * n / 4; i++) s += i;
                parts[k] = s;
            });
            threads[t].Start();
        }
        foreach (var th in threads) th.Join();
        if (parts[0] + parts[1] + parts[2] + parts[3] != n * (n + 1) / 2) throw new Exception("wrong sum");
        Console.WriteLine(a + b);
    }
}
