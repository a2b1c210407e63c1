package concbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

/**
 * java-completable: CompletableFuture.supplyAsync / thenCompose / allOf on one fixed pool of pool-size
 * platform threads. The sleeps are Thread.sleep inside the supplied tasks (so they hold a pool thread),
 * but no pool thread ever blocks on a join: joins happen only on already-completed futures or on main.
 */
public final class CompletableStyle implements Style {
    private ExecutorService pool;

    @Override public Set<String> workloads() { return Set.of("fanout", "sleep-tasks"); }

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
                    List<CompletableFuture<Long>> all = new ArrayList<>(tasks);
                    for (int i = 0; i < tasks; i++)
                        all.add(CompletableFuture.supplyAsync(() -> {
                            Work.sleep(sleepMs);
                            return Work.cpu(k);
                        }, pool));
                    CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
                    long sum = 0;
                    for (CompletableFuture<Long> cf : all) sum += cf.join(); // all complete
                    return Work.ready(Work.sleepTasksResult(tasks, sum, poolSize));
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

    @Override
    public void close() {
        if (pool != null) pool.shutdownNow();
    }
}
