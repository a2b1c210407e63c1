package concbench;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * java-virtual: Executors.newVirtualThreadPerTaskExecutor() for fanout (as seed 000) and sleep-tasks;
 * Thread.ofVirtual() directly, one virtual thread per task / producer / consumer, for spawn-idle, channel,
 * ring and skynet.
 */
public class VirtualStyle implements Style {
    /**
     * java-virtual-httpserver: the style chosen by name "virtual-httpserver" after the jar; the JDK
     * HttpServer with a virtual thread per exchange for http-*, the batch workloads as java-virtual.
     */
    public static final class JdkHttpServer extends VirtualStyle {
        @Override
        public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
            return jdkHttpServer(workload, p);
        }
    }

    private ExecutorService executor;

    @Override public Set<String> workloads() {
        return Set.of("fanout", "sleep-tasks", "spawn-idle", "channel", "ring", "skynet", "http-hello", "http-aggregate");
    }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        Work.Iteration iteration = switch (workload) {
            case "fanout" -> {
                var f = Work.FanoutParams.of(p);
                executor = Executors.newVirtualThreadPerTaskExecutor();
                yield Blocking.fanout(executor, executor, f, null);
            }
            case "sleep-tasks" -> {
                var s = Work.SleepTasksParams.of(p); // pool-size validated, ignored
                executor = Executors.newVirtualThreadPerTaskExecutor();
                yield Blocking.sleepTasks(executor, s, null);
            }
            case "spawn-idle" -> Blocking.spawnIdle(Thread.ofVirtual(), "virtual",
                    p.intAtLeast("tasks", 0), p.longAtLeast("hold-ms", 0));
            case "channel" -> Blocking.channel(Thread.ofVirtual(), "virtual", p.intAtLeast("workers", 0),
                    p.intAtLeast("events", 0), p.intAtLeast("queue", 1), p.string("etype"), p.intAtLeast("esize", 0));
            case "ring" -> new ThreadRing(Thread.ofVirtual(), "virtual", Ring.Params.of(p));
            case "skynet" -> Skynet.virtualThreads(Skynet.Params.of(p));
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
        Startup.virtualThreads(); // carriers and the scheduler's timer thread, before the first clock starts
        return iteration;
    }

    /**
     * One virtual thread per connection ({@link ThreadPerConnServer} with Thread.ofVirtual()): each request
     * runs on its connection's virtual thread; http-aggregate calls base there, then submits detail and
     * extra to a virtual-thread-per-task executor (two new virtual threads) and get()s both.
     */
    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        return switch (workload) {
            case "http-hello" -> {
                var c = HttpHello.Config.of(p); // pool-size validated, ignored
                yield new ThreadPerConnServer(c.bind(), c.port(), Thread.ofVirtual(), HttpHello.route(),
                        Map.of("executor", CONN_THREADS));
            }
            case "http-aggregate" -> {
                var c = HttpAggregate.Config.of(p); // pool-size validated, ignored
                Downstream d = Downstream.of(c);
                var fork = HttpAggregate.submitTo(Executors.newVirtualThreadPerTaskExecutor());
                yield new ThreadPerConnServer(c.bind(), c.port(), Thread.ofVirtual(), HttpAggregate.perConnection(c, d, fork),
                        ServerLifecycle.keys(d.runtime(), "executor",
                                CONN_THREADS + "; detail and extra on Executors.newVirtualThreadPerTaskExecutor()"));
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
    }

    static final String CONN_THREADS = "one new virtual thread per connection (Thread.ofVirtual().start)";

    /**
     * The JDK HttpServer with a virtual thread per exchange; http-aggregate calls base on that thread,
     * then submits detail and extra to the same virtual-thread-per-task executor and get()s both.
     */
    static ServerLifecycle.Server jdkHttpServer(String workload, Params p) throws Params.BadInput {
        return switch (workload) {
            case "http-hello" -> {
                var c = HttpHello.Config.of(p); // pool-size validated, ignored
                yield new JdkHttp(c.bind(), c.port(), Executors.newVirtualThreadPerTaskExecutor(), HttpHello.handler(),
                        ServerLifecycle.keys(Map.of(), "pool", null, "executor", "Executors.newVirtualThreadPerTaskExecutor()"));
            }
            case "http-aggregate" -> {
                var c = HttpAggregate.Config.of(p);
                ExecutorService vts = Executors.newVirtualThreadPerTaskExecutor();
                Downstream d = Downstream.of(c);
                yield new JdkHttp(c.bind(), c.port(), vts, HttpAggregate.blocking(c, d, HttpAggregate.submitTo(vts)),
                        ServerLifecycle.keys(d.runtime(), "pool", null,
                                "executor", "Executors.newVirtualThreadPerTaskExecutor() for requests, detail and extra"));
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
    }

    @Override
    public void close() {
        if (executor != null) executor.shutdownNow();
    }
}
