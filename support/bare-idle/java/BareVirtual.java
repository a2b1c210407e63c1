/**
 * Bare idle virtual threads: the reference for spawn-idle's bytes per task.
 *
 *   java BareVirtual N HOLD_MS
 *
 * N virtual threads (Thread.ofVirtual().start) that only sleep HOLD_MS; "spawned" once the
 * spawning loop is done; then every thread is joined (kept in an array to join them).
 */
public class BareVirtual {
    public static void main(String[] args) throws InterruptedException {
        int n = Integer.parseInt(args[0]);
        long ms = Long.parseLong(args[1]);
        Runnable idle = () -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) threads[i] = Thread.ofVirtual().start(idle);
        System.out.println("spawned"); // System.out flushes on println
        System.out.flush();
        for (Thread t : threads) t.join();
    }
}
