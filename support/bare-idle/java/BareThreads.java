/**
 * Bare idle Java threads: the reference for spawn-idle's bytes per task.
 *
 *   java BareThreads virtual|platform N HOLD_MS
 *
 * N threads (Thread.ofVirtual().start, or Thread.ofPlatform().start with the default stack
 * size) that only sleep HOLD_MS; "spawned" once the spawning loop is done; then every thread
 * is joined (kept in an array to join them).
 */
public class BareThreads {
    public static void main(String[] args) throws InterruptedException {
        Thread.Builder builder = args[0].equals("platform") ? Thread.ofPlatform() : Thread.ofVirtual();
        int n = Integer.parseInt(args[1]);
        long ms = Long.parseLong(args[2]);
        Runnable idle = () -> {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) threads[i] = builder.start(idle);
        System.out.println("spawned");
        System.out.flush();
        for (Thread t : threads) t.join();
    }
}
