package concbench.helidon;

import io.helidon.common.Version;
import io.helidon.webserver.WebServer;
import java.util.LinkedHashMap;
import java.util.Map;
import sun.misc.Signal;

/**
 * java-helidon: {@code java -jar concbench-helidon.jar <workload> --k=v ...} serves http-hello or
 * http-aggregate on Helidon SE's WebServer until SIGTERM; {@code --version} prints the library
 * versions (the toolchain's version command). Bad input: message on stderr, exit 2.
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] argv) throws Exception {
        if (argv.length == 1 && argv[0].equals("--version")) {
            System.out.println("helidon " + Version.VERSION + " jackson-databind "
                    + com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION);
            return;
        }
        ServerArgs args;
        try {
            args = ServerArgs.parse(argv);
        } catch (ServerArgs.UsageError e) {
            System.err.println("concbench-helidon: " + e.getMessage());
            System.exit(2);
            return;
        }
        boolean inproc = "inproc".equals(args.downstream()); // null for http-hello
        Waits waits = inproc ? new Waits() : null;
        Downstream downstream = args.workload().equals("http-hello") ? null
                : inproc ? Downstream.inproc(waits)
                : new Backend(args.backendHost(), args.backendPort());
        WebServer server;
        try {
            server = Server.start(args, downstream, waits);
        } catch (RuntimeException e) { // port taken, bind refused: Helidon logged the cause on stderr
            System.err.println("concbench-helidon: start-up failed: " + e);
            System.exit(1);
            return;
        }
        // SIGTERM: stop (in-flight requests get the shutdown grace period, then are dropped) and
        // exit 0; the JVM's own TERM handling would exit 143. sun.misc.Signal: jdk.unsupported
        Signal.handle(new Signal("TERM"), signal -> {
            server.stop();
            System.exit(0);
        });
        Map<String, Object> workload = new LinkedHashMap<>();
        if (downstream != null) {
            workload.put("executor", "detail and extra on Executors.newVirtualThreadPerTaskExecutor()");
            workload.putAll(downstream.runtime());
        }
        ReadyLine.print(server, workload);
    }
}
