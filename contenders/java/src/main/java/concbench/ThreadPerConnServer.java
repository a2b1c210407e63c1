package concbench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A thread per connection, no framework: java-thread-per-conn (seed 004's "10w Thread" row, platform
 * threads) and java-virtual / java-structured (virtual threads): the same code, only the
 * {@link Thread.Builder} of the connection threads differs. A blocking java.net.ServerSocket on the
 * --bind address; one platform acceptor thread starts a new connection thread per accepted
 * connection; that thread runs a minimal HTTP/1.1 keep-alive loop (request line, headers,
 * Content-Length bodies skipped) until the client closes or asks for Connection: close, and runs the
 * {@link Route} of each request on itself (a blocking route blocks only its own connection).
 *
 * <p>Every response carries Date (cached per second), Content-Type and Content-Length and goes out in
 * one write; TCP_NODELAY is set as the JDK HttpServer contenders do. Requests with Transfer-Encoding
 * (chunked bodies) get 501 and the connection is closed. There is no idle timeout: a thread waits in
 * read() until its client sends or closes.
 */
final class ThreadPerConnServer implements ServerLifecycle.Server {
    private static final int MAX_LINE = 8192; // request line or header line
    private static final int MAX_HEADERS = 100;

    /** One response: status, Content-Type (null: none) and body. */
    record Response(int status, String contentType, byte[] body) {
        static Response empty(int status) { return new Response(status, null, JdkHttp.EMPTY); }
    }

    /** The application: a response for a method and a path (the target without its query); may block. */
    interface Route {
        Response answer(String method, String path);
    }

    private final InetAddress bind;
    private final int port;
    private final Thread.Builder connThreads;
    private final Route route;
    private final Map<String, Object> runtime;
    private volatile ServerSocket listener;
    private final AtomicBoolean warned = new AtomicBoolean();

    /**
     * {@code connThreads}: builds each connection's thread (Thread.ofPlatform() or Thread.ofVirtual());
     * {@code runtime}: the ready line's description of the threads (and downstream).
     */
    ThreadPerConnServer(InetAddress bind, int port, Thread.Builder connThreads, Route route, Map<String, Object> runtime) {
        this.bind = bind;
        this.port = port;
        this.connThreads = connThreads;
        this.route = route;
        this.runtime = ServerLifecycle.keys(runtime, "pool", null,
                "server", "blocking java.net.ServerSocket, hand-written HTTP/1.1, a thread per connection");
    }

    @Override
    public int start() throws IOException {
        ServerSocket ss = new ServerSocket();
        ss.bind(new InetSocketAddress(bind, port), ServerLifecycle.BACKLOG);
        listener = ss;
        Thread.ofPlatform().name("acceptor").start(() -> acceptLoop(ss));
        return ss.getLocalPort();
    }

    @Override
    public void stop() {
        ServerSocket ss = listener;
        try {
            if (ss != null) ss.close();
        } catch (IOException ignored) {
            // exiting anyway
        }
    }

    @Override
    public Map<String, Object> runtime() { return runtime; }

    /**
     * On a platform thread for every kind of connection thread: accept() blocks in the kernel, with no
     * poller registration per accept (Helidon 4's listener is a platform thread too).
     */
    private void acceptLoop(ServerSocket ss) {
        while (!ss.isClosed()) {
            Socket s;
            try {
                s = ss.accept();
            } catch (IOException e) {
                if (ss.isClosed()) return; // stop()
                warnOnce("accept failed: " + e); // e.g. too many open files: back off instead of spinning
                Work.sleep(10);
                continue;
            }
            try {
                s.setTcpNoDelay(true);
                connThreads.start(() -> serve(s));
            } catch (IOException | OutOfMemoryError e) { // OOM: the OS refuses another (platform) thread
                warnOnce("closing a connection: " + e + " (see /proc/sys/kernel/pid_max, threads-max, ulimit -u)");
                closeQuietly(s);
            }
        }
    }

    /** The first problem only: the server must not log per request. */
    private void warnOnce(String msg) {
        if (warned.compareAndSet(false, true))
            System.err.println("concbench-java thread-per-conn: " + msg + " (reported once)");
    }

