package concbench;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import jdk.jfr.consumer.RecordingStream;

/**
 * JFR's jdk.VirtualThreadPinned events (a virtual thread that blocked while pinned to its carrier),
 * counted in-process with a RecordingStream at threshold 0. Only the pitfall variants turn it on
 * (-Dconcbench.pinnedEvents=true): a JFR recording, even of one event type, is not free.
 * Events arrive after JFR's next flush (about once a second); {@link #settle} waits for two flushes
 * after an iteration, outside the timed region, so each iteration's count is complete.
 */
final class PinnedEvents implements AutoCloseable {
    static final boolean ENABLED = Boolean.getBoolean("concbench.pinnedEvents");

    private final RecordingStream stream = new RecordingStream();
    private final AtomicLong pinned = new AtomicLong();
    private final AtomicLong pinnedNanos = new AtomicLong();
    private final AtomicLong flushes = new AtomicLong();

    PinnedEvents() {
        stream.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO);
        stream.onEvent("jdk.VirtualThreadPinned", e -> {
            pinned.incrementAndGet();
            pinnedNanos.addAndGet(e.getDuration().toNanos());
        });
        stream.onFlush(flushes::incrementAndGet);
        stream.setMaxAge(Duration.ofSeconds(10));
        stream.startAsync();
    }

    /** Waits (at most 5 s) until JFR has flushed twice since the call. */
    void settle() throws InterruptedException {
        long target = flushes.get() + 2, deadline = System.nanoTime() + 5_000_000_000L;
        while (flushes.get() < target && System.nanoTime() < deadline) Thread.sleep(20);
    }

    long count() { return pinned.get(); }

    long millis() { return pinnedNanos.get() / 1_000_000; }

    @Override public void close() { stream.close(); }
}
