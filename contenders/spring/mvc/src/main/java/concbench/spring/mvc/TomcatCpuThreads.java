package concbench.spring.mvc;

import org.apache.coyote.AbstractProtocol;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Profile;
import org.springframework.core.Ordered;
import org.springframework.stereotype.Component;

/**
 * Tomcat's worker pool sized for the CPUs the JVM sees and for what a request holds its thread
 * for (profile "tomcat-sized", which the design "sequential" joins; "sequential-stock" keeps
 * Boot's 200).
 * <ul>
 * <li>http-hello: the handler never blocks, so a worker is busy only while it uses a CPU; more
 * runnable workers than CPUs only time-slice the CPUs among themselves and Tomcat's poller and
 * acceptor. {@value #HELLO_THREADS_PER_CPU} per CPU (as Netty's default event loops), fixed
 * (min-spare = max).</li>
 * <li>http-aggregate: the sequential handler holds its thread for base + detail + extra ms of
 * waiting and microseconds of CPU, so the pool must hold every concurrent request (Little's law:
 * threads = connections); Boot's 200 stays, which covers the suites' 150 connections.</li>
 * </ul>
 * Applied after Boot's own customizer (lowest precedence), so these values win over
 * server.tomcat.threads.*; the ready line reads them back from the started connector.
 */
@Component
@Profile("tomcat-sized")
public class TomcatSizing implements WebServerFactoryCustomizer<TomcatServletWebServerFactory>, Ordered {
    static final int HELLO_THREADS_PER_CPU = 2;

    private final String workload;

    public TomcatSizing(@Value("${concbench.workload}") String workload) {
        this.workload = workload;
    }

    @Override
    public void customize(TomcatServletWebServerFactory factory) {
        if (!workload.equals("http-hello")) {
            return;
        }
        int threads = HELLO_THREADS_PER_CPU * Runtime.getRuntime().availableProcessors();
        factory.addConnectorCustomizers(connector -> {
            if (connector.getProtocolHandler() instanceof AbstractProtocol<?> protocol) {
                protocol.setMaxThreads(threads);
                protocol.setMinSpareThreads(threads);
            }
        });
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
