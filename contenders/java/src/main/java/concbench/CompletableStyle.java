package concbench;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * java-completable: CompletableFuture.supplyAsync / thenCompose / allOf on one fixed pool of pool-size
 * platform threads. The sleeps are Thread.sleep inside the supplied tasks (so they hold a pool thread),
 * but no pool thread ever blocks on a join: joins happen only on already-completed futures or on main.
 *
 * <p>java-completable-async (style "completable-async", {@link Async}): the same composition, but each
 * wait is a timer: {@code supplyAsync(value, CompletableFuture.delayedExecutor(ms, MILLISECONDS, pool))}
 * hands the supplier to the pool once ms have passed, so no pool thread is held while waiting; the pool
 * threads run only the short CPU parts (building values, the cpu loop, the continuations).
 */
public class CompletableStyle implements Style {
    /** java-completable-async: the style chosen by name "completable-async" after the jar. */
    public static final class Async extends CompletableStyle {
        public Async() { super(true); }
    }

    private final boolean timer; // true: waits are delayedExecutor timers; false: Thread.sleep on a pool thread
    private ExecutorService pool;

    public CompletableStyle() { this(false); }

    CompletableStyle(boolean timer) { this.timer = timer; }

    @Override public Set<String> workloads() {
        return timer ? Set.of("fanout", "sleep-tasks", "http-aggregate")
                : Set.of("fanout", "sleep-tasks", "ring", "skynet", "http-aggregate");
    }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        Work.Iteration iteration = switch (workload) {
            case "fanout" -> {
                var f = Work.FanoutParams.of(p);
                pool = Startup.fixedPool(f.poolSize());
                yield fanout(f);
            }
            case "sleep-tasks" -> {
                var st = Work.SleepTasksParams.of(p);
                pool = Startup.fixedPool(st.poolSize());
                yield sleepTasks(st, poolEcho(st.poolSize()));
            }
            case "ring" -> new CompletableRing(forkJoin(), Ring.Params.of(p));
            case "skynet" -> {
                var s = Skynet.Params.of(p);
                ForkJoinPool fj = forkJoin();
                yield (index, start, out) -> {
                    Skynet.beforeTree();
                    return Work.ready(skynet(fj, 0, s.size(), s.branch()).join().json());
                };
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
        if (timer) Startup.completableDelayScheduler(); // the timer thread, before the first clock starts
        return iteration;
    }

    /**
     * ring and skynet: many tiny non-blocking stages, on a ForkJoinPool of one worker per available
     * processor (its workers started in set-up). Not the fixed pool of the other workloads (no
     * pool-size parameter, and one LinkedBlockingQueue shared by every submit), and not the common
     * pool supplyAsync uses by default: its parallelism is availableProcessors - 1 (1 on 2 CPUs).
     */
    private ForkJoinPool forkJoin() {
        ForkJoinPool fj = Startup.forkJoinPool();
        pool = fj;
        return fj;
    }

    /**
     * skynet: every task is a supplyAsync on the pool. A leaf supplies its result; a parent supplies
     * the future of its children, allOf(children).thenApply(sum), which thenCompose flattens. No
     * thread waits: the parent's stage completes when its last child does (join() only reads
     * completed children).
     */
    static CompletableFuture<Skynet.Result> skynet(ForkJoinPool fj, long num, long size, int branch) {
        if (size == 1) return CompletableFuture.supplyAsync(() -> Skynet.Result.leaf(num), fj);
        return CompletableFuture.supplyAsync(() -> {
            Skynet.enter();
            long child = size / branch;
            List<CompletableFuture<Skynet.Result>> children = new ArrayList<>(branch);
            for (int i = 0; i < branch; i++) children.add(skynet(fj, num + i * child, child, branch));
            return CompletableFuture.allOf(children.toArray(CompletableFuture[]::new)).thenApply(v -> {
                List<Skynet.Result> results = new ArrayList<>(branch);
                for (var c : children) results.add(c.join()); // all complete
                Skynet.exit();
                return Skynet.Result.parentOf(results);
            });
        }, fj).thenCompose(Function.identity());
    }

    /**
     * The value of a simulated call that waits {@code ms}, built from how long the wait took (ns, by
     * System.nanoTime, for the sleep proofs). java-completable: supplyAsync on the pool, the task sleeps
     * (Thread.sleep, holding its pool thread, timed right around the call), then builds the value.
     * java-completable-async: supplyAsync through delayedExecutor(ms, pool): a timer hands the supplier to
     * the pool after ms; the wait is timed from right before the timer is armed to the supplier's start.
     */
    private <T> CompletableFuture<T> after(long ms, LongFunction<T> value) {
        if (timer) {
            long armed = System.nanoTime();
            return CompletableFuture.supplyAsync(() -> value.apply(System.nanoTime() - armed),
                    CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS, pool));
        }
        return CompletableFuture.supplyAsync(() -> value.apply(Work.timedSleep(ms)), pool);
    }

