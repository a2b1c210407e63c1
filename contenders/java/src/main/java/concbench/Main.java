package concbench;

import java.lang.management.ManagementFactory;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code java -jar concbench-java.jar <style> <workload> --k=v ... --warmup=W --iterations=N}, or for a
 * server workload {@code java -jar concbench-java.jar <style> http-<name> --port=P --bind=ADDR --k=v ...}.
 * Exit 2 on bad input, 1 on any other failure.
 */
public final class Main {
    static final Map<String, List<String>> WORKLOAD_PARAMS = Map.of(
            "fanout", List.of("requests", "concurrency", "user-ms", "orders-ms", "prefs-ms", "notifications-ms", "pool-size"),
            "sleep-tasks", List.of("tasks", "sleep-ms", "cpu-iters", "cpu-seed", "pool-size"),
            "spawn-idle", List.of("tasks", "hold-ms"),
            "channel", List.of("workers", "events", "queue", "etype", "esize"),
            "ring", List.of("rings", "size", "passes", "sample-every"),
            "skynet", List.of("size", "branch"),
            "http-hello", List.of("port", "bind", "pool-size"),
            "http-aggregate", List.of("port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream", "backend-host",
                    "backend-port", "pool-size"));

    /** Server workloads: no --warmup / --iterations; the process serves until SIGTERM. */
    static boolean isServer(String workload) { return workload.startsWith("http-"); }

    /** Style name -> class (loaded by name so that only java-structured loads the preview-API class). */
    static final Map<String, String> STYLES = Map.of(
            "platform", "concbench.PlatformStyle",
            "virtual", "concbench.VirtualStyle",
            "virtual-httpserver", "concbench.VirtualStyle$JdkHttpServer",
            "structured", "concbench.StructuredStyle",
            "structured-httpserver", "concbench.StructuredStyle$JdkHttpServer",
            "completable", "concbench.CompletableStyle",
            "completable-async", "concbench.CompletableStyle$Async",
            "reactor", "concbench.ReactorStyle",
            "thread-per-conn", "concbench.ThreadPerConnStyle");

    public static void main(String[] args) {
        Style style;
        Work.Iteration iteration;
        int warmup, iterations;
        String styleName = null, workload = null;
        try {
            if (args.length < 2) throw new Params.BadInput("expected <style> <workload> --name=value ...");
            styleName = args[0];
            workload = args[1];
            String cls = STYLES.get(styleName);
            if (cls == null) throw new Params.BadInput("unknown style '" + styleName + "' (known: " + STYLES.keySet() + ")");
            List<String> names = WORKLOAD_PARAMS.get(workload);
            if (names == null) throw new Params.BadInput("unknown workload '" + workload + "' (known: " + WORKLOAD_PARAMS.keySet() + ")");
            style = (Style) Class.forName(cls).getDeclaredConstructor().newInstance();
            if (!style.workloads().contains(workload))
                throw new Params.BadInput("style '" + styleName + "' does not implement workload '" + workload + "' (it implements " + style.workloads() + ")");
            Params p = Params.parse(args, 2, names, !isServer(workload));
            if (isServer(workload)) {
                serve(style.server(workload, p), styleName, workload);
                return; // the server's threads keep the JVM alive until SIGTERM
            }
            warmup = p.intAtLeast("warmup", 0);
            iterations = p.intAtLeast("iterations", 1);
            iteration = style.setUp(workload, p);
        } catch (Work.Failure e) {
            System.err.println("concbench-java " + styleName + " " + workload + ": " + e.getMessage());
            System.exit(1);
            return;
        } catch (Params.BadInput e) {
            System.err.println("concbench-java: " + e.getMessage());
            System.err.println("usage: <style> <workload> --<param>=<value> ... --warmup=W --iterations=N"
                    + " (server workloads http-*: no --warmup / --iterations)");
            System.exit(2);
            return;
        } catch (ReflectiveOperationException | LinkageError e) {
            System.err.println("concbench-java: cannot load style '" + styleName + "': " + e);
            System.exit(1);
            return;
        }

        runBatch(style, styleName, workload, iteration, warmup, iterations);
    }

