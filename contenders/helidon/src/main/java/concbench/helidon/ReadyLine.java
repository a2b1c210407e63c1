package concbench.helidon;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.helidon.common.Version;
import io.helidon.common.socket.SocketOptions;
import io.helidon.webserver.WebServer;
import io.helidon.webserver.WebServerConfig;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {"type":"ready","port":P,"runtime":{...}} once the server accepts. The settings are read back from
 * the started server's configuration (WebServer.prototype()), the rest from the running JVM, so the
 * line says what ran, not what this program meant to set.
 */
final class ReadyLine {
    private ReadyLine() {
    }

    static void print(WebServer server, Map<String, Object> workload) throws Exception {
        WebServerConfig config = server.prototype();
        SocketOptions socket = config.connectionOptions();
        Map<String, Object> runtime = new LinkedHashMap<>();
        runtime.put("cpus", Runtime.getRuntime().availableProcessors());
        runtime.put("gc", ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", ")));
        runtime.put("jdk", Runtime.version().toString());
        runtime.put("max_heap_mib", Runtime.getRuntime().maxMemory() >> 20);
        runtime.put("helidon", Version.VERSION);
        runtime.put("server", "helidon-webserver (Nima), HTTP/1.1, no TLS");
        runtime.put("threads", "one platform thread accepts (server-@default-listener); a new virtual thread per"
                + " connection reads its HTTP/1.1 requests and runs each one's handler, one after another");
        runtime.put("pool", null);
        runtime.put("backlog", config.backlog());
        runtime.put("max_tcp_connections", config.maxTcpConnections());
        runtime.put("max_concurrent_requests", config.maxConcurrentRequests());
        runtime.put("idle_connection_timeout", config.idleConnectionTimeout().toString());
        runtime.put("keep_alive", "HTTP/1.1 keep-alive with no limit of requests per connection (Helidon has"
                + " none); a connection without traffic is closed after idle_connection_timeout");
        Map<String, Object> sockets = new LinkedHashMap<>(); // each accepted connection's options
        sockets.put("tcp_no_delay", socket.tcpNoDelay());
        sockets.put("so_keepalive", socket.socketKeepAlive());
        sockets.put("so_rcvbuf", socket.socketReceiveBufferSize().map(Object.class::cast).orElse("kernel default"));
        sockets.put("so_sndbuf", socket.socketSendBufferSize().map(Object.class::cast).orElse("kernel default"));
        runtime.put("connection_options", sockets);
        runtime.put("write_queue_length", config.writeQueueLength());
        runtime.put("shutdown_grace_period", config.shutdownGracePeriod().toString());
        runtime.putAll(workload);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("type", "ready");
        line.put("port", server.port());
        line.put("runtime", runtime);
        // every value is ASCII: System.out encodes with the locale's charset (stdout.encoding)
        System.out.println(new ObjectMapper().writeValueAsString(line));
        System.out.flush();
    }
}
