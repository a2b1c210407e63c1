package concbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;

/**
 * java-completable: CompletableFuture.supplyAsync / thenCompose / allOf on one fixed pool of pool-size
 * platform threads. The sleeps are Thread.sleep inside the supplied tasks (so they hold a pool thread),
 * but no pool thread ever blocks on a join: joins happen only on already-completed futures or on main.
 */
public final class CompletableStyle implements Style {
    private ExecutorService pool;

    @Override public Set<String> workloads() { return Set.of("fanout", "sleep-tasks", "http-aggregate"); }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        return switch (workload) {
            case "fanout" -> {
                var f = Work.FanoutParams.of(p);
                pool = Executors.newFixedThreadPool(f.poolSize());
                yield fanout(f);
            }
            case "sleep-tasks" -> {
                int tasks = p.intAtLeast("tasks", 0), poolSize = p.intAtLeast("pool-size", 1);
                long sleepMs = p.longAtLeast("sleep-ms", 0), k = p.longAtLeast("cpu-iters", 0);
                pool = Executors.newFixedThreadPool(poolSize);
                yield (index, start, out) -> {
                    AtomicLong finished = new AtomicLong(); // each task counts itself once it is done
                    List<CompletableFuture<Long>> all = new ArrayList<>(tasks);
                    for (int i = 0; i < tasks; i++)
                        all.add(CompletableFuture.supplyAsync(() -> {
                            Work.sleep(sleepMs);
                            long s = Work.cpu(k);
                            finished.incrementAndGet();
                            return s;
                        }, pool));
                    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
                    long sum = 0;
                    for (CompletableFuture<Long> cf : all) sum += cf.join(); // all complete
                    return Work.ready(Work.sleepTasksResult(finished.get(), sum, poolSize));
                };
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
    }

    private Work.Iteration fanout(Work.FanoutParams f) {
        return (index, start, out) -> {
            Semaphore inFlight = f.concurrency() > 0 ? new Semaphore(f.concurrency()) : null;
            List<CompletableFuture<Work.UserProfile>> all = new ArrayList<>(f.requests());
            for (int id = 1; id <= f.requests(); id++) {
                if (inFlight != null) inFlight.acquire(); // blocks main only, never a pool thread
                int uid = id;
                CompletableFuture<Work.UserProfile> cf = CompletableFuture
                        .supplyAsync(() -> Work.fetchUser(uid, f.userMs()), pool)
                        .thenCompose(user -> {
                            var orders = CompletableFuture.supplyAsync(() -> Work.fetchOrders(f.ordersMs()), pool);
                            var prefs = CompletableFuture.supplyAsync(() -> Work.fetchPreferences(f.prefsMs()), pool);
                            var notifs = CompletableFuture.supplyAsync(() -> Work.fetchNotifications(f.notificationsMs()), pool);
                            return CompletableFuture.allOf(orders, prefs, notifs).thenApply(v ->
                                    new Work.UserProfile(user, orders.join(), prefs.join(), notifs.join())); // all complete
                        });
                if (inFlight != null) cf.whenComplete((v, e) -> inFlight.release());
                all.add(cf);
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
            List<Work.UserProfile> profiles = new ArrayList<>(all.size());
            for (CompletableFuture<Work.UserProfile> cf : all) profiles.add(cf.join());
            return () -> Work.fanoutResult(profiles, f.poolSize());
        };
    }

    /**
     * http-aggregate: the JDK HttpServer runs exchanges on a small fixed pool (one thread per available
     * processor) whose handler only parses the path and chains base, then detail and extra, on the
     * fixed pool of pool-size threads; the last stage writes the response from that pool.
     */
    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        if (!workload.equals("http-aggregate")) throw new Params.BadInput("unknown workload " + workload);
        var c = HttpAggregate.Config.of(p);
        int cpus = Runtime.getRuntime().availableProcessors();
        pool = Executors.newFixedThreadPool(c.poolSize());
        Downstream d = Downstream.of(c);
        return new JdkHttp(c.bind(), c.port(), Executors.newFixedThreadPool(cpus), HttpAggregate.completable(c, d, pool),
                ServerLifecycle.keys(d.runtime(), "pool", c.poolSize(), "request_threads", cpus,
                        "executor", "HttpServer on Executors.newFixedThreadPool(cpus); supplyAsync on Executors.newFixedThreadPool(pool-size)"));
    }

    @Override
    public void close() {
        if (pool != null) pool.shutdownNow();
    }
}
