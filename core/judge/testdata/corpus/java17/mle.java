public class Main {
    public static void main(String[] args) {
        byte[][] blocks = new byte[1024][];
        for (int i = 0; i < blocks.length; i++) { blocks[i] = new byte[1 << 20]; blocks[i][0] = 1; }
        System.out.println(blocks.length);
    }
}
