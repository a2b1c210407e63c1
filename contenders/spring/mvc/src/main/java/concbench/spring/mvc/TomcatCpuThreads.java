package concbench.spring.mvc;

import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;
import org.springframework.context.annotation.Profile;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Tomcat's worker pool at {@value #THREADS_PER_CPU} threads per CPU the JVM sees, fixed
 * (min-spare = max): profile "tomcat-cpu-threads", which the design "sequential-cpu-threads"
 * joins. For a handler that never blocks (http-hello) a worker is busy only while it has a CPU;
 * more runnable workers than CPUs only time-slice the CPUs among themselves and Tomcat's poller
 * and acceptor. A handler that blocks (http-aggregate's sequential waits) needs a thread per
 * request in flight, which this pool does not have: the design is a named variant measured
 * beside Boot's 200, not the default, and it sizes itself the same way whatever it serves.
 * Applied after Boot's own customizer (lowest precedence), so these values win over
 * server.tomcat.threads.*; the ready line reads them back from the started connector.
 */
@Component
@Profile("tomcat-cpu-threads")
public class TomcatCpuThreads extends BootWeb.ConnectorSettings implements Ordered {
    static final int THREADS_PER_CPU = 2;

    @Override
    void apply(Connector connector) {
        int threads = THREADS_PER_CPU * Runtime.getRuntime().availableProcessors();
        if (connector.getProtocolHandler() instanceof AbstractProtocol<?> protocol) {
            protocol.setMaxThreads(threads);
            protocol.setMinSpareThreads(threads);
        }
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
