package concbench.spring;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Prints {"type":"ready","port":P,"runtime":{...}} once the application is ready (the embedded
 * server is accepting: Boot starts it before ApplicationReadyEvent). Runtime entries are read
 * from the running objects, never from this program's own constants: cpus from the JVM, the
 * collectors the JVM chose, what each application's {@link ReadyInfo} beans report. The port is
 * local.server.port, which Boot sets from the started web server (in Boot 3.5 and 4 alike, while
 * the web server's classes moved between them).
 */
public final class ReadyLine implements ApplicationListener<ApplicationReadyEvent> {

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        ConfigurableApplicationContext ctx = event.getApplicationContext();
        int port = ctx.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        Map<String, Object> runtime = new LinkedHashMap<>();
        runtime.put("cpus", Runtime.getRuntime().availableProcessors());
        runtime.put("gc", gc());
        runtime.put("java", Runtime.version().toString());
        runtime.put("spring_boot", SpringBootVersion.getVersion());
        runtime.put("profile", String.join(",", ctx.getEnvironment().getActiveProfiles()));
        for (ReadyInfo info : ctx.getBeansOfType(ReadyInfo.class).values()) {
            info.contribute(runtime);
        }
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("type", "ready");
        line.put("port", port);
        line.put("runtime", runtime);
        TermExit.install(ctx);
        try {
            System.out.println(BootJson.plain(line));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
        System.out.flush();
    }

    /** The collector family the JVM picked (G1, Serial, Parallel, ZGC, Shenandoah), as observed. */
    static String gc() {
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            String n = gc.getName();
            if (n.startsWith("G1")) return "G1";
            if (n.startsWith("ZGC")) return "ZGC";
            if (n.startsWith("Shenandoah")) return "Shenandoah";
            if (n.startsWith("PS ")) return "Parallel";
            if (n.equals("Copy") || n.equals("MarkSweepCompact")) return "Serial";
            if (n.startsWith("Epsilon")) return "Epsilon";
        }
        return ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList().toString();
    }
}
