package concbench.spring;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;
import org.springframework.stereotype.Component;

/**
 * http-aggregate's proof of its in-process waits (docs/contract.md, "Proof of the waits";
 * harness/concbench/server/waits_proof.py), served at GET /waits beside /user/{id}. With
 * downstream=inproc every base, detail and extra wait is counted under its kind with how long it
 * took by System.nanoTime: read right before Thread.sleep and right after it returns (MVC), or
 * from arming Mono.delay's timer (its subscription) to its continuation running (WebFlux). So a
 * request that skipped a wait, merged two into one or waited less than asked shows in the counts
 * and the shortest wait, which the latency floor alone would not. Per kind a LongAdder and a
 * LongAccumulator(Math::min), striped as the Java contenders' sleep proofs, so the waits that end
 * together do not contend on one word; the add comes after the wait, never inside it. With
 * downstream=http nothing is counted (the latency backend counts those calls): /waits stays at zero.
 */
@Component
@ConditionalOnAggregate
public class Waits {
    /** The three downstream calls of a request. */
    public enum Kind { BASE, DETAIL, EXTRA }

    /** GET /waits: totals since start, by kind. */
    public record Report(Tally base, Tally detail, Tally extra) {
    }

    /** Waits made and the shortest, in whole µs (null before the first). */
    public record Tally(long count, @JsonProperty("min_us") Long minUs) {
    }

    private final LongAdder[] counts = {new LongAdder(), new LongAdder(), new LongAdder()};
    private final LongAccumulator[] minNs = {min(), min(), min()};

    private static LongAccumulator min() {
        return new LongAccumulator(Math::min, Long.MAX_VALUE);
    }

    /** One wait of {@code kind} that took {@code ns}. */
    public void add(Kind kind, long ns) {
        counts[kind.ordinal()].increment();
        minNs[kind.ordinal()].accumulate(ns);
    }

    public Report report() {
        return new Report(tally(Kind.BASE), tally(Kind.DETAIL), tally(Kind.EXTRA));
    }

    private Tally tally(Kind kind) {
        long count = counts[kind.ordinal()].sum();
        long min = minNs[kind.ordinal()].get();
        return new Tally(count, min == Long.MAX_VALUE ? null : min / 1000);
    }
}
