package concbench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * java-reactor: Project Reactor. Waiting is Mono.delay (a timer on Schedulers.parallel(), no thread held);
 * the continuation (map / zip / cpu loop) runs on the parallel scheduler thread that fired the timer.
 *
 * "All at once" is Mono.zip / Mono.when over the N publishers, not flatMap(f, N): flatMap's drain loop
 * scans its active inner subscribers on every emission, so with N in flight it costs O(N) per event and
 * O(N^2) per run (100k idle delays took 17 s extra here). zip / when count completions in O(1) each.
 * A bounded fan-out (--concurrency C > 0) is flatMap(f, C), the operator made for that.
 */
public final class ReactorStyle implements Style {
    @Override public Set<String> workloads() { return Set.of("fanout", "sleep-tasks", "spawn-idle", "skynet"); }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        Work.Iteration iteration = switch (workload) {
            case "fanout" -> {
                var f = Work.FanoutParams.of(p);
                int width = f.concurrency() > 0 ? f.concurrency() : Math.max(1, f.requests());
                yield (index, start, out) -> {
                    Work.Fetches fetches = Work.Fetches.create();
                    List<Work.UserProfile> profiles = f.concurrency() > 0
                            ? Flux.range(1, f.requests()).flatMap(id -> profile(id, f, fetches), width).collectList().block()
                            : allAtOnce(f.requests(), i -> profile(i + 1, f, fetches));
                    return () -> Work.fanoutResult(profiles, null, fetches);
                };
            }
            case "sleep-tasks" -> {
                var st = Work.SleepTasksParams.of(p); // pool-size validated, ignored
                Duration sleep = Duration.ofMillis(st.sleepMs());
                yield (index, start, out) -> {
                    Work.Sleeps finished = new Work.Sleeps(); // each task adds itself and its timed delay once done
                    List<Long> sums = allAtOnce(st.tasks(), i -> timedDelay(sleep, slept -> {
                        long s = st.cpu();
                        finished.add(slept);
                        return s;
                    }));
                    long sum = 0;
                    for (long s : sums) sum += s;
                    long cpuSum = sum;
                    return () -> Work.sleepTasksResult(finished, cpuSum, null); // built after the clock stops
                };
            }
            case "spawn-idle" -> {
                int tasks = p.intAtLeast("tasks", 0);
                Duration hold = Duration.ofMillis(p.longAtLeast("hold-ms", 0));
                yield (index, start, out) -> {
                    AtomicInteger subscribed = new AtomicInteger();
                    CountDownLatch allSubscribed = new CountDownLatch(1);
                    if (tasks == 0) allSubscribed.countDown();
                    AtomicLong fired = new AtomicLong();
                    List<Mono<Long>> delays = new ArrayList<>(tasks);
                    for (int i = 0; i < tasks; i++) {
                        delays.add(Mono.delay(hold)
                                .doOnSubscribe(s -> {
                                    if (subscribed.incrementAndGet() == tasks) allSubscribed.countDown();
                                })
                                .doOnNext(t -> fired.incrementAndGet()));
                    }
                    CompletableFuture<Void> done = Mono.when(delays).toFuture();
                    allSubscribed.await();
                    out.mark("all-spawned", index, System.nanoTime() - start);
                    done.get();
                    return Work.ready(Work.spawnIdleResult(fired.get()));
                };
            }
            case "skynet" -> {
                var s = Skynet.Params.of(p);
                yield (index, start, out) -> {
                    Skynet.beforeTree();
                    return Work.ready(skynet(0, s.size(), s.branch()).block().json());
                };
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
        Startup.reactorParallel(); // the parallel scheduler's threads (Mono.delay's timers), before the first clock starts
        return iteration;
    }

    /** Subscribes to all n publishers at once and collects their values in order (Mono.zip). */
    @SuppressWarnings("unchecked")
    static <T> List<T> allAtOnce(int n, IntFunction<Mono<T>> make) {
        if (n == 0) return List.of();
        List<Mono<T>> monos = new ArrayList<>(n);
        for (int i = 0; i < n; i++) monos.add(make.apply(i));
        return Mono.zip(monos, values -> {
            List<T> list = new ArrayList<>(values.length);
            for (Object v : values) list.add((T) v);
            return list;
        }).block();
    }

    /** Seed 000's coroutine builder in Reactor: delay for the user, then zip the three delayed fetches. */
    static Mono<Work.UserProfile> profile(int id, Work.FanoutParams f, Work.Fetches fetches) {
        return fetch(f.userMs(), fetches.user(), () -> Work.user(id))
                .flatMap(user -> Mono.zip(
                                fetch(f.ordersMs(), fetches.orders(), Work::orders),
                                fetch(f.prefsMs(), fetches.prefs(), Work::preferences),
                                fetch(f.notificationsMs(), fetches.notifications(), Work::notifications))
                        .map(t -> new Work.UserProfile(user, t.getT1(), t.getT2(), t.getT3())));
    }

    /** A fetch: a timed Mono.delay(ms), then it records its wait under its kind and builds its value. */
    static <T> Mono<T> fetch(long ms, Work.Sleeps kind, Supplier<T> value) {
        return timedDelay(Duration.ofMillis(ms), slept -> {
            kind.add(slept);
            return value.get();
        });
    }

    /**
     * Mono.delay(d), then value(ns the delay took). The clock is read when the Mono is subscribed (defer:
     * per subscription, right before Mono.delay arms its timer), not when it is assembled: allAtOnce
     * assembles all N monos before Mono.zip subscribes to them. The second read is in map, on the parallel
     * thread the timer fired on.
     */
    static <T> Mono<T> timedDelay(Duration d, LongFunction<T> value) {
        return Mono.defer(() -> {
            long armed = System.nanoTime();
            return Mono.delay(d).map(tick -> value.apply(System.nanoTime() - armed));
        });
    }

    /**
     * skynet: every task is a Mono subscribed on Schedulers.parallel() (subscribeOn: the subscription,
     * and so the task's body, is scheduled on a parallel worker; without it the whole tree would run
     * synchronously on main). A parent subscribes to all its children at once (flatMap with
     * concurrency branch) and reduces their results as they arrive, on the threads that emit them.
     */
    static Mono<Skynet.Result> skynet(long num, long size, int branch) {
        return Mono.defer(() -> {
            if (size == 1) return Mono.just(Skynet.Result.leaf(num));
            Skynet.enter();
            long child = size / branch;
            return Flux.range(0, branch)
                    .flatMap(i -> skynet(num + i * child, child, branch), branch)
                    .reduce(Skynet.Result.PARENT, Skynet.Result::plus)
                    .doOnSuccess(r -> Skynet.exit()); // the node's children are summed
        }).subscribeOn(Schedulers.parallel());
    }

    @Override
    public void close() {
        Schedulers.shutdownNow();
    }
}
