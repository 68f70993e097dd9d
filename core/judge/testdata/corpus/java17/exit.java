public class Main {
    public static void main(String[] args) {
        System.out.println(3);
        System.exit(3);
    }
}