    /** A fetch: after(ms), then it records its own timed wait under its kind and builds its value. */
    private <T> CompletableFuture<T> fetch(long ms, Work.Sleeps kind, Supplier<T> value) {
        return after(ms, slept -> {
            kind.add(slept);
            return value.get();
        });
    }

    /** N calls of after(sleep-ms, CPU part); each task adds itself and its timed wait once its CPU part is done. */
    private Work.Iteration sleepTasks(Work.SleepTasksParams p, Integer poolEcho) {
        return (index, start, out) -> {
            Work.Sleeps finished = new Work.Sleeps();
            List<CompletableFuture<Long>> all = new ArrayList<>(p.tasks());
            for (int i = 0; i < p.tasks(); i++)
                all.add(after(p.sleepMs(), slept -> {
                    long s = p.cpu();
                    finished.add(slept);
                    return s;
                }));
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
            long sum = 0;
            for (CompletableFuture<Long> cf : all) sum += cf.join(); // all complete
            long cpuSum = sum;
            return () -> Work.sleepTasksResult(finished, cpuSum, poolEcho); // built after the clock stops
        };
    }

    /** pool_size in the result: pool-size where the pool bounds the waits (Thread.sleep), null with timers. */
    private Integer poolEcho(int poolSize) {
        return timer ? null : poolSize;
    }

    private Work.Iteration fanout(Work.FanoutParams f) {
        Integer poolEcho = poolEcho(f.poolSize());
        return (index, start, out) -> {
            Work.Fetches fetches = Work.Fetches.create();
            Semaphore inFlight = f.concurrency() > 0 ? new Semaphore(f.concurrency()) : null;
            List<CompletableFuture<Work.UserProfile>> all = new ArrayList<>(f.requests());
            for (int id = 1; id <= f.requests(); id++) {
                if (inFlight != null) inFlight.acquire(); // blocks main only, never a pool thread
                int uid = id;
                CompletableFuture<Work.UserProfile> cf = fetch(f.userMs(), fetches.user(), () -> Work.user(uid))
                        .thenCompose(user -> {
                            var orders = fetch(f.ordersMs(), fetches.orders(), Work::orders);
                            var prefs = fetch(f.prefsMs(), fetches.prefs(), Work::preferences);
                            var notifs = fetch(f.notificationsMs(), fetches.notifications(), Work::notifications);
                            return CompletableFuture.allOf(orders, prefs, notifs).thenApply(v ->
                                    new Work.UserProfile(user, orders.join(), prefs.join(), notifs.join())); // all complete
                        });
                if (inFlight != null) cf.whenComplete((v, e) -> inFlight.release());
                all.add(cf);
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
            List<Work.UserProfile> profiles = new ArrayList<>(all.size());
            for (CompletableFuture<Work.UserProfile> cf : all) profiles.add(cf.join());
            return () -> Work.fanoutResult(profiles, poolEcho, fetches);
        };
    }

    /**
     * http-aggregate: the JDK HttpServer runs exchanges on a small fixed pool (one thread per available
     * processor) whose handler only parses the path and chains base, then detail and extra, on the
     * fixed pool of pool-size threads; the last stage writes the response from that pool. With timers
     * (java-completable-async) the inproc waits are delayedExecutor timers as in the batch workloads.
     */
    @Override
    public ServerLifecycle.Server server(String workload, Params p) throws Params.BadInput {
        if (!workload.equals("http-aggregate")) throw new Params.BadInput("unknown workload " + workload);
        var c = HttpAggregate.Config.of(p);
        int cpus = Runtime.getRuntime().availableProcessors();
        pool = Executors.newFixedThreadPool(c.poolSize());
        Downstream d = Downstream.of(c, timer);
        return new JdkHttp(c.bind(), c.port(), Executors.newFixedThreadPool(cpus), HttpAggregate.completable(c, d, pool),
                ServerLifecycle.keys(d.runtime(), "pool", c.poolSize(), "request_threads", cpus,
                        "executor", "HttpServer on Executors.newFixedThreadPool(cpus); supplyAsync on Executors.newFixedThreadPool(pool-size)"));
    }

    @Override
    public void close() {
        if (pool != null) pool.shutdownNow();
    }
}
