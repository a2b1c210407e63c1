package concbench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/** Shared pieces: the iteration interface, the seed-000 domain model, sleep, the sleep proofs and the cpu chain. */
final class Work {
    private Work() {}

    /** One iteration of a workload. {@code start} is System.nanoTime() at its start (for marks). */
    interface Iteration {
        /**
         * Untimed, before the clock starts (and before the iteration's GC / JIT baselines): set-up that
         * the workload's contract puts outside the timed region (ring spawns its tasks here). Default: none.
         */
        default void prepare(int index) throws Exception {}

        /** The timed part; what it returns builds the result after the clock stops. */
        Outcome run(int index, long start, Json out) throws Exception;
    }

    /** The result of an iteration, computed outside the timed region (fanout walks every profile). */
    interface Outcome {
        Map<String, Object> result();
    }

    /** An outcome whose result is already at hand (a few counters). */
    static Outcome ready(Map<String, Object> result) {
        return () -> result;
    }

    /** A failure with a clear message for stderr (exit 1). */
    static final class Failure extends RuntimeException {
        Failure(String msg) { super(msg); }
    }

    // ---- seed 000 domain model ----
    record User(int id, String name) {}
    record Order(String id, String item) {}
    record Preferences(Boolean darkMode, String language) {}
    record Notification(String id, String message) {}
    record UserProfile(User user, List<Order> orders, Preferences preferences, List<Notification> notifications) {}

    /** Fanout timings, in ms. */
    record FanoutParams(int requests, int concurrency, long userMs, long ordersMs, long prefsMs, long notificationsMs, int poolSize) {
        static FanoutParams of(Params p) throws Params.BadInput {
            return new FanoutParams(p.intAtLeast("requests", 0), p.intAtLeast("concurrency", 0),
                    p.longAtLeast("user-ms", 0), p.longAtLeast("orders-ms", 0), p.longAtLeast("prefs-ms", 0),
                    p.longAtLeast("notifications-ms", 0), p.intAtLeast("pool-size", 1));
        }
    }

    /** sleep-tasks' parameters; the seed is the chain's start as a 32-bit pattern (0 <= cpu-seed < 2^32). */
    record SleepTasksParams(int tasks, long sleepMs, long cpuIters, int cpuSeed, int poolSize) {
        static SleepTasksParams of(Params p) throws Params.BadInput {
            long seed = p.longAtLeast("cpu-seed", 0);
            if (seed > 0xFFFF_FFFFL) throw new Params.BadInput("--cpu-seed=" + seed + ": must be < 2^32 (4294967296)");
            return new SleepTasksParams(p.intAtLeast("tasks", 0), p.longAtLeast("sleep-ms", 0),
                    p.longAtLeast("cpu-iters", 0), (int) seed, p.intAtLeast("pool-size", 1));
        }

        /** One task's CPU part. */
        long cpu() { return Work.cpu(cpuSeed, cpuIters); }
    }

    // Values built after the (style's own) sleep, shared by all styles.
    static User user(int id) { return new User(id, "User-" + id); }
    static List<Order> orders() { return List.of(new Order("O1", "Item A"), new Order("O2", "Item B")); }
    static Preferences preferences() { return new Preferences(true, "en-US"); }
    static List<Notification> notifications() { return List.of(new Notification("N1", "Welcome"), new Notification("N2", "Discount")); }

    // Blocking fetches (Thread.sleep on the calling thread), as in seed 000's UserServiceImpl; each times
    // its own sleep and records it under its kind.
    static User fetchUser(int id, long ms, Fetches f) { f.user().add(timedSleep(ms)); return user(id); }
    static List<Order> fetchOrders(long ms, Fetches f) { f.orders().add(timedSleep(ms)); return orders(); }
    static Preferences fetchPreferences(long ms, Fetches f) { f.prefs().add(timedSleep(ms)); return preferences(); }
    static List<Notification> fetchNotifications(long ms, Fetches f) { f.notifications().add(timedSleep(ms)); return notifications(); }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    /** Thread.sleep(ms); returns how long the call took by System.nanoTime (read right before and after it). */
    static long timedSleep(long ms) {
        long t0 = System.nanoTime();
        sleep(ms);
        return System.nanoTime() - t0;
    }

