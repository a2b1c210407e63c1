package concbench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Refuses up front a run that needs more platform threads than the OS will give, instead of
 * creating threads until pthread_create fails: that takes tens of seconds and starves every
 * other process on the machine of pids while it lasts. The limit is the smallest of pid_max,
 * threads-max and the cgroup's pids.max, minus the threads alive now (from /proc/loadavg).
 */
final class ThreadBudget {
    private static final long MARGIN = 512; // left for the JVM's own threads and the rest of the machine

    private ThreadBudget() {}

    static void require(long needed, String what) {
        long limit = Math.min(read("/proc/sys/kernel/pid_max"), read("/proc/sys/kernel/threads-max"));
        limit = Math.min(limit, read("/sys/fs/cgroup/pids.max"));
        long inUse = threadsInUse();
        long available = limit - inUse - MARGIN;
        if (needed > available) {
            throw new Work.Failure("needs " + needed + " platform threads for " + what + "; this machine allows about "
                    + Math.max(available, 0) + " more (limit " + limit + " from pid_max / threads-max / pids.max, "
                    + inUse + " threads in use)");
        }
    }

    private static long read(String path) {
        try {
            String text = firstLine(path);
            return text.equals("max") ? Long.MAX_VALUE : Long.parseLong(text);
        } catch (IOException | NumberFormatException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Files.readString trusts the size /proc reports (0) and returns a truncated text: read lines. */
    private static String firstLine(String path) throws IOException {
        try (var in = Files.newBufferedReader(Path.of(path))) {
            String line = in.readLine();
            return line == null ? "" : line.trim();
        }
    }

    private static long threadsInUse() {
        try {
            String[] fields = firstLine("/proc/loadavg").split("\\s+");
            return Long.parseLong(fields[3].split("/")[1]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
