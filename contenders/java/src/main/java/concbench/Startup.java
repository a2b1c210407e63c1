package concbench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runtime start-up kept out of the timed region: the batch styles call these from {@link Style#setUp}
 * (once per process, before the first iteration's clock starts) to start the runtime threads that the
 * first iteration would otherwise start inside its timed region. They start threads only; they change
 * no result (the manifest's {@code startup} notes say what each contender pre-starts).
 */
final class Startup {
    private Startup() {}

    /**
     * {@code Executors.newFixedThreadPool(size)} with all its threads started ({@code prestartAllCoreThreads}).
     * A ThreadPoolExecutor adds a worker on every submit while it has fewer than its core size, even when
     * others are idle, so without this the first iteration starts them inside its timed region (all of
     * them when it submits at least size tasks; otherwise later iterations keep adding threads until size).
     */
    static ExecutorService fixedPool(int size) {
        var pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(size);
        pool.prestartAllCoreThreads();
        return pool;
    }

    /**
     * The default virtual-thread scheduler (a ForkJoinPool of one carrier per available processor):
     * starts one virtual thread per carrier, each holding its carrier (spinning) until all are running,
     * so the pool has started every carrier; then each sleeps 1 ms, which starts the pool's
     * delay-scheduler thread (the timer behind Thread.sleep on a virtual thread), and all are joined.
     * Class loading of VirtualThread also starts the VirtualThread-unblocker thread.
     */
    static void virtualThreads() {
        int carriers = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        AtomicInteger running = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); // never hang set-up on this
        Thread[] threads = new Thread[carriers];
        for (int i = 0; i < carriers; i++) {
            threads[i] = Thread.ofVirtual().start(() -> {
                running.incrementAndGet();
                while (running.get() < carriers && System.nanoTime() < deadline) Thread.onSpinWait();
                Work.sleep(1);
            });
        }
        try {
            for (Thread t : threads) t.join();
        } catch (InterruptedException e) {
            throw new Work.Failure("interrupted while starting the virtual-thread scheduler");
        }
    }

    /**
     * A {@code new ForkJoinPool()} (parallelism = available processors) with all its workers started:
     * a ForkJoinPool starts workers on demand, so one task per worker, each spinning on its worker
     * until all are running (at most 1 s), makes the pool start them all; then they are joined.
     */
    static ForkJoinPool forkJoinPool() {
        ForkJoinPool pool = new ForkJoinPool();
        int workers = pool.getParallelism();
        AtomicInteger running = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1); // never hang set-up on this
        List<ForkJoinTask<?>> tasks = new ArrayList<>(workers);
        for (int i = 0; i < workers; i++) {
            tasks.add(pool.submit(() -> {
                running.incrementAndGet();
                while (running.get() < workers && System.nanoTime() < deadline) Thread.onSpinWait();
            }));
        }
        for (ForkJoinTask<?> t : tasks) t.join();
        return pool;
    }

    /**
     * The timer thread of {@code CompletableFuture.delayedExecutor}: on JDK 25 the common ForkJoinPool's
     * delay scheduler ("ForkJoinPool.commonPool-delayScheduler", a daemon thread started on the first
     * delayed task). One delayed no-op run on that thread itself (Runnable::run), so no pool thread and
     * no common-pool worker is started by it.
     */
    static void completableDelayScheduler() {
        CompletableFuture.runAsync(() -> {}, CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS, Runnable::run))
                .join();
    }

    /**
     * Reactor's Schedulers.parallel() (the scheduler behind Mono.delay): one single-threaded
     * ScheduledExecutorService per worker, each starting its thread on its first task. schedule() picks
     * the workers round-robin, so one no-op per worker starts them all.
     */
    static void reactorParallel() {
        Scheduler parallel = Schedulers.parallel();
        int workers = Schedulers.DEFAULT_POOL_SIZE;
        CountDownLatch ran = new CountDownLatch(workers);
        for (int i = 0; i < workers; i++) parallel.schedule(ran::countDown);
        try {
            ran.await();
        } catch (InterruptedException e) {
            throw new Work.Failure("interrupted while starting Reactor's parallel scheduler");
        }
    }
}
