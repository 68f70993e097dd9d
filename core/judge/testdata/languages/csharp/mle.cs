using System;
using System.Collections.Generic;

// Allocates and touches 1 GiB in 16 MiB blocks, all kept live.
public class Program {
    public static void Main() {
        string[] p = Console.ReadLine().Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(p[0]), b = long.Parse(p[1]);
        var blocks = new List<long[]>();
        for (int i = 0; i < 64; i++) {
            var block = new long[2 << 20];
            for (int j = 0; j < block.Length; j++) block[j] = i;
            blocks.Add(block);
        }
        long s = 0;
        foreach (var block in blocks) s += block[block.Length - 1];
        Console.WriteLine(a + b + s - s);
    }
}
