package concbench;

import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.StructuredTaskScope;

/**
 * java-structured (fanout only): seed 000's StructuredTaskScope variant, in the JDK 25 preview API form
 * (StructuredTaskScope.open(), default joiner = all subtasks must succeed). Requests are virtual threads
 * from a virtual-thread-per-task executor, as in seed 000's runner. Needs --enable-preview.
 */
public final class StructuredStyle implements Style {
    private ExecutorService executor;

    @Override public Set<String> workloads() { return Set.of("fanout", "http-aggregate"); }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        if (!workload.equals("fanout")) throw new Params.BadInput("unknown workload " + workload);
        var f = Work.FanoutParams.of(p);
        executor = Executors.newVirtualThreadPerTaskExecutor();
        Startup.virtualThreads(); // carriers and the scheduler's timer thread, before the first clock starts
        // same request-submission loop as java-virtual; only the sub-fetches differ (a scope per request)
        return Blocking.fanoutWith(executor, id -> buildProfile(id, f), f, null);
    }

    static Work.UserProfile buildProfile(int id, Work.FanoutParams f) throws InterruptedException {
        var user = Work.fetchUser(id, f.userMs());
        try (var scope = StructuredTaskScope.open()) {
            var orders = scope.fork(() -> Work.fetchOrders(f.ordersMs()));
            var prefs = scope.fork(() -> Work.fetchPreferences(f.prefsMs()));
            var notifs = scope.fork(() -> Work.fetchNotifications(f.notificationsMs()));
            scope.join(); // waits for all three; throws if one failed
            return new Work.UserProfile(user, orders.get(), prefs.get(), notifs.get());
        }
    }

    /**
     * http-aggregate: the JDK HttpServer with a virtual thread per exchange; base on that thread, then a
     * StructuredTaskScope.open() per request forks detail and extra (a virtual thread each) and join()s.
     */
    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        if (!workload.equals("http-aggregate")) throw new Params.BadInput("unknown workload " + workload);
        var c = HttpAggregate.Config.of(p); // pool-size validated, ignored
        Downstream d = Downstream.of(c);
        HttpAggregate.Fork scoped = (a, b) -> {
            try (var scope = StructuredTaskScope.open()) {
                scope.fork(a);
                scope.fork(b);
                scope.join(); // throws FailedException when a subtask failed (the other one is cancelled)
            }
        };
        return new JdkHttp(c.bind(), c.port(), Executors.newVirtualThreadPerTaskExecutor(), HttpAggregate.blocking(c, d, scoped),
                ServerLifecycle.keys(d.runtime(), "pool", null,
                        "executor", "Executors.newVirtualThreadPerTaskExecutor(); StructuredTaskScope.open() per request"));
    }

    @Override
    public void close() {
        if (executor != null) executor.shutdownNow();
    }
}
