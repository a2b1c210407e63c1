package concbench.helidon;

import java.net.Inet4Address;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The concbench server invocation (docs/contract.md, "Servers"): {@code <workload> --port=P
 * --bind=ADDR --k=v ...}. Every parameter of the workload exactly once and nothing else: the
 * contender has no defaults of its own. Addresses are IPv4 literals (no name lookup).
 * {@code downstream} and {@code backendHost} are null for http-hello; pool-size is validated and
 * ignored (one virtual thread per connection, no pool to size).
 */
record ServerArgs(String workload, int port, String bind, long baseMs, long detailMs, long extraMs,
        String downstream, String backendHost, int backendPort) {

    /** Bad input: Main prints the message on stderr and exits 2. */
    static final class UsageError extends Exception {
        UsageError(String message) {
            super(message);
        }
    }

    private static final Map<String, List<String>> PARAMS = Map.of(
            "http-hello", List.of("port", "bind", "pool-size"),
            "http-aggregate", List.of("port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream",
                    "backend-host", "backend-port", "pool-size"));

    static ServerArgs parse(String[] args) throws UsageError {
        if (args.length == 0) {
            throw new UsageError("usage: <workload> --<param>=<value> ...; workloads " + PARAMS.keySet());
        }
        String workload = args[0];
        List<String> expected = PARAMS.get(workload);
        if (expected == null) {
            throw new UsageError("unknown workload '" + workload + "' (this server serves " + PARAMS.keySet() + ")");
        }
        Map<String, String> raw = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 3) {
                throw new UsageError("expected --name=value, got '" + a + "'");
            }
            String name = a.substring(2, eq);
            if (!expected.contains(name)) {
                throw new UsageError("unknown parameter --" + name + " for " + workload + " (expected " + expected + ")");
            }
            if (raw.put(name, a.substring(eq + 1)) != null) {
                throw new UsageError("parameter --" + name + " given twice");
            }
        }
        for (String name : expected) {
            if (!raw.containsKey(name)) {
                throw new UsageError("missing parameter --" + name + " for " + workload);
            }
        }
        int port = (int) number(raw, "port", 1, 65535);
        String bind = ipv4(raw, "bind");
        number(raw, "pool-size", 1, Integer.MAX_VALUE); // checked, then ignored
        if (workload.equals("http-hello")) {
            return new ServerArgs(workload, port, bind, 0, 0, 0, null, null, 0);
        }
        String downstream = raw.get("downstream");
        if (!downstream.equals("inproc") && !downstream.equals("http")) {
            throw new UsageError("--downstream must be inproc or http, got '" + downstream + "'");
        }
        boolean http = downstream.equals("http");
        return new ServerArgs(workload, port, bind, number(raw, "base-ms", 0, Integer.MAX_VALUE),
                number(raw, "detail-ms", 0, Integer.MAX_VALUE), number(raw, "extra-ms", 0, Integer.MAX_VALUE),
                downstream, ipv4(raw, "backend-host"), (int) number(raw, "backend-port", http ? 1 : 0, http ? 65535 : 0));
    }

    private static String ipv4(Map<String, String> raw, String name) throws UsageError {
        String value = raw.get(name);
        try {
            return Inet4Address.ofLiteral(value).getHostAddress();
        } catch (IllegalArgumentException e) {
            throw new UsageError("--" + name + " must be an IPv4 address literal, got '" + value + "'");
        }
    }

    private static long number(Map<String, String> raw, String name, long min, long max) throws UsageError {
        String value = raw.get(name);
        long v;
        try {
            v = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new UsageError("--" + name + " must be an integer, got '" + value + "'");
        }
        if (v < min || v > max) {
            throw new UsageError("--" + name + " must be " + min + ".." + max + ", got " + v);
        }
        return v;
    }
}