    /** Binds, prints the ready line and returns; a failure to bind or start exits 1. */
    private static void serve(ServerLifecycle.Server server, String styleName, String workload) {
        try {
            ServerLifecycle.run(server, new Json());
        } catch (Exception | OutOfMemoryError e) {
            System.err.println("concbench-java " + styleName + " " + workload + ": cannot start the server: " + e);
            System.exit(1);
        }
    }

    /** Collections and their accumulated time (ms) over every collector (G1: young, concurrent, old; Serial: Copy, MarkSweepCompact). */
    private static long[] gcCountAndMillis() {
        long count = 0, millis = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
            millis += Math.max(0, gc.getCollectionTime());
        }
        return new long[] {count, millis};
    }

    /**
     * The collectors' MXBean names, e.g. "G1 Young Generation, G1 Concurrent GC, G1 Old Generation" or
     * "Copy, MarkSweepCompact" (SerialGC): ergonomics pick G1 only when the JVM sees at least 2 CPUs and
     * 1792 MiB, so a process pinned to one CPU runs SerialGC. Reported per iteration (jvm_gc) and in the
     * servers' ready line (gc).
     */
    static String collectorNames() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", "));
    }

    /** Accumulated JIT compilation time (ms), -1 where the JVM does not monitor it. */
    private static long jitMillis() {
        var jit = ManagementFactory.getCompilationMXBean();
        return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
    }

    private static void runBatch(Style style, String styleName, String workload, Work.Iteration iteration,
                                 int warmup, int iterations) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        String collectors = collectorNames();
        Json out = new Json();
        boolean ownCpu = workload.equals("ring") || workload.equals("skynet");
        long cpuTick = ownCpu ? ProcessCpu.tickNanos() : 0;
        try (PinnedEvents pins = PinnedEvents.ENABLED ? new PinnedEvents() : null) {
            for (int i = 0; i < warmup + iterations; i++) {
                iteration.prepare(i); // untimed set-up (ring's tasks), before the baselines below
                mx.resetPeakThreadCount();
                long[] gc0 = gcCountAndMillis();
                long jit0 = jitMillis();
                long pinned0 = pins == null ? 0 : pins.count(), pinnedMs0 = pins == null ? 0 : pins.millis();
                long cpu0 = ownCpu ? ProcessCpu.nanos() : 0;
                long start = System.nanoTime();
                Work.Outcome outcome = iteration.run(i, start, out);
                long elapsed = System.nanoTime() - start;
                long cpu = ownCpu ? ProcessCpu.nanos() - cpu0 : -1;
                // outside the timed region: GC / JIT deltas first (so they cover the timed region only),
                // then the result (ring also stops its tasks there), thread counts, JFR counts, JSON
                long[] gc1 = gcCountAndMillis();
                long jit1 = jitMillis();
                var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
                Map<String, Object> result = outcome.result();
                int threads = mx.getThreadCount();
                int daemon = mx.getDaemonThreadCount();
                int peak = mx.getPeakThreadCount();
                Map<String, Object> r = new LinkedHashMap<>(result);
                r.put("jvm_threads", threads);
                r.put("jvm_nondaemon_threads", threads - daemon);
                r.put("jvm_peak_threads", peak);
                r.put("jvm_gc", collectors);
                r.put("jvm_gc_count", gc1[0] - gc0[0]);
                r.put("jvm_gc_ms", gc1[1] - gc0[1]);
                r.put("jvm_jit_ms", jit1 - jit0);
                r.put("jvm_heap_used_mib", heap.getUsed() >> 20);
                r.put("jvm_heap_committed_mib", heap.getCommitted() >> 20);
                if (pins != null) {
                    pins.settle();
                    r.put("jvm_vt_pinned", pins.count() - pinned0);
                    r.put("jvm_vt_pinned_ms", pins.millis() - pinnedMs0);
                }
                out.iteration(i, i < warmup, elapsed, r, cpu, cpuTick);
            }
            style.close();
        } catch (Work.Failure e) {
            System.err.println("concbench-java " + styleName + " " + workload + ": " + e.getMessage());
            System.exit(1);
        } catch (Throwable e) {
            System.err.println("concbench-java " + styleName + " " + workload + ": failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
        }
        System.exit(0); // do not wait for pool threads
    }
}
