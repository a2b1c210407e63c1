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
        StringBuilder b = new StringBuilder(160);
        b.append("{\"type\":\"iteration\",\"index\":").append(index)
         .append(",\"warmup\":").append(warmup)
         .append(",\"elapsed_ns\":").append(elapsedNs)
         .append(",\"result\":{");
        boolean first = true;
        for (Map.Entry<String, Object> e : result.entrySet()) {
            if (!first) b.append(',');
            first = false;
            b.append('"').append(e.getKey()).append("\":");
            Object v = e.getValue();
            if (v instanceof String s) b.append('"').append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
            else b.append(v); // Number, Boolean or null
        }
        b.append("}}");
        line(b);
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
