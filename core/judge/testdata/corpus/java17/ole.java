import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedOutputStream out = new BufferedOutputStream(System.out, 1 << 16);
        byte[] line = new byte[65536];
        java.util.Arrays.fill(line, (byte) 'x');
        while (true) out.write(line);
    }
}
