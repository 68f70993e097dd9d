public class Main {
    public static void main(String[] args) {
        long x = 0;
        while (true) { x++; if (x == -1) break; }
        System.out.println(x);
    }
}