    // ---- proofs that each sleep was a sleep of its own (docs/contract.md, fanout and sleep-tasks) ----

    /**
     * How many sleepers of one kind finished and the shortest sleep one of them timed around its own
     * sleep call. Each sleeper adds itself after its sleep: a LongAdder and a LongAccumulator(min),
     * striped, so the many threads that finish at about the same time do not contend on one word.
     */
    static final class Sleeps {
        private final LongAdder count = new LongAdder();
        private final LongAccumulator minNs = new LongAccumulator(Math::min, Long.MAX_VALUE);

        void add(long sleptNs) {
            count.increment();
            minNs.accumulate(sleptNs);
        }

        long count() { return count.sum(); }

        /** The shortest sleep in ns; null when nothing slept (no task, no request). */
        Long minNs() {
            long min = minNs.get();
            return min == Long.MAX_VALUE ? null : min;
        }
    }

    /** fanout's four fetch kinds, one {@link Sleeps} each; a new one per iteration. */
    record Fetches(Sleeps user, Sleeps orders, Sleeps prefs, Sleeps notifications) {
        static Fetches create() { return new Fetches(new Sleeps(), new Sleeps(), new Sleeps(), new Sleeps()); }

        /** Adds "fetched" and "slept_min_ns", each an object keyed by fetch kind. */
        void putInto(Map<String, Object> r) {
            Map<String, Object> fetched = new LinkedHashMap<>(), sleptMin = new LinkedHashMap<>();
            for (var kind : List.of(Map.entry("user", user), Map.entry("orders", orders), Map.entry("prefs", prefs),
                    Map.entry("notifications", notifications))) {
                fetched.put(kind.getKey(), kind.getValue().count());
                sleptMin.put(kind.getKey(), kind.getValue().minNs());
            }
            r.put("fetched", fetched);
            r.put("slept_min_ns", sleptMin);
        }
    }

    /**
     * sleep-tasks' CPU part: K steps of x = x * 1664525 + 1013904223, s = s + x from x = seed, s = 0, in
     * int arithmetic, which wraps mod 2^32 as the contract asks; s read as unsigned. Each step needs the one
     * before it, so the JIT cannot vectorise or fold the loop (no Blackhole or volatile needed).
     */
    static long cpu(int seed, long k) {
        int x = seed, s = 0;
        for (long i = 0; i < k; i++) {
            x = x * 1664525 + 1013904223;
            s += x;
        }
        return Integer.toUnsignedLong(s);
    }

    /** fanout result, computed from the built profiles. */
    static Map<String, Object> fanoutResult(Iterable<UserProfile> profiles, Integer poolSize, Fetches fetches) {
        long n = 0, idSum = 0, idSqSum = 0, items = 0;
        for (UserProfile p : profiles) {
            long id = p.user().id();
            n++;
            idSum += id;
            idSqSum += id * id; // long: up to R(R+1)(2R+1)/6 ~ 2.7e18 at R = 2 000 000
            items += p.orders().size() + 1 + p.notifications().size();
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("profiles", n);
        r.put("id_sum", idSum);
        r.put("id_sq_sum", idSqSum);
        r.put("items", items);
        r.put("pool_size", poolSize);
        fetches.putInto(r);
        return r;
    }

    /**
     * {@code tasks} is the number of tasks that finished, counted by the tasks themselves ({@code finished}:
     * each task adds itself with its timed sleep once its CPU part is done).
     */
    static Map<String, Object> sleepTasksResult(Sleeps finished, long cpuSum, Integer poolSize) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tasks", finished.count());
        r.put("cpu_sum", cpuSum);
        r.put("slept_min_ns", finished.minNs());
        r.put("pool_size", poolSize);
        return r;
    }

    static Map<String, Object> spawnIdleResult(long completed) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tasks", completed);
        return r;
    }
}
