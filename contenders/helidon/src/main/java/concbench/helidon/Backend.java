package concbench.helidon;

import io.helidon.http.Status;
import io.helidon.webclient.api.ClientResponseTyped;
import io.helidon.webclient.api.WebClient;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * downstream=http: GET http://&lt;backend-host&gt;:&lt;backend-port&gt;/delay/&lt;ms&gt; with Helidon's
 * WebClient, whole body read, status 200 required.
 *
 * <p>Why WebClient and not the JDK HttpClient: it is Helidon's own client, built like the server
 * for virtual threads. A call is plain blocking socket I/O on the calling (virtual) thread, with the
 * same HTTP/1.1 codec as the server; the JDK HttpClient does its I/O on its own selector thread and
 * completes each call through its executor, two hand-offs per call that a virtual thread does not
 * need. Helidon's SE documentation presents WebClient as the client of an SE service.
 */
final class Backend implements Downstream {
    /**
     * Idle keep-alive connections kept per backend (HttpClientConfig.connectionCacheSize, default
     * 256). WebClient opens a new connection whenever none is idle (no upper bound) and closes one
     * that comes back to a full cache: with the default and up to 2 x connections calls in flight
     * (300 at seed 003's 150 connections), the calls above 256 would each open and close one.
     * 4096, as the Spring contenders' client pools.
     */
    static final int CONNECTION_CACHE_SIZE = 4096;

    private final WebClient client;

    Backend(String host, int port) {
        this.client = WebClient.builder()
                .baseUri("http://" + host + ":" + port)
                .connectionCacheSize(CONNECTION_CACHE_SIZE)
                .build();
    }

    @Override
    public void call(Waits.Kind kind, long ms) {
        ClientResponseTyped<String> response;
        try {
            response = client.get("/delay/" + ms).request(String.class); // reads the whole body
        } catch (RuntimeException e) { // connect or read failed (UncheckedIOException and Helidon's own)
            throw new BadGateway("backend call failed: " + e, e);
        }
        if (response.status().code() != Status.OK_200.code()) {
            throw new BadGateway("backend answered " + response.status(), null);
        }
    }

    @Override
    public Map<String, Object> runtime() {
        Map<String, Object> pool = new LinkedHashMap<>();
        pool.put("client", "Helidon WebClient (HTTP/1.1, keep-alive)");
        pool.put("max_connections", null); // a new connection whenever none is idle
        pool.put("connection_cache_size", client.prototype().connectionCacheSize());
        pool.put("shared_cache", client.prototype().shareConnectionCache());
        return Map.of("downstream", "http", "client_pool", pool);
    }
}
