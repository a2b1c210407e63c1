package concbench;

import java.nio.charset.StandardCharsets;

/**
 * http-aggregate's proof of its in-process waits (docs/contract.md, "Proof of the waits";
 * harness/concbench/server/waits_proof.py), served at GET /waits. With downstream=inproc every
 * base, detail and extra wait is counted under its kind with how long it took by System.nanoTime:
 * read right before Thread.sleep and right after it returns, or for a timer from right before it is
 * armed to its continuation running. So a request that skipped a wait, or merged two into one, or
 * waited less than asked shows in the counts and the shortest wait, which the latency floor alone
 * would not. Each kind is a {@link Work.Sleeps}, as the batch workloads' sleep proofs: a LongAdder
 * and a LongAccumulator(Math::min), striped, so the waits that end together do not contend on one
 * word; the add comes after the wait, never inside it. With downstream=http nothing is counted
 * (the latency backend counts those calls), so /waits stays at zero.
 */
final class Waits {
    /** The three downstream calls of a request. */
    enum Kind { BASE, DETAIL, EXTRA }

    private static final String[] NAMES = {"base", "detail", "extra"}; // Kind order

    private final Work.Sleeps[] byKind = {new Work.Sleeps(), new Work.Sleeps(), new Work.Sleeps()};

    /** One wait of {@code kind} that took {@code ns}. */
    void add(Kind kind, long ns) {
        byKind[kind.ordinal()].add(ns);
    }

    /** {"base":{"count":n,"min_us":m},"detail":{…},"extra":{…}}: totals since start, min_us null before the first. */
    byte[] json() {
        StringBuilder sb = new StringBuilder(128).append('{');
        for (Kind k : Kind.values()) {
            Work.Sleeps s = byKind[k.ordinal()];
            long count = s.count();
            Long minNs = s.minNs();
            if (k.ordinal() > 0) sb.append(',');
            sb.append('"').append(NAMES[k.ordinal()]).append("\":{\"count\":").append(count)
                    .append(",\"min_us\":").append(minNs == null ? "null" : Long.toString(minNs / 1000)).append('}');
        }
        return sb.append('}').toString().getBytes(StandardCharsets.US_ASCII);
    }
}
