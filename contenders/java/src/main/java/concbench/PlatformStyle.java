package concbench;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;

/**
 * java-platform: fixed pools of pool-size platform threads (fanout, sleep-tasks); one platform thread
 * per task (spawn-idle, ring) and per producer/consumer (channel); skynet on a ForkJoinPool.
 */
public final class PlatformStyle implements Style {
    private ExecutorService pool, subPool;

    @Override public Set<String> workloads() {
        return Set.of("fanout", "sleep-tasks", "spawn-idle", "channel", "ring", "skynet", "http-hello", "http-aggregate");
    }

    /**
     * fanout's sub-fetch pool holds this many times pool-size threads: 1 (java-platform) unless
     * -Dconcbench.subpool.factor says otherwise (java-platform-subpool3x: 3, one thread for each of the
     * three sub-fetches of every request thread).
     */
    static int subPoolFactor() throws Params.BadInput {
        String v = System.getProperty("concbench.subpool.factor", "1");
        try {
            int factor = Integer.parseInt(v);
            if (factor >= 1) return factor;
        } catch (NumberFormatException e) {
            // below
        }
        throw new Params.BadInput("-Dconcbench.subpool.factor=" + v + ": expected an integer >= 1");
    }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        return switch (workload) {
            case "fanout" -> {
                var f = Work.FanoutParams.of(p);
                long subPoolSize = (long) subPoolFactor() * f.poolSize();
                if (subPoolSize > Integer.MAX_VALUE)
                    throw new Params.BadInput("sub-fetch pool of " + subPoolSize + " threads (-Dconcbench.subpool.factor x pool-size)");
                ThreadBudget.require(f.poolSize() + subPoolSize,
                        "fixed pools of " + f.poolSize() + " (requests) and " + subPoolSize + " (sub-fetches), all started in set-up");
                // requests on one pool, the three sub-fetches on a second one: a request thread blocks on its
                // sub-fetches, so sharing one bounded pool deadlocks once P requests hold all threads.
                // The sub-fetch pool has pool-size threads, or factor x pool-size (-Dconcbench.subpool.factor).
                pool = Startup.fixedPool(f.poolSize());
                subPool = Startup.fixedPool((int) subPoolSize);
                yield Blocking.fanout(pool, subPool, f, f.poolSize());
            }
            case "sleep-tasks" -> {
                var s = Work.SleepTasksParams.of(p);
                ThreadBudget.require(s.poolSize(), "a fixed pool of " + s.poolSize() + ", all started in set-up");
                pool = Startup.fixedPool(s.poolSize());
                yield Blocking.sleepTasks(pool, s, s.poolSize());
            }
            case "spawn-idle" -> {
                int tasks = p.intAtLeast("tasks", 0);
                ThreadBudget.require(tasks, tasks + " idle tasks, one thread each");
                yield Blocking.spawnIdle(Thread.ofPlatform(), "platform", tasks, p.longAtLeast("hold-ms", 0));
            }
            case "channel" -> {
                ThreadBudget.require(2L * p.intAtLeast("workers", 0), "a producer and a consumer thread per worker");
                yield Blocking.channel(Thread.ofPlatform(), "platform", p.intAtLeast("workers", 0),
                    p.intAtLeast("events", 0), p.intAtLeast("queue", 1), p.string("etype"), p.intAtLeast("esize", 0));
            }
            case "ring" -> {
                var r = Ring.Params.of(p);
                ThreadBudget.require(r.tasks(), r.rings() + " rings of " + r.size() + " tasks, one thread each");
                yield new ThreadRing(Thread.ofPlatform(), "platform", r);
            }
            case "skynet" -> {
                var s = Skynet.Params.of(p);
                ForkJoinPool forkJoin = Startup.forkJoinPool(); // a million platform threads are not possible
                pool = forkJoin;
                yield Skynet.forkJoin(forkJoin, s);
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
    }

    /**
     * Thread-per-request on fixed pools: the JDK HttpServer runs every exchange on a fixed pool of
     * pool-size threads; http-aggregate calls base on that thread, then submits detail and extra to a
     * second fixed pool of pool-size threads and get()s both (as fanout does: sharing one bounded pool
     * deadlocks once every request thread waits on queued calls).
     */
    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        return switch (workload) {
            case "http-hello" -> {
                var c = HttpHello.Config.of(p);
                ThreadBudget.require(c.poolSize(), "a fixed pool of " + c.poolSize());
                yield new JdkHttp(c.bind(), c.port(), Executors.newFixedThreadPool(c.poolSize()), HttpHello.handler(),
                        ServerLifecycle.keys(Map.of(), "pool", c.poolSize(), "executor", "Executors.newFixedThreadPool(pool-size)"));
            }
            case "http-aggregate" -> {
                var c = HttpAggregate.Config.of(p);
                ThreadBudget.require(2L * c.poolSize(), "two fixed pools of " + c.poolSize());
                ExecutorService requests = Executors.newFixedThreadPool(c.poolSize());
                subPool = Executors.newFixedThreadPool(c.poolSize());
                Downstream d = Downstream.of(c);
                yield new JdkHttp(c.bind(), c.port(), requests, HttpAggregate.blocking(c, d, HttpAggregate.submitTo(subPool)),
                        ServerLifecycle.keys(d.runtime(), "pool", c.poolSize(), "async_pool", c.poolSize(),
                                "executor", "Executors.newFixedThreadPool(pool-size) for requests and another for detail and extra"));
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
    }

    @Override
    public void close() {
        if (pool != null) pool.shutdownNow();
        if (subPool != null) subPool.shutdownNow();
    }
}
