package concbench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * The thread-per-task (blocking) implementations shared by java-platform and java-virtual: they differ
 * only in the executors / thread builders passed in.
 */
final class Blocking {
    private Blocking() {}

    // ---------------------------------------------------------------- fanout (seed 000)

    /** Builds one profile (blocking); its fetches record their sleeps in {@code fetches}. */
    interface Builder {
        Work.UserProfile build(int id, Work.Fetches fetches) throws Exception;
    }

    /** Requests run on {@code requests}; each blocks on its three sub-fetches submitted to {@code subs}. */
    static Work.Iteration fanout(ExecutorService requests, ExecutorService subs, Work.FanoutParams f, Integer poolEcho) {
        return fanoutWith(requests, (id, fetches) -> buildProfile(id, subs, f, fetches), f, poolEcho);
    }

    /** Submits every request (bounded by --concurrency when > 0) to {@code requests}, then get()s them all. */
    static Work.Iteration fanoutWith(ExecutorService requests, Builder builder, Work.FanoutParams f, Integer poolEcho) {
        return (index, start, out) -> {
            int r = f.requests();
            Work.Fetches fetches = Work.Fetches.create();
            Semaphore inFlight = f.concurrency() > 0 ? new Semaphore(f.concurrency()) : null;
            List<Future<Work.UserProfile>> futures = new ArrayList<>(r);
            for (int id = 1; id <= r; id++) {
                if (inFlight != null) inFlight.acquire();
                int uid = id;
                futures.add(requests.submit(() -> {
                    try {
                        return builder.build(uid, fetches);
                    } finally {
                        if (inFlight != null) inFlight.release();
                    }
                }));
            }
            List<Work.UserProfile> profiles = new ArrayList<>(r);
            for (Future<Work.UserProfile> fu : futures) profiles.add(fu.get());
            return () -> Work.fanoutResult(profiles, poolEcho, fetches);
        };
    }

    /** Seed 000's UserProfileBuilderImpl: fetch the user, then submit the three fetches and get() them. */
    static Work.UserProfile buildProfile(int id, ExecutorService subs, Work.FanoutParams f, Work.Fetches fetches)
            throws Exception {
        var user = Work.fetchUser(id, f.userMs(), fetches);
        var orders = subs.submit(() -> Work.fetchOrders(f.ordersMs(), fetches));
        var prefs = subs.submit(() -> Work.fetchPreferences(f.prefsMs(), fetches));
        var notifs = subs.submit(() -> Work.fetchNotifications(f.notificationsMs(), fetches));
        return new Work.UserProfile(user, orders.get(), prefs.get(), notifs.get());
    }

    // ---------------------------------------------------------------- sleep-tasks (seed 001)

    static Work.Iteration sleepTasks(ExecutorService exec, Work.SleepTasksParams p, Integer poolEcho) {
        return (index, start, out) -> {
            Work.Sleeps finished = new Work.Sleeps(); // each task adds itself and its timed sleep once it is done
            List<Future<Long>> futures = new ArrayList<>(p.tasks());
            for (int i = 0; i < p.tasks(); i++) {
                Object lock = Pitfall.lockForTask(); // null unless the synchronized variant runs
                futures.add(exec.submit(() -> {
                    long t0 = System.nanoTime();
                    Pitfall.sleep(p.sleepMs(), lock); // Thread.sleep, unless a pitfall variant says otherwise
                    long slept = System.nanoTime() - t0;
                    long s = p.cpu();
                    finished.add(slept);
                    return s;
                }));
            }
            long sum = 0;
            for (Future<Long> fu : futures) sum += fu.get();
            long cpuSum = sum;
            return () -> Work.sleepTasksResult(finished, cpuSum, poolEcho); // built after the clock stops
        };
    }

    // ---------------------------------------------------------------- spawn-idle (seed 004)

    static Work.Iteration spawnIdle(Thread.Builder builder, String kind, int tasks, long holdMs) {
        return (index, start, out) -> {
            AtomicInteger started = new AtomicInteger();
            AtomicInteger completed = new AtomicInteger();
            CountDownLatch allStarted = new CountDownLatch(1);
            if (tasks == 0) allStarted.countDown();
            Runnable task = () -> {
                if (started.incrementAndGet() == tasks) allStarted.countDown();
                Work.sleep(holdMs);
                completed.incrementAndGet();
            };
            Thread[] threads = new Thread[tasks];
            for (int i = 0; i < tasks; i++) threads[i] = start(builder, task, kind, i, tasks);
            allStarted.await();
            out.mark("all-spawned", index, System.nanoTime() - start);
            for (Thread t : threads) t.join();
            return Work.ready(Work.spawnIdleResult(completed.get()));
        };
    }

    /** Starts a thread; turns "unable to create native thread" into a clear failure (exit 1). */
    static Thread start(Thread.Builder builder, Runnable task, String kind, int i, int total) {
        return start(builder.unstarted(task), kind, i, total);
    }

