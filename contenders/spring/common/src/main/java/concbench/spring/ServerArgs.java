package concbench.spring;

import java.net.Inet4Address;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The concbench server invocation (docs/contract.md, "Servers"):
 * {@code <design> <workload> --port=P --bind=ADDR --k=v ...}. Every parameter of the workload must
 * be given exactly once, nothing else is accepted: the contender has no defaults of its own.
 * {@code bind} and {@code backendHost} are IPv4 address literals ({@code backendHost} null for
 * http-hello); {@code params} holds the numeric parameters.
 */
public record ServerArgs(String design, String workload, Map<String, Long> params, String downstream,
        String bind, String backendHost) {

    /** Bad input: the launcher prints the message on stderr and exits 2. */
    public static final class UsageError extends Exception {
        public UsageError(String message) {
            super(message);
        }
    }

    static final Map<String, List<String>> WORKLOAD_PARAMS = Map.of(
            "http-hello", List.of("port", "bind", "pool-size"),
            "http-aggregate", List.of("port", "bind", "base-ms", "detail-ms", "extra-ms", "downstream",
                    "backend-host", "backend-port", "pool-size"));

    public static ServerArgs parse(String[] args, List<String> designs) throws UsageError {
        if (args.length < 2) {
            throw new UsageError("usage: <design> <workload> --<param>=<value> ...; designs "
                    + designs + ", workloads " + WORKLOAD_PARAMS.keySet());
        }
        String design = args[0];
        if (!designs.contains(design)) {
            throw new UsageError("unknown design '" + design + "' (this jar has " + designs + ")");
        }
        String workload = args[1];
        List<String> expected = WORKLOAD_PARAMS.get(workload);
        if (expected == null) {
            throw new UsageError("unknown workload '" + workload + "' (servers: "
                    + WORKLOAD_PARAMS.keySet() + ")");
        }
        Map<String, String> raw = new LinkedHashMap<>();
        for (int i = 2; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 3) {
                throw new UsageError("expected --name=value, got '" + a + "'");
            }
            String name = a.substring(2, eq);
            if (!expected.contains(name)) {
                throw new UsageError("unknown parameter --" + name + " for " + workload
                        + " (expected " + expected + ")");
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
        String downstream = raw.remove("downstream");
        String bind = ipv4("bind", raw.remove("bind"));
        String backendHost = raw.containsKey("backend-host")
                ? ipv4("backend-host", raw.remove("backend-host"))
                : null;
        Map<String, Long> params = new LinkedHashMap<>();
        for (var e : raw.entrySet()) {
            params.put(e.getKey(), number(e.getKey(), e.getValue()));
        }
        check(params.get("port") >= 1 && params.get("port") <= 65535, "--port must be 1..65535");
        if (downstream != null) {
            check(downstream.equals("inproc") || downstream.equals("http"),
                    "--downstream must be inproc or http, got '" + downstream + "'");
            long backend = params.get("backend-port");
            check(downstream.equals("inproc") ? backend == 0 : backend >= 1 && backend <= 65535,
                    "--backend-port must be 0 with --downstream=inproc, 1..65535 with http");
        }
        return new ServerArgs(design, workload, params, downstream, bind, backendHost);
    }

    /** An IPv4 address literal such as 127.0.0.1 (no name lookup). */
    private static String ipv4(String name, String value) throws UsageError {
        try {
            return Inet4Address.ofLiteral(value).getHostAddress();
        } catch (IllegalArgumentException e) {
            throw new UsageError("--" + name + " must be an IPv4 address, got '" + value + "'");
        }
    }

    private static long number(String name, String value) throws UsageError {
        try {
            long v = Long.parseLong(value);
            if (v < 0 || v > Integer.MAX_VALUE) {
                throw new UsageError("--" + name + " out of range: " + value);
            }
            return v;
        } catch (NumberFormatException e) {
            throw new UsageError("--" + name + " must be a non-negative integer, got '" + value + "'");
        }
    }

    private static void check(boolean ok, String message) throws UsageError {
        if (!ok) {
            throw new UsageError(message);
        }
    }

    /**
     * The same settings as Spring Boot command-line properties, the way a Spring user starts the
     * app: {@code --spring.profiles.active=<design> --server.port=P --server.address=ADDR
     * --concbench.base-ms=...}. Everything else (shutdown mode, banner, threads, pools) lives in
     * the application's application*.properties.
     */
    public String[] springArgs() {
        var out = new java.util.ArrayList<String>();
        out.add("--spring.profiles.active=" + design);
        out.add("--server.port=" + params.get("port"));
        out.add("--server.address=" + bind);
        out.add("--concbench.workload=" + workload);
        for (var e : params.entrySet()) {
            if (!e.getKey().equals("port")) {
                out.add("--concbench." + e.getKey() + "=" + e.getValue());
            }
        }
        if (downstream != null) {
            out.add("--concbench.downstream=" + downstream);
        }
        if (backendHost != null) {
            out.add("--concbench.backend-host=" + backendHost);
        }
        return out.toArray(String[]::new);
    }
}
