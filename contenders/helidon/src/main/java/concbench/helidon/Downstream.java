package concbench.helidon;

import java.util.Map;

/**
 * http-aggregate's downstream calls (base, detail, extra), each blocking the virtual thread that
 * makes it: an in-process Thread.sleep ({@link #inproc}), or a GET /delay/&lt;ms&gt; to the
 * harness's latency backend ({@link Backend}).
 */
interface Downstream {

    /** The backend answered something else than 200, or the call failed: the request gets a 502. */
    final class BadGateway extends RuntimeException {
        BadGateway(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }

    /** One call of {@code kind} that waits {@code ms}; throws BadGateway when it failed. */
    void call(Waits.Kind kind, long ms) throws InterruptedException;

    /** The ready line's description of the downstream (and the client's connections). */
    Map<String, Object> runtime();

    /**
     * Thread.sleep on the calling virtual thread (it unmounts, its carrier runs other work), timed
     * from just before the call to just after it and counted in {@code waits} once it is over.
     */
    static Downstream inproc(Waits waits) {
        return new Downstream() {
            @Override
            public void call(Waits.Kind kind, long ms) throws InterruptedException {
                long t0 = System.nanoTime();
                Thread.sleep(ms);
                waits.add(kind, System.nanoTime() - t0);
            }

            @Override
            public Map<String, Object> runtime() {
                return Map.of("downstream", "inproc: Thread.sleep on the calling virtual thread, timed and"
                        + " counted by kind (GET /waits)");
            }
        };
    }
}