    /** The keep-alive loop of one connection. */
    private void serve(Socket s) {
        try (s) {
            Reader in = new Reader(s.getInputStream());
            Writer out = new Writer(s.getOutputStream());
            while (true) {
                String requestLine = in.line();
                if (requestLine == null) return;         // client closed
                if (requestLine.isEmpty()) continue;     // an empty line before a request is tolerated (RFC 9112 2.2)
                String[] parts = requestLine.split(" ", -1);
                boolean http11 = parts.length == 3 && parts[2].equals("HTTP/1.1");
                if (parts.length != 3 || !(http11 || parts[2].equals("HTTP/1.0"))) {
                    out.send(400, null, JdkHttp.EMPTY, "close");
                    return;
                }
                // headers: only Connection, Content-Length and Transfer-Encoding matter here
                boolean close = !http11, chunked = false;
                long contentLength = 0;
                for (int n = 0; ; n++) {
                    String h = in.line();
                    if (h == null) return;
                    if (h.isEmpty()) break;
                    if (n == MAX_HEADERS) {
                        out.send(431, null, JdkHttp.EMPTY, "close");
                        return;
                    }
                    int colon = h.indexOf(':');
                    if (colon <= 0) continue;
                    String name = h.substring(0, colon).trim(), value = h.substring(colon + 1).trim();
                    if (name.equalsIgnoreCase("Connection")) {
                        for (String token : value.split(",")) {
                            if (token.trim().equalsIgnoreCase("close")) close = true;
                            else if (token.trim().equalsIgnoreCase("keep-alive") && !http11) close = false;
                        }
                    } else if (name.equalsIgnoreCase("Content-Length")) {
                        contentLength = parseLength(value);
                    } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                        chunked = true;
                    }
                }
                if (chunked || contentLength < 0) {
                    out.send(chunked ? 501 : 400, null, JdkHttp.EMPTY, "close");
                    return;
                }
                in.skip(contentLength);
                String target = parts[1];
                int q = target.indexOf('?');
                Response r = route.answer(parts[0], q < 0 ? target : target.substring(0, q));
                String connection = close ? "close" : http11 ? null : "keep-alive"; // HTTP/1.0 needs it said
                out.send(r.status(), r.contentType(), r.body(), connection);
                if (close) return;
            }
        } catch (IOException e) {
            // connection reset, malformed line, or closed by stop(): this thread ends
        }
    }

    /** Content-Length value; -1 when malformed. */
    private static long parseLength(String v) {
        if (v.isEmpty() || v.length() > 18) return -1;
        for (int i = 0; i < v.length(); i++) if (v.charAt(i) < '0' || v.charAt(i) > '9') return -1;
        return Long.parseLong(v);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    // ---------------------------------------------------------------- reading

    /** Buffered reads of CRLF-terminated ISO-8859-1 lines (a bare LF is accepted too). */
    private static final class Reader {
        private final InputStream in;
        private final byte[] buf = new byte[8192];
        private int pos, lim;

        Reader(InputStream in) { this.in = in; }

        private final byte[] line = new byte[MAX_LINE];

        /** The next line without its line end; null at end of stream (also in the middle of a line). */
        String line() throws IOException {
            int len = 0;
            while (true) {
                if (pos == lim && !fill()) return null;
                byte b = buf[pos++];
                if (b == '\n') {
                    if (len > 0 && line[len - 1] == '\r') len--;
                    return new String(line, 0, len, StandardCharsets.ISO_8859_1);
                }
                if (len == MAX_LINE) throw new IOException("line longer than " + MAX_LINE + " bytes");
                line[len++] = b;
            }
        }

        void skip(long n) throws IOException {
            while (n > 0) {
                if (pos == lim && !fill()) throw new IOException("body shorter than Content-Length");
                int k = (int) Math.min(n, lim - pos);
                pos += k;
                n -= k;
            }
        }

        private boolean fill() throws IOException {
            int n = in.read(buf);
            if (n < 0) return false;
            pos = 0;
            lim = n;
            return true;
        }
    }

    // ---------------------------------------------------------------- writing

    /** Builds each response in one buffer and writes it with one write(). */
    private static final class Writer {
        private final OutputStream out;
        private byte[] buf = new byte[512];
        private int n;

        Writer(OutputStream out) { this.out = out; }

        /** {@code connection}: the Connection header's value, or null for none. */
        void send(int status, String contentType, byte[] body, String connection) throws IOException {
            n = 0;
            ascii("HTTP/1.1 ").ascii(Integer.toString(status)).ascii(" ").ascii(reason(status)).ascii("\r\n");
            bytes(Dates.line());
            if (contentType != null) ascii("Content-Type: ").ascii(contentType).ascii("\r\n");
            if (status == 405) ascii("Allow: GET\r\n");
            ascii("Content-Length: ").ascii(Integer.toString(body.length)).ascii("\r\n");
            if (connection != null) ascii("Connection: ").ascii(connection).ascii("\r\n");
            ascii("\r\n").bytes(body);
            out.write(buf, 0, n);
        }

        private Writer ascii(String s) {
            ensure(s.length());
            for (int i = 0; i < s.length(); i++) buf[n++] = (byte) s.charAt(i);
            return this;
        }

        private Writer bytes(byte[] b) {
            ensure(b.length);
            System.arraycopy(b, 0, buf, n, b.length);
            n += b.length;
            return this;
        }

        private void ensure(int more) {
            if (n + more > buf.length) buf = Arrays.copyOf(buf, Math.max(2 * buf.length, n + more));
        }

        private static String reason(int status) {
            return switch (status) {
                case 200 -> "OK";
                case 400 -> "Bad Request";
                case 404 -> "Not Found";
                case 405 -> "Method Not Allowed";
                case 431 -> "Request Header Fields Too Large";
                case 501 -> "Not Implemented";
                case 502 -> "Bad Gateway";
                default -> "";
            };
        }
    }

    /** The Date header line, formatted once per second. */
    private static final class Dates {
        private static final DateTimeFormatter HTTP_DATE =
                DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
        private record Line(long second, byte[] bytes) {}
        private static volatile Line current = new Line(-1, null);

        static byte[] line() {
            long now = System.currentTimeMillis() / 1000;
            Line l = current;
            if (l.second() != now) {
                l = new Line(now, ("Date: " + HTTP_DATE.format(Instant.ofEpochSecond(now)) + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                current = l; // a race only formats the same line twice
            }
            return l.bytes();
        }
    }
}
