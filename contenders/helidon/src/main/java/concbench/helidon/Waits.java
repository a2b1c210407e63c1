package concbench.helidon;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The proof of the in-process waits (docs/contract.md, "Proof of the waits"): every base, detail
 * and extra wait, timed on System.nanoTime around its Thread.sleep, is counted under its kind and
 * the shortest of each kind kept; GET /waits answers the totals since start as JSON. A LongAdder
 * and a LongAccumulator(min) per kind: striped cells, so virtual threads finishing their waits
 * together do not contend on one word.
 */
final class Waits {
    enum Kind { BASE, DETAIL, EXTRA }

    private final LongAdder[] counts = new LongAdder[Kind.values().length];
    private final LongAccumulator[] shortestNs = new LongAccumulator[Kind.values().length];

    Waits() {
        for (int i = 0; i < counts.length; i++) {
            counts[i] = new LongAdder();
            shortestNs[i] = new LongAccumulator(Math::min, Long.MAX_VALUE);
        }
    }

    /** One wait of {@code kind} that took {@code ns}, counted once it is over. */
    void add(Kind kind, long ns) {
        shortestNs[kind.ordinal()].accumulate(ns);
        counts[kind.ordinal()].increment();
    }

    /** {"base":{"count":n,"min_us":m},...}; min_us null before the first wait of that kind. */
    byte[] json() {
        StringBuilder b = new StringBuilder(128).append('{');
        for (Kind kind : Kind.values()) {
            long min = shortestNs[kind.ordinal()].get();
            // Locale.ROOT, not the default locale's lower case: in Turkish "DETAIL" becomes "detaıl"
            b.append(kind.ordinal() == 0 ? "" : ",")
                    .append('"').append(kind.name().toLowerCase(Locale.ROOT)).append("\":{\"count\":")
                    .append(counts[kind.ordinal()].sum())
                    .append(",\"min_us\":").append(min == Long.MAX_VALUE ? "null" : String.valueOf(min / 1000))
                    .append('}');
        }
        return b.append('}').toString().getBytes(StandardCharsets.US_ASCII);
    }
}
