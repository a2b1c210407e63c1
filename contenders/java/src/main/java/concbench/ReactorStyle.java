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
                    List<Work.UserProfile> profiles = f.concurrency() > 0
                            ? Flux.range(1, f.requests()).flatMap(id -> profile(id, f), width).collectList().block()
                            : allAtOnce(f.requests(), i -> profile(i + 1, f));
                    return () -> Work.fanoutResult(profiles, null);
                };
            }
            case "sleep-tasks" -> {
                int tasks = p.intAtLeast("tasks", 0);
                p.intAtLeast("pool-size", 1); // validated, ignored
                Duration sleep = Duration.ofMillis(p.longAtLeast("sleep-ms", 0));
                long k = p.longAtLeast("cpu-iters", 0);
                yield (index, start, out) -> {
                    AtomicLong finished = new AtomicLong(); // each task counts itself once it is done
                    List<Long> sums = allAtOnce(tasks, i -> Mono.delay(sleep).map(t -> {
                        long s = Work.cpu(k);
                        finished.incrementAndGet();
                        return s;
                    }));
                    long sum = 0;
                    for (long s : sums) sum += s;
                    return Work.ready(Work.sleepTasksResult(finished.get(), sum, null));
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
                yield (index, start, out) -> Work.ready(skynet(0, s.size(), s.branch()).block().json());
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
    static Mono<Work.UserProfile> profile(int id, Work.FanoutParams f) {
        return Mono.delay(Duration.ofMillis(f.userMs())).map(t -> Work.user(id))
                .flatMap(user -> Mono.zip(
                                Mono.delay(Duration.ofMillis(f.ordersMs())).map(t -> Work.orders()),
                                Mono.delay(Duration.ofMillis(f.prefsMs())).map(t -> Work.preferences()),
                                Mono.delay(Duration.ofMillis(f.notificationsMs())).map(t -> Work.notifications()))
                        .map(t -> new Work.UserProfile(user, t.getT1(), t.getT2(), t.getT3())));
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
            long child = size / branch;
            return Flux.range(0, branch)
                    .flatMap(i -> skynet(num + i * child, child, branch), branch)
                    .reduce(Skynet.Result.PARENT, Skynet.Result::plus);
        }).subscribeOn(Schedulers.parallel());
    }

    @Override
    public void close() {
        Schedulers.shutdownNow();
    }
}
