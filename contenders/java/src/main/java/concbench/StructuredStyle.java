package concbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.StructuredTaskScope;

/**
 * java-structured: seed 000's StructuredTaskScope variant, in the JDK 25 preview API form
 * (StructuredTaskScope.open(), default joiner = all subtasks must succeed). fanout: requests are virtual
 * threads from a virtual-thread-per-task executor, as in seed 000's runner; skynet: a scope per parent
 * task forking its children. Needs --enable-preview.
 */
public class StructuredStyle implements Style {
    /** java-structured-httpserver: the style "structured-httpserver"; http-aggregate on the JDK HttpServer. */
    public static final class JdkHttpServer extends StructuredStyle {
        @Override
        public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
            if (!workload.equals("http-aggregate")) throw new Params.BadInput("unknown workload " + workload);
            var c = HttpAggregate.Config.of(p); // pool-size validated, ignored
            Downstream d = Downstream.of(c);
            return new JdkHttp(c.bind(), c.port(), Executors.newVirtualThreadPerTaskExecutor(), HttpAggregate.blocking(c, d, SCOPED),
                    ServerLifecycle.keys(d.runtime(), "pool", null,
                            "executor", "Executors.newVirtualThreadPerTaskExecutor(); StructuredTaskScope.open() per request"));
        }
    }

    /** detail and extra forked in a StructuredTaskScope.open() (a virtual thread each) and joined. */
    static final HttpAggregate.Fork SCOPED = (a, b) -> {
        try (var scope = StructuredTaskScope.open()) {
            scope.fork(a);
            scope.fork(b);
            scope.join(); // throws FailedException when a subtask failed (the other one is cancelled)
        }
    };

    private ExecutorService executor;

    @Override public Set<String> workloads() { return Set.of("fanout", "skynet", "http-aggregate"); }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        Work.Iteration iteration = switch (workload) {
            case "fanout" -> {
                var f = Work.FanoutParams.of(p);
                executor = Executors.newVirtualThreadPerTaskExecutor();
                // same request-submission loop as java-virtual; only the sub-fetches differ (a scope per request)
                yield Blocking.fanoutWith(executor, (id, fetches) -> buildProfile(id, f, fetches), f, null);
            }
            case "skynet" -> skynet(Skynet.Params.of(p));
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
        Startup.virtualThreads(); // carriers and the scheduler's timer thread, before the first clock starts
        return iteration;
    }

    static Work.UserProfile buildProfile(int id, Work.FanoutParams f, Work.Fetches fetches) throws InterruptedException {
        var user = Work.fetchUser(id, f.userMs(), fetches);
        try (var scope = StructuredTaskScope.open()) {
            var orders = scope.fork(() -> Work.fetchOrders(f.ordersMs(), fetches));
            var prefs = scope.fork(() -> Work.fetchPreferences(f.prefsMs(), fetches));
            var notifs = scope.fork(() -> Work.fetchNotifications(f.notificationsMs(), fetches));
            scope.join(); // waits for all three; throws if one failed
            return new Work.UserProfile(user, orders.get(), prefs.get(), notifs.get());
        }
    }

    /** skynet: main opens a scope and forks the root; every parent opens its own scope and forks its children. */
    static Work.Iteration skynet(Skynet.Params p) {
        return (index, start, out) -> {
            Skynet.beforeTree();
            try (var scope = StructuredTaskScope.open()) {
                var root = scope.fork(() -> skynetNode(0, p.size(), p.branch()));
                scope.join();
                return Work.ready(root.get().json());
            }
        };
    }

    /** A leaf returns; a parent forks one subtask (a virtual thread) per child in its own scope and joins them. */
    static Skynet.Result skynetNode(long num, long size, int branch) throws InterruptedException {
        if (size == 1) return Skynet.Result.leaf(num);
        Skynet.enter();
        long child = size / branch;
        try (var scope = StructuredTaskScope.open()) {
            List<StructuredTaskScope.Subtask<Skynet.Result>> children = new ArrayList<>(branch);
            for (int i = 0; i < branch; i++) {
                long childNum = num + i * child;
                children.add(scope.fork(() -> skynetNode(childNum, child, branch)));
            }
            scope.join(); // all children succeeded (the default joiner throws otherwise)
            List<Skynet.Result> results = new ArrayList<>(branch);
            for (var c : children) results.add(c.get());
            Skynet.exit();
            return Skynet.Result.parentOf(results);
        }
    }

    /**
     * http-aggregate: one virtual thread per connection (java-virtual's {@link ThreadPerConnServer});
     * base on that thread, then a StructuredTaskScope.open() per request forks detail and extra (a
     * virtual thread each) and join()s.
     */
    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        if (!workload.equals("http-aggregate")) throw new Params.BadInput("unknown workload " + workload);
        var c = HttpAggregate.Config.of(p); // pool-size validated, ignored
        Downstream d = Downstream.of(c);
        return new ThreadPerConnServer(c.bind(), c.port(), Thread.ofVirtual(), HttpAggregate.perConnection(c, d, SCOPED),
                ServerLifecycle.keys(d.runtime(), "executor",
                        VirtualStyle.CONN_THREADS + "; StructuredTaskScope.open() per request"));
    }

    @Override
    public void close() {
        if (executor != null) executor.shutdownNow();
    }
}
