package concbench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * ring's parameters, clock readings and result, shared by the thread rings (java-platform,
 * java-virtual: {@link ThreadRing}) and the CompletableFuture ring ({@link CompletableRing}).
 * Task ids run 1..size; task 1 of every ring holds the token first with count passes; each pass
 * sends the count minus one; the task that receives 0 is the ring's final holder.
 */
final class Ring {
    private Ring() {}

    static final int MAX_TASKS = 1_000_000; // rings x size (docs/contract.md)

    record Params(int rings, int size, int passes, int sampleEvery) {
        static Params of(concbench.Params p) throws concbench.Params.BadInput {
            var r = new Params(p.intAtLeast("rings", 1), p.intAtLeast("size", 2), p.intAtLeast("passes", 1),
                    p.intAtLeast("sample-every", 0)); // 0: no clock read in the passes
            if ((long) r.rings() * r.size() > MAX_TASKS)
                throw new concbench.Params.BadInput("--rings=" + r.rings() + " x --size=" + r.size() + " = "
                        + (long) r.rings() * r.size() + " tasks; at most " + MAX_TASKS);
            return r;
        }

        int tasks() { return rings * size; }
    }

    /**
     * Ring 1's clock readings: the task that receives count c with c % k == 0 (c from passes down to
     * 0; task 1 "receives" passes when it starts) writes System.nanoTime() into slot passes/k - c/k of
     * an array allocated before the clock starts. The slot follows from c, so the tasks share no
     * index; the token's hand-offs order their writes.
     */
    static final class Samples {
        private final long[] readings;
        private final int k, top;

        Samples(int passes, int sampleEvery) {
            k = sampleEvery;
            top = sampleEvery > 0 ? passes / sampleEvery : -1;
            readings = new long[top + 1]; // none at k = 0
        }

        /** Ring 1's tasks record only when there is something to record (k > 0). */
        Samples forRing(int ring) { return ring == 0 && k > 0 ? this : null; }

        void record(int count) {
            if (count % k == 0) readings[top - count / k] = System.nanoTime();
        }

        /** handoff_p50_ns, handoff_p99_ns, handoff_samples: nearest-rank percentiles of the gaps / k. */
        void putInto(Map<String, Object> r) {
            if (readings.length < 2) {
                r.put("handoff_samples", 0);
                return;
            }
            long[] gaps = new long[readings.length - 1];
            for (int i = 0; i < gaps.length; i++) gaps[i] = readings[i + 1] - readings[i];
            Arrays.sort(gaps);
            r.put("handoff_p50_ns", nearestRank(gaps, 50) / k); // whole ns, rounded down
            r.put("handoff_p99_ns", nearestRank(gaps, 99) / k);
            r.put("handoff_samples", gaps.length);
        }

        private static long nearestRank(long[] sorted, int percent) {
            int rank = (int) Math.ceil(percent / 100.0 * sorted.length); // 1-based
            return sorted[Math.max(rank, 1) - 1];
        }
    }

    /** The result: tokens received summed over every task, min / max final holder over the rings. */
    static Map<String, Object> result(long[] received, int[] holders, Samples samples, int alive) {
        long passes = 0;
        for (long n : received) passes += n;
        int min = Integer.MAX_VALUE, max = Integer.MIN_VALUE;
        for (int h : holders) {
            min = Math.min(min, h);
            max = Math.max(max, h);
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("rings", holders.length);
        r.put("passes", passes);
        r.put("holder_min", min);
        r.put("holder_max", max);
        r.put("tasks_alive", alive);
        r.put("clock_read_ns", clockReadNanos());
        samples.putInto(r);
        return r;
    }

    /** One System.nanoTime(), as ring 1's readings take it: 10 000 in a row, averaged. */
    static long clockReadNanos() {
        final int reads = 10_000;
        long sink = 0, start = System.nanoTime();
        for (int i = 0; i < reads; i++) sink += System.nanoTime();
        long total = System.nanoTime() - start;
        return sink == 0 ? 0 : Math.round(total / (double) reads);
    }
}
