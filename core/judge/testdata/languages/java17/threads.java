import java.util.Scanner;

public class Main {
    public static void main(String[] args) throws InterruptedException {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        long[] parts = new long[4];
        Thread[] ts = new Thread[4];
        for (int i = 0; i < 4; i++) {
            final int id = i;
            ts[i] = new Thread(() -> {
                for (long k = 1; k <= 1000000; k++) if (k % 4 == id) parts[id] += k;
            });
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        long s = 0;
        for (long p : parts) s += p;
        System.out.println(a + b + s - 500000500000L);
    }
}
