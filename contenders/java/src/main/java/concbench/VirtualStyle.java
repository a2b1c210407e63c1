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
public final class VirtualStyle implements Style {
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
     * The JDK HttpServer with a virtual thread per exchange; http-aggregate calls base on that thread,
     * then submits detail and extra to the same virtual-thread-per-task executor and get()s both.
     */
    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
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
