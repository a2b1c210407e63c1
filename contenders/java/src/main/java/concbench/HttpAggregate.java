package concbench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * http-aggregate (seed 003): GET /user/{id} -> the user as JSON, after the base call, then the detail
 * and extra calls concurrently. The blocking styles differ only in their {@link Fork}; java-completable
 * uses {@link #completable}.
 */
final class HttpAggregate {
    private HttpAggregate() {}

    static final String CONTENT_TYPE = "application/json"; // JSON is UTF-8 (RFC 8259): no charset parameter
    private static final String PREFIX = "/user/";
    /** GET /waits: the in-process waits made so far ({@link Waits}), beside /user/{id}. */
    static final String WAITS = "/waits";

    record Config(int port, InetAddress bind, long baseMs, long detailMs, long extraMs, String downstream,
                  String backendHost, int backendPort, int poolSize) {
        static Config of(Params p) throws Params.BadInput {
            String downstream = p.choice("downstream", "inproc", "http");
            String backendHost = p.ipv4("backend-host").getHostAddress();
            int backendPort = p.intBetween("backend-port", downstream.equals("http") ? 1 : 0, 65535);
            return new Config(p.intBetween("port", 0, 65535), p.ipv4("bind"), p.longAtLeast("base-ms", 0),
                    p.longAtLeast("detail-ms", 0), p.longAtLeast("extra-ms", 0), downstream, backendHost, backendPort,
                    p.intAtLeast("pool-size", 1));
        }
    }

    /** Runs two calls concurrently and returns once both are done (throws if one failed). */
    interface Fork {
        void both(Callable<Void> a, Callable<Void> b) throws Exception;
    }

    /** Fork by submitting both calls to an executor and get()ting them (java-platform, java-virtual). */
    static Fork submitTo(ExecutorService executor) {
        return (a, b) -> {
            Future<Void> fa = executor.submit(a), fb = executor.submit(b);
            fa.get();
            fb.get();
        };
    }

    /** Thread-per-request: base on the request's thread, then detail and extra through {@code fork}. */
    static HttpHandler blocking(Config c, Downstream d, Fork fork) {
        return ex -> {
            if (waits(ex, d)) return;
            long id = userId(ex);
            if (id < 0) {
                JdkHttp.reject(ex, id == -2);
                return;
            }
            byte[] body;
            try {
                d.call(Waits.Kind.BASE, c.baseMs());
                fork.both(() -> { d.call(Waits.Kind.DETAIL, c.detailMs()); return null; },
                        () -> { d.call(Waits.Kind.EXTRA, c.extraMs()); return null; });
                body = json(id);
            } catch (Exception e) { // a downstream call failed (status, I/O) or was interrupted
                if (e instanceof InterruptedException) Thread.currentThread().interrupt();
                JdkHttp.send(ex, 502, null, JdkHttp.EMPTY);
                return;
            }
            JdkHttp.send(ex, 200, CONTENT_TYPE, body);
        };
    }

    /**
     * The thread-per-connection server's route (java-virtual, java-structured): the same steps as
     * {@link #blocking}, on the connection's own thread.
     */
    static ThreadPerConnServer.Route perConnection(Config c, Downstream d, Fork fork) {
        return (method, path) -> {
            if (WAITS.equals(path))
                return "GET".equals(method) ? new ThreadPerConnServer.Response(200, CONTENT_TYPE, d.waits.json())
                        : ThreadPerConnServer.Response.empty(405);
            long id = userId(method, path);
            if (id < 0) return ThreadPerConnServer.Response.empty(id == -2 ? 405 : 404);
            try {
                d.call(Waits.Kind.BASE, c.baseMs());
                fork.both(() -> { d.call(Waits.Kind.DETAIL, c.detailMs()); return null; },
                        () -> { d.call(Waits.Kind.EXTRA, c.extraMs()); return null; });
                return new ThreadPerConnServer.Response(200, CONTENT_TYPE, json(id));
            } catch (Exception e) { // a downstream call failed (status, I/O) or was interrupted
                if (e instanceof InterruptedException) Thread.currentThread().interrupt();
                return ThreadPerConnServer.Response.empty(502);
            }
        };
    }

    /**
     * java-completable: the handler only chains futures and returns; the response is written by the
     * stage that completes last, on a {@code pool} thread (an exchange may be finished from any thread).
     */
    static HttpHandler completable(Config c, Downstream d, ExecutorService pool) {
        return ex -> {
            if (waits(ex, d)) return;
            long id = userId(ex);
            if (id < 0) {
                JdkHttp.reject(ex, id == -2);
                return;
            }
            d.callAsync(Waits.Kind.BASE, c.baseMs(), pool)
                    .thenCompose(v -> CompletableFuture.allOf(d.callAsync(Waits.Kind.DETAIL, c.detailMs(), pool),
                            d.callAsync(Waits.Kind.EXTRA, c.extraMs(), pool)))
                    .whenComplete((v, err) -> {
                        try {
                            if (err == null) JdkHttp.send(ex, 200, CONTENT_TYPE, json(id));
                            else JdkHttp.send(ex, 502, null, JdkHttp.EMPTY);
                        } catch (IOException | RuntimeException e) {
                            ex.close(); // the client went away
                        }
                    });
        };
    }

    /** GET /waits on the JDK HttpServer: answered here (405 for other methods), true; false for any other path. */
    static boolean waits(HttpExchange ex, Downstream d) throws IOException {
        if (!WAITS.equals(ex.getRequestURI().getRawPath())) return false;
        if ("GET".equals(ex.getRequestMethod())) JdkHttp.send(ex, 200, CONTENT_TYPE, d.waits.json());
        else JdkHttp.reject(ex, true);
        return true;
    }

    /** 2^53 - 1: the largest user id the contract serves (I-JSON's exact integers); larger ones are 404. */
    static final long MAX_ID = (1L << 53) - 1;

    /**
     * The id of GET /user/{id} (digits only, 1..{@link #MAX_ID}); -1: a path no route serves
     * (also a bad id: the contract's 404); -2: known path, not GET.
     */
    static long userId(HttpExchange ex) {
        return userId(ex.getRequestMethod(), ex.getRequestURI().getRawPath());
    }

    /** As {@link #userId(HttpExchange)}, from the method and the raw path. */
    static long userId(String method, String path) {
        if (path == null || !path.startsWith(PREFIX)) return -1;
        int n = path.length() - PREFIX.length();
        if (n < 1 || n > 16) return -1; // MAX_ID has 16 digits: no overflow below 17
        long id = 0;
        for (int i = PREFIX.length(); i < path.length(); i++) {
            char ch = path.charAt(i);
            if (ch < '0' || ch > '9') return -1;
            id = id * 10 + (ch - '0');
        }
        if (id < 1 || id > MAX_ID) return -1;
        return "GET".equals(method) ? id : -2;
    }

    /** Hand-written JSON (the only variable part is a number), encoded as UTF-8. */
    static byte[] json(long id) {
        return ("{\"id\":" + id + ",\"name\":\"User-" + id
                + "\",\"age\":25,\"sex\":1,\"phone\":\"13800138000\",\"level\":\"VIP会员\"}")
                .getBytes(StandardCharsets.UTF_8);
    }
}
