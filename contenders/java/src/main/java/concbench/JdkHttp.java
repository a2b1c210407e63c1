package concbench;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * The JDK's own HTTP server (com.sun.net.httpserver, module jdk.httpserver) as a {@link ServerLifecycle.Server}:
 * one dispatcher thread accepts connections and selects the readable ones; each exchange (reading the
 * request, running the handler) runs on the executor given here. No filters, no logging.
 *
 * <p>Tuning lives in the manifest's run command as system properties (they are read once, when the
 * server classes load): sun.net.httpserver.nodelay=true and sun.net.httpserver.maxIdleConnections.
 */
final class JdkHttp implements ServerLifecycle.Server {
    private final InetAddress bind;
    private final int port;
    private final ExecutorService executor;
    private final HttpHandler handler;
    private final Map<String, Object> runtime;
    private volatile HttpServer server;

    /** {@code runtime}: the ready line's description of the executor (and client pool). */
    JdkHttp(InetAddress bind, int port, ExecutorService executor, HttpHandler handler, Map<String, Object> runtime) {
        this.bind = bind;
        this.port = port;
        this.executor = executor;
        this.handler = handler;
        this.runtime = new LinkedHashMap<>(runtime);
        this.runtime.put("server", "com.sun.net.httpserver.HttpServer");
    }

    @Override
    public int start() throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress(bind, port), ServerLifecycle.BACKLOG);
        s.createContext("/", handler); // one context: the handler matches exact paths and answers 404 itself
        s.setExecutor(executor);
        s.start();
        server = s;
        return s.getAddress().getPort();
    }

    @Override
    public void stop() {
        HttpServer s = server;
        if (s != null) s.stop(0); // closes the listener and every connection; exchanges are not awaited
        executor.shutdownNow();
    }

    @Override
    public Map<String, Object> runtime() { return runtime; }

    // ---------------------------------------------------------------- responses

    static final byte[] EMPTY = new byte[0];

    /** Status, Content-Type, Content-Length (never chunked) and the body; closes the exchange. */
    static void send(HttpExchange ex, int status, String contentType, byte[] body) throws IOException {
        try (ex) {
            if (contentType != null) ex.getResponseHeaders().set("Content-Type", contentType);
            // The server closes the connection after this response when the request said Connection: close,
            // but does not say so in the response; clients such as wrk then reuse the connection and
            // fail. Echo it (RFC 9112 9.6).
            if (asksClose(ex)) ex.getResponseHeaders().set("Connection", "close");
            // length -1 means "no body" (Content-length: 0); 0 would mean chunked
            ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
            if (body.length > 0) {
                OutputStream os = ex.getResponseBody();
                os.write(body);
            }
        }
    }

    private static boolean asksClose(HttpExchange ex) {
        for (String v : ex.getRequestHeaders().getOrDefault("Connection", List.of()))
            for (String token : v.split(","))
                if (token.trim().equalsIgnoreCase("close")) return true;
        return false;
    }

    /** 404 for unknown paths, 405 for other methods than GET on a known one. */
    static void reject(HttpExchange ex, boolean knownPath) throws IOException {
        if (knownPath) ex.getResponseHeaders().set("Allow", "GET");
        send(ex, knownPath ? 405 : 404, null, EMPTY);
    }
}
