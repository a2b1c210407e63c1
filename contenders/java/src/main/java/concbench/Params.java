package concbench;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Strict {@code --name=value} parsing: every parameter required, no unknown or repeated ones. */
final class Params {
    static final class BadInput extends Exception {
        BadInput(String msg) { super(msg); }
    }

    private final Map<String, String> values;

    private Params(Map<String, String> values) { this.values = values; }

    /** Batch workloads also take --warmup and --iterations; server workloads take only their own. */
    static Params parse(String[] args, int from, List<String> workloadParams, boolean batch) throws BadInput {
        Set<String> allowed = new java.util.HashSet<>(workloadParams);
        if (batch) {
            allowed.add("warmup");
            allowed.add("iterations");
        }
        Map<String, String> v = new HashMap<>();
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 3) throw new BadInput("malformed argument '" + a + "' (expected --name=value)");
            String name = a.substring(2, eq);
            if (!allowed.contains(name)) throw new BadInput("unknown parameter '--" + name + "' (expected " + allowed + ")");
            if (v.put(name, a.substring(eq + 1)) != null) throw new BadInput("parameter '--" + name + "' given twice");
        }
        for (String name : allowed)
            if (!v.containsKey(name)) throw new BadInput("missing parameter '--" + name + "'");
        return new Params(v);
    }

    String string(String name) { return values.get(name); }

    /** One of the given words. */
    String choice(String name, String... choices) throws BadInput {
        String s = values.get(name);
        for (String c : choices) if (c.equals(s)) return s;
        throw new BadInput("--" + name + "=" + s + ": expected " + String.join(" | ", choices));
    }

    int intBetween(String name, int min, int max) throws BadInput {
        int x = intAtLeast(name, min);
        if (x > max) throw new BadInput("--" + name + "=" + x + ": must be <= " + max);
        return x;
    }

    long longAtLeast(String name, long min) throws BadInput {
        String s = values.get(name);
        long x;
        try {
            x = Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new BadInput("--" + name + "=" + s + ": not an integer");
        }
        if (x < min) throw new BadInput("--" + name + "=" + s + ": must be >= " + min);
        return x;
    }

    /** An IPv4 address literal such as 127.0.0.1 (no name lookup). */
    InetAddress ipv4(String name) throws BadInput {
        String s = values.get(name);
        try {
            return Inet4Address.ofLiteral(s);
        } catch (IllegalArgumentException e) {
            throw new BadInput("--" + name + "=" + s + ": not an IPv4 address");
        }
    }

    int intAtLeast(String name, int min) throws BadInput {
        long x = longAtLeast(name, min);
        if (x > Integer.MAX_VALUE) throw new BadInput("--" + name + "=" + x + ": too large");
        return (int) x;
    }
}
