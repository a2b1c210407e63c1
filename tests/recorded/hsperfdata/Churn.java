public class Churn {
    interface Shape { double area(); }
    static final class Sq implements Shape { public double area() { return 4; } }
    static final class Ci implements Shape { public double area() { return 3.14; } }
    static double sum(Shape[] s) { double t = 0; for (Shape x : s) t += x.area(); return t; }
    public static void main(String[] a) throws Exception {
        Shape[] sq = new Shape[1000];
        for (int i = 0; i < sq.length; i++) sq[i] = new Sq();
        double t = 0;
        for (int r = 0; r < 20_000; r++) t += sum(sq);
        Shape[] mixed = sq.clone();
        mixed[7] = new Ci();
        for (int r = 0; r < 20_000; r++) t += sum(mixed);
        long s = 0;
        for (int i = 0; i < 3_000_000; i++) s += Integer.toString(i % 1000).hashCode();
        System.out.println(t + s);
        Thread.sleep(60_000);
    }
}
