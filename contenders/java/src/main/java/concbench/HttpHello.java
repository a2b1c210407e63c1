package concbench;

import com.sun.net.httpserver.HttpHandler;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;

/** http-hello (seed 004): GET /hello -> 200 text/plain, 199 x 'x' and a newline, built once. */
final class HttpHello {
    private HttpHello() {}

    static final String PATH = "/hello";
    static final String CONTENT_TYPE = "text/plain";
    static final byte[] BODY = ("x".repeat(199) + "\n").getBytes(StandardCharsets.US_ASCII);

    /** http-hello's parameters: pool-size is used by the pooled styles, validated and ignored by the others. */
    record Config(int port, InetAddress bind, int poolSize) {
        static Config of(Params p) throws Params.BadInput {
            return new Config(p.intBetween("port", 0, 65535), p.ipv4("bind"), p.intAtLeast("pool-size", 1));
        }
    }

    private static final ThreadPerConnServer.Response OK = new ThreadPerConnServer.Response(200, CONTENT_TYPE, BODY);

    /** The thread-per-connection server's route: 200 for GET /hello, 405 for other methods there, else 404. */
    static ThreadPerConnServer.Route route() {
        return (method, path) -> {
            boolean known = PATH.equals(path);
            return known && "GET".equals(method) ? OK : ThreadPerConnServer.Response.empty(known ? 405 : 404);
        };
    }

    /** The JDK HttpServer handler; it never blocks beyond writing the response. */
    static HttpHandler handler() {
        return ex -> {
            boolean known = PATH.equals(ex.getRequestURI().getRawPath());
            if (known && "GET".equals(ex.getRequestMethod())) JdkHttp.send(ex, 200, CONTENT_TYPE, BODY);
            else JdkHttp.reject(ex, known);
        };
    }
}
