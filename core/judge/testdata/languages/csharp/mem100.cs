using System;
using System.Collections.Generic;

// Allocates and touches 100 MiB in 1 MiB blocks, kept live until the answer is printed.
public class Program {
    public static void Main() {
        string[] p = Console.ReadLine().Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(p[0]), b = long.Parse(p[1]);
        var blocks = new List<long[]>();
        for (int i = 0; i < 100; i++) {
            var block = new long[1 << 17];
            for (int j = 0; j < block.Length; j++) block[j] = i;
            blocks.Add(block);
        }
        long s = 0;
        foreach (var block in blocks) s += block[block.Length - 1];
        if (s != 4950) throw new Exception("lost a block");
        Console.WriteLine(a + b);
    }
}
