package concbench;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import sun.misc.Signal;

/**
 * A server workload's process (docs/contract.md, "Servers"): bind ADDR:P (--bind), print the ready line,
 * serve until SIGTERM, then stop and exit 0.
 *
 * <p>SIGTERM: by default the JVM runs its shutdown hooks and exits with 143 (128 + 15). The contract
 * wants 0, so the TERM handler is replaced with {@code sun.misc.Signal.handle} (module jdk.unsupported,
 * exported to every application; the jdk.internal.misc original is not): the handler stops the server
 * and calls {@code System.exit(0)}, which still runs the shutdown hooks.
 */
final class ServerLifecycle {
    private ServerLifecycle() {}

    /**
     * listen() backlog. Linux caps it at net.core.somaxconn, which is what Go's net.Listen and Netty
     * pass; the JDK's default of 50 drops SYNs when a load generator opens thousands of connections at once.
     */
    static final int BACKLOG = Integer.MAX_VALUE;

    /** One server: started once, stopped from the SIGTERM handler. */
    interface Server {
        /** Binds the --bind address and port (0: any free port) and starts accepting; returns the bound port. */
        int start() throws IOException;

        /** Stops accepting and closes the connections (in-flight requests may be dropped). */
        void stop();

        /** Free-form keys of the ready line's runtime object, besides cpus, gc and jdk. */
        Map<String, Object> runtime();
    }

    /** A ready-line map from key, value, key, value, ... (values may be null), then the entries of {@code more}. */
    static Map<String, Object> keys(Map<String, Object> more, Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        m.putAll(more);
        return m;
    }

    /** Installs the SIGTERM handler, starts the server and prints the ready line. Returns at once. */
    static void run(Server server, Json out) throws IOException {
        Signal.handle(new Signal("TERM"), sig -> {
            try {
                server.stop();
            } finally {
                System.exit(0);
            }
        });
        int port = server.start();
        Map<String, Object> runtime = new LinkedHashMap<>();
        runtime.put("cpus", Runtime.getRuntime().availableProcessors());
        runtime.put("gc", Main.collectorNames());
        runtime.put("jdk", Runtime.version().toString());
        runtime.put("max_heap_mib", Runtime.getRuntime().maxMemory() >> 20);
        runtime.putAll(server.runtime());
        out.ready(port, runtime);
    }
}
