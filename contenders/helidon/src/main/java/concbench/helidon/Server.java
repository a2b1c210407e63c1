package concbench.helidon;

import io.helidon.http.HeaderValues;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.http.HttpRouting;

/**
 * The Helidon SE WebServer as deployed: Helidon's defaults (its performance guide calls the server
 * "in large part self tuning": virtual threads, nothing to size) except where noted below. Every
 * value is read back from the running server for the ready line (ReadyLine).
 */
final class Server {
    /**
     * listen() backlog: Helidon's default is 1024, its tuning guide says it "depends on the workload
     * and kernel version". 4096 is what every server here gets (nginx's listen backlog, Tomcat's
     * accept-count, Netty's somaxconn: net.core.somaxconn is 4096), so thousands of connections
     * opened at once are not dropped from a full accept queue.
     */
    static final int BACKLOG = 4096;

    private Server() {
    }

    /**
     * Builds and starts the server on args.bind():args.port(); returns once it accepts.
     * {@code waits}: downstream=inproc's proof of its waits, served at GET /waits (null otherwise:
     * /waits is then a path no route serves, 404).
     */
    static WebServer start(ServerArgs args, Downstream downstream, Waits waits) {
        return WebServer.builder()
                .host(args.bind()) // the --bind address only (an IPv4 literal), never 0.0.0.0
                .port(args.port())
                .backlog(BACKLOG)
                // Helidon's own JVM shutdown hook stays off: Main's SIGTERM handler stops the server
                // and exits 0 (the JVM's TERM handling would exit 143)
                .shutdownHook(false)
                .routing(routing -> routes(routing, args, downstream, waits))
                .build()
                .start();
    }

    private static void routes(HttpRouting.Builder routing, ServerArgs args, Downstream downstream, Waits waits) {
        if (args.workload().equals("http-hello")) {
            routing.get("/hello", new Hello());
            return;
        }
        routing.get("/user/{id}", new Aggregate(args, downstream));
        if (waits != null) {
            routing.get("/waits", (req, res) -> {
                res.header(HeaderValues.CONTENT_TYPE_JSON);
                res.send(waits.json());
            });
        }
    }
}
