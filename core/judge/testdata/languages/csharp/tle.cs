using System;

public class Program {
    public static void Main() {
        string[] p = Console.ReadLine().Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(p[0]), b = long.Parse(p[1]);
        long x = 0;
        while (x != -1) {
            x = (x * 31 + 7) % 1000003;
        }
        Console.WriteLine(a + b + x);
    }
}
