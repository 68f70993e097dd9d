using System;

public class Program {
    public static void Main() {
        long a = "not a number";
        Console.WriteLine(a
    }
}
