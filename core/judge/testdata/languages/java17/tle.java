import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long x = in.nextLong() + in.nextLong();
        while (true) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            if (x == 42) System.out.println(x);
        }
    }
}
