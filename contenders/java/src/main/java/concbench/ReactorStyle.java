package concbench;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * java-reactor: Project Reactor. Waiting is Mono.delay (a timer on Schedulers.parallel(), no thread held);
 * the continuation (map / zip / cpu loop) runs on the parallel scheduler thread that fired the timer.
 * Fan-out width is flatMap's concurrency: --concurrency when > 0, else everything at once.
 */
public final class ReactorStyle implements Style {
    @Override public Set<String> workloads() { return Set.of("fanout", "sleep-tasks", "spawn-idle"); }

    @Override
    public Work.Iteration setUp(String workload, Params p) throws Params.BadInput {
        return switch (workload) {
            case "fanout" -> {
                var f = Work.FanoutParams.of(p);
                int width = f.concurrency() > 0 ? f.concurrency() : Math.max(1, f.requests());
                yield (index, start, out) -> {
                    List<Work.UserProfile> profiles = Flux.range(1, f.requests())
                            .flatMap(id -> profile(id, f), width)
                            .collectList()
                            .block();
                    return Work.fanoutResult(profiles, null);
                };
            }
            case "sleep-tasks" -> {
                int tasks = p.intAtLeast("tasks", 0);
                p.intAtLeast("pool-size", 1); // validated, ignored
                Duration sleep = Duration.ofMillis(p.longAtLeast("sleep-ms", 0));
                long k = p.longAtLeast("cpu-iters", 0);
                yield (index, start, out) -> {
                    long sum = Flux.range(0, tasks)
                            .flatMap(i -> Mono.delay(sleep).map(t -> Work.cpu(k)), Math.max(1, tasks))
                            .reduce(0L, Long::sum)
                            .block();
                    return Work.sleepTasksResult(tasks, sum, null);
                };
            }
            case "spawn-idle" -> {
                int tasks = p.intAtLeast("tasks", 0);
                Duration hold = Duration.ofMillis(p.longAtLeast("hold-ms", 0));
                yield (index, start, out) -> {
                    AtomicInteger subscribed = new AtomicInteger();
                    CountDownLatch allSubscribed = new CountDownLatch(1);
                    if (tasks == 0) allSubscribed.countDown();
                    CompletableFuture<Long> done = Flux.range(0, tasks)
                            .flatMap(i -> Mono.delay(hold).doOnSubscribe(s -> {
                                if (subscribed.incrementAndGet() == tasks) allSubscribed.countDown();
                            }), Math.max(1, tasks))
                            .count() // Mono.delay emits once per completed task
                            .toFuture();
                    allSubscribed.await();
                    out.mark("all-spawned", index, System.nanoTime() - start);
                    return Work.spawnIdleResult(done.get());
                };
            }
            default -> throw new Params.BadInput("unknown workload " + workload);
        };
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

    @Override
    public void close() {
        Schedulers.shutdownNow();
    }
}
