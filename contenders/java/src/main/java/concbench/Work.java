package concbench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Shared pieces: the iteration interface, the seed-000 domain model, sleep and the cpu loop. */
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

    // Values built after the (style's own) sleep, shared by all styles.
    static User user(int id) { return new User(id, "User-" + id); }
    static List<Order> orders() { return List.of(new Order("O1", "Item A"), new Order("O2", "Item B")); }
    static Preferences preferences() { return new Preferences(true, "en-US"); }
    static List<Notification> notifications() { return List.of(new Notification("N1", "Welcome"), new Notification("N2", "Discount")); }

    // Blocking fetches (Thread.sleep on the calling thread), as in seed 000's UserServiceImpl.
    static User fetchUser(int id, long ms) { sleep(ms); return user(id); }
    static List<Order> fetchOrders(long ms) { sleep(ms); return orders(); }
    static Preferences fetchPreferences(long ms) { sleep(ms); return preferences(); }
    static List<Notification> fetchNotifications(long ms) { sleep(ms); return notifications(); }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    /** s = sum_{i<k} i % 2, a real loop. */
    static long cpu(long k) {
        long s = 0;
        for (long i = 0; i < k; i++) s += i % 2;
        return s;
    }

    /** fanout result, computed from the built profiles. */
    static Map<String, Object> fanoutResult(Iterable<UserProfile> profiles, Integer poolSize) {
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
        return r;
    }

    /** {@code tasks} is the number of tasks that finished, counted by the tasks themselves. */
    static Map<String, Object> sleepTasksResult(long tasks, long cpuSum, Integer poolSize) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tasks", tasks);
        r.put("cpu_sum", cpuSum);
        r.put("pool_size", poolSize);
        return r;
    }

    static Map<String, Object> spawnIdleResult(long completed) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tasks", completed);
        return r;
    }
}