    /** Starts an unstarted thread, as {@link #start(Thread.Builder, Runnable, String, int, int)}. */
    static Thread start(Thread thread, String kind, int i, int total) {
        try {
            thread.start();
            return thread;
        } catch (OutOfMemoryError e) {
            throw new Work.Failure("could not start " + kind + " thread #" + (i + 1) + " of " + total
                    + " (" + e.getMessage() + "); the OS refuses more threads"
                    + " (see /proc/sys/kernel/pid_max, /proc/sys/kernel/threads-max, ulimit -u)");
        }
    }

    // ---------------------------------------------------------------- channel (seed 002)

    private static final Object END = new Object(); // "close": the producer's last element

    /** Queue implementation: ArrayBlockingQueue unless -Dconcbench.queue=linked (used only to compare them). */
    static IntFunction<BlockingQueue<Object>> queueFactory() {
        return "linked".equals(System.getProperty("concbench.queue"))
                ? LinkedBlockingQueue::new : ArrayBlockingQueue::new;
    }

    static Work.Iteration channel(Thread.Builder builder, String kind, int workers, int events, int queue,
                                  String etype, int esize) throws Params.BadInput {
        boolean isInt = etype.equals("int");
        switch (etype) {
            case "int", "str", "str_ptr", "str_clone" -> {}
            default -> throw new Params.BadInput("--etype=" + etype + ": expected int | str | str_ptr | str_clone");
        }
        String shared = "x".repeat(esize);                              // str_ptr: one shared string
        byte[] prototype = shared.getBytes(StandardCharsets.ISO_8859_1); // str_clone: copied per event
        IntFunction<BlockingQueue<Object>> newQueue = queueFactory();
        return (index, start, out) -> {
            long[] counts = new long[workers];
            long[] sums = new long[workers];
            long[] sames = new long[workers];
            Thread[] threads = new Thread[2 * workers];
            for (int w = 0; w < workers; w++) {
                BlockingQueue<Object> q = newQueue.apply(queue);
                int slot = w;
                Runnable consumer = isInt ? () -> {
                    long n = 0, s = 0;
                    try {
                        for (Object e; (e = q.take()) != END; ) { n++; s += (Integer) e; }
                    } catch (InterruptedException ie) { throw new RuntimeException(ie); }
                    counts[slot] = n; sums[slot] = s;
                } : () -> {
                    long n = 0, s = 0, same = 0;
                    String prev = null; // kept alive until the next event arrives
                    try {
                        for (Object e; (e = q.take()) != END; ) {
                            String str = (String) e;
                            n++;
                            s += str.length(); // ASCII: chars = bytes
                            if (str == prev) same++; // identity, not equals
                            prev = str;
                        }
                    } catch (InterruptedException ie) { throw new RuntimeException(ie); }
                    counts[slot] = n; sums[slot] = s; sames[slot] = same;
                };
                Runnable producer = switch (etype) {
                    case "int" -> () -> { try { for (int i = 0; i < events; i++) q.put(i); q.put(END); } catch (InterruptedException ie) { throw new RuntimeException(ie); } };
                    case "str" -> () -> { try { for (int i = 0; i < events; i++) q.put(newString(esize)); q.put(END); } catch (InterruptedException ie) { throw new RuntimeException(ie); } };
                    case "str_ptr" -> () -> { try { for (int i = 0; i < events; i++) q.put(shared); q.put(END); } catch (InterruptedException ie) { throw new RuntimeException(ie); } };
                    default -> () -> { try { for (int i = 0; i < events; i++) q.put(new String(prototype, StandardCharsets.ISO_8859_1)); q.put(END); } catch (InterruptedException ie) { throw new RuntimeException(ie); } };
                };
                threads[2 * w] = start(builder, consumer, kind, 2 * w, 2 * workers);
                threads[2 * w + 1] = start(builder, producer, kind, 2 * w + 1, 2 * workers);
            }
            for (Thread t : threads) t.join();
            long n = 0, s = 0, same = 0;
            long min = workers == 0 ? 0 : Long.MAX_VALUE, max = 0;
            for (int w = 0; w < workers; w++) {
                n += counts[w]; s += sums[w]; same += sames[w];
                min = Math.min(min, counts[w]); max = Math.max(max, counts[w]);
            }
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("events", n);
            r.put(isInt ? "value_sum" : "bytes", s);
            r.put("min_events", min);
            r.put("max_events", max);
            if (!isInt) r.put("same_as_prev", same);
            return Work.ready(r);
        };
    }

    /**
     * str: a new string of size bytes per event. "x".repeat(n) returns "x" itself (the shared literal) for
     * n = 1 and the shared "" for n = 0, so those sizes are built with the String constructor instead.
     */
    static String newString(int size) {
        return size >= 2 ? "x".repeat(size) : new String(X, 0, size);
    }

    private static final char[] X = {'x'};
}
