package concbench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * http-aggregate's downstream calls (base, detail, extra): an in-process Thread.sleep, or a real
 * GET /delay/&lt;ms&gt; to the harness's latency backend with the JDK's java.net.http.HttpClient.
 */
abstract sealed class Downstream {
    /** The backend answered something else than 200: the request gets a 502. */
    static final class BadGateway extends Exception {
        BadGateway(String msg) { super(msg, null, false, false); }
    }

    /** The in-process waits made (downstream=inproc), served at GET /waits; stays at zero with http. */
    final Waits waits = new Waits();

    /** One call of {@code kind}, blocking the calling thread for its wait (Thread.sleep or HttpClient.send). */
    abstract void call(Waits.Kind kind, long ms) throws Exception;

    /** One call of {@code kind} that completes a future; whatever follows it runs on {@code pool}. */
    abstract CompletableFuture<Void> callAsync(Waits.Kind kind, long ms, Executor pool);

    /** Ready-line keys describing the downstream (and the client's connection pool). */
    abstract Map<String, Object> runtime();

    static Downstream of(HttpAggregate.Config c) {
        return of(c, false);
    }

    /** {@code timer}: the inproc waits of callAsync are CompletableFuture.delayedExecutor timers (java-completable-async). */
    static Downstream of(HttpAggregate.Config c, boolean timer) {
        return c.downstream().equals("http")
                ? new Http(c.backendHost(), c.backendPort(), c.baseMs(), c.detailMs(), c.extraMs())
                : new Inproc(timer);
    }

    /**
     * Thread.sleep on the thread that runs the call; callAsync with a timer: no thread held while waiting.
     * Every wait is timed and counted under its kind once it is over ({@link Waits}: the proof of the waits).
     */
    static final class Inproc extends Downstream {
        private final boolean timer;

        Inproc(boolean timer) { this.timer = timer; }

        @Override void call(Waits.Kind kind, long ms) throws InterruptedException {
            long t0 = System.nanoTime();
            Thread.sleep(ms);
            waits.add(kind, System.nanoTime() - t0);
        }

        @Override CompletableFuture<Void> callAsync(Waits.Kind kind, long ms, Executor pool) {
            if (timer) { // the delay scheduler hands the call to the pool after ms; no pool thread waits
                long armed = System.nanoTime(); // timed from arming the timer to the call running on the pool
                return CompletableFuture.runAsync(() -> waits.add(kind, System.nanoTime() - armed),
                        CompletableFuture.delayedExecutor(ms, TimeUnit.MILLISECONDS, pool));
            }
            // the sleep holds a pool thread, as supplyAsync with a blocking call does (see java-completable's notes)
            return CompletableFuture.runAsync(() -> waits.add(kind, Work.timedSleep(ms)), pool);
        }

        @Override Map<String, Object> runtime() {
            return Map.of("downstream", timer ? "inproc: CompletableFuture.delayedExecutor(ms, MILLISECONDS, pool)" : "inproc: Thread.sleep");
        }
    }

    /**
     * One HttpClient shared by all requests: HTTP/1.1 forced (the default, HTTP_2, sends an h2c upgrade
     * on http:// URIs), no proxy, the client's default executor (a cached thread pool it creates for
     * its own async work; one selector thread does the I/O). Its connection pool is unbounded
     * (jdk.httpclient.connectionPoolSize=0 by default): a connection per concurrent call, kept alive
     * for reuse for 30 s (jdk.httpclient.keepalive.timeout).
     */
    static final class Http extends Downstream {
        private final HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .proxy(HttpClient.Builder.NO_PROXY)
                .build();
        private final Map<Long, HttpRequest> requests = new HashMap<>(); // read-only after construction

        Http(String backendHost, int backendPort, long... delays) {
            for (long ms : delays)
                requests.computeIfAbsent(ms, d -> HttpRequest.newBuilder(
                        URI.create("http://" + backendHost + ":" + backendPort + "/delay/" + d)).GET().build());
        }

        @Override void call(Waits.Kind kind, long ms) throws Exception {
            check(client.send(requests.get(ms), HttpResponse.BodyHandlers.ofByteArray()));
        }

        @Override CompletableFuture<Void> callAsync(Waits.Kind kind, long ms, Executor pool) {
            return client.sendAsync(requests.get(ms), HttpResponse.BodyHandlers.ofByteArray())
                    .thenAcceptAsync(r -> {
                        try {
                            check(r);
                        } catch (BadGateway e) {
                            throw new CompletionException(e);
                        }
                    }, pool);
        }

        private static void check(HttpResponse<byte[]> r) throws BadGateway {
            if (r.statusCode() != 200) throw new BadGateway("backend answered " + r.statusCode());
        }

        @Override Map<String, Object> runtime() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("downstream", "http: java.net.http.HttpClient, HTTP/1.1");
            m.put("client_pool", "unbounded (JDK default, jdk.httpclient.connectionPoolSize=0)");
            m.put("client_executor", "HttpClient default (cached thread pool)");
            return m;
        }
    }
}
