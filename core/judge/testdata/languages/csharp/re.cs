using System;

public class Program {
    public static void Main() {
        string[] p = Console.ReadLine().Split(new[] { ' ' }, StringSplitOptions.RemoveEmptyEntries);
        long a = long.Parse(p[0]), b = long.Parse(p[1]);
        throw new InvalidOperationException("no answer for " + (a + b));
    }
}
