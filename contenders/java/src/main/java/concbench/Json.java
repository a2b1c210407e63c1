package concbench;

import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** JSON lines on stdout, each flushed at once. Values are numbers, booleans, strings or null. */
final class Json {
    private final PrintStream out = new PrintStream(
            new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 14), false, StandardCharsets.UTF_8);

    void iteration(int index, boolean warmup, long elapsedNs, Map<String, Object> result) {
        iteration(index, warmup, elapsedNs, result, -1, 0);
    }

    /** With cpuNs >= 0 (ring, skynet): the line's cpu_ns and cpu_tick_ns (docs/contract.md). */
    void iteration(int index, boolean warmup, long elapsedNs, Map<String, Object> result, long cpuNs, long tickNs) {
        StringBuilder b = new StringBuilder(160);
        b.append("{\"type\":\"iteration\",\"index\":").append(index)
         .append(",\"warmup\":").append(warmup)
         .append(",\"elapsed_ns\":").append(elapsedNs)
         .append(",\"result\":");
        object(b, result);
        if (cpuNs >= 0) b.append(",\"cpu_ns\":").append(cpuNs).append(",\"cpu_tick_ns\":").append(tickNs);
        b.append('}');
        line(b);
    }

    /** Server workloads: {"type":"ready","port":P,"runtime":{...}} once the server accepts connections. */
    void ready(int port, Map<String, Object> runtime) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"type\":\"ready\",\"port\":").append(port).append(",\"runtime\":");
        object(b, runtime).append('}');
        line(b);
    }

    /** A JSON object of numbers, booleans, strings, nulls and nested objects (fanout's per-kind proofs). */
    @SuppressWarnings("unchecked")
    private static StringBuilder object(StringBuilder b, Map<String, Object> map) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<String, Object> e : map.entrySet()) {
            if (!first) b.append(',');
            first = false;
            string(b, e.getKey()).append(':');
            Object v = e.getValue();
            if (v instanceof String s) string(b, s);
            else if (v instanceof Map<?, ?> m) object(b, (Map<String, Object>) m);
            else b.append(v); // Number, Boolean or null
        }
        return b.append('}');
    }

    private static StringBuilder string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"');
    }

    void mark(String name, int index, long elapsedNs) {
        line(new StringBuilder(96).append("{\"type\":\"mark\",\"name\":\"").append(name)
                .append("\",\"index\":").append(index).append(",\"elapsed_ns\":").append(elapsedNs).append('}'));
    }

    private synchronized void line(CharSequence s) {
        out.append(s).append('\n');
        out.flush();
    }
}
