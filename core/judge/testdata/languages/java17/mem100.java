import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        byte[][] blocks = new byte[100][];
        for (int i = 0; i < blocks.length; i++) {
            blocks[i] = new byte[1 << 20];
            java.util.Arrays.fill(blocks[i], (byte) 1);
        }
        System.out.println(a + b + blocks[99][0] - 1);
    }
}
